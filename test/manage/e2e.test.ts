import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Settings } from '../../src/config.js';
import { ensureDemo } from '../../src/core/seed/demo.js';
import { activity } from '../../src/db/schema.js';
import { silentLogger } from '../../src/log.js';
import { createContext, startServer, type RunningServer } from '../../src/server.js';
import { callTool } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;
/** The CLI in a child process, awaited without blocking this process's server. */
const cli = async (args: string[]) => {
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  return stdout;
};

/**
 * docs/managing.md's worked example, end to end: an empty database, then an account, an
 * agent and a campaign over REST and MCP (?toolsets=manage), a CSV imported with the CLI,
 * the campaign started, and the engine contacting every imported lead at a high sim speed.
 */
describe('managing.md: from an empty database to a running campaign', () => {
  let dir: string;
  let server: RunningServer;
  let key: string;
  let mcp: Client;
  const rest = async (path: string, method = 'GET', body?: unknown) => {
    const res = await fetch(`${server.url}/public/v1${path}`, {
      method,
      headers: { 'X-API-Key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outreach-manage-e2e-'));
    const settings: Settings = { host: '127.0.0.1', port: 0, dbPath: join(dir, 'outreach.db'), env: 'development', simSpeed: 86_400, config: {} };
    const ctx = createContext(settings, silentLogger());
    // What `npm start` does on an empty database: the demo workspace and a first key.
    key = ensureDemo(ctx)!;
    server = await startServer(settings, ctx.log, ctx);
    mcp = new Client({ name: 'e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?toolsets=manage`), { requestInit: { headers: { 'X-API-Key': key } } }));
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects an account, writes an agent, creates a campaign, imports a CSV, starts it, and the engine contacts the leads', async () => {
    const account = await rest('/accounts', 'POST', { name: 'My LinkedIn', connectionRequestLimit: 50 });
    expect(account.status).toBe(200);
    expect(account.body.account.status).toBe('connected');
    const accountId = account.body.account.id as string;

    const agent = await callTool(mcp, 'create_agent', {
      name: 'Founders intro',
      accountId,
      connectionNote: 'Hi {{firstName|there}}, I enjoyed reading about {{companyName}}.',
      messages: [{ text: 'Thanks for connecting, {{firstName}}!', delayHours: 0 }],
    });
    expect(agent.isError).toBe(false);
    const agentId = agent.body.id as string;

    const campaign = await rest('/campaigns', 'POST', { name: 'Founders Q1', assignedTemplateId: agentId });
    expect(campaign.body.status).toBe('READY_TO_SEND');
    const campaignId = campaign.body.id as string;

    const csv = join(dir, 'leads.csv');
    writeFileSync(
      csv,
      'First Name,Last Name,Company,LinkedIn URL\nAda,Lovelace,Analytical Engines,https://www.linkedin.com/in/ada-sim-fast-accept\nGrace,Hopper,Navy,https://linkedin.com/in/grace-sim-fast-accept/\nAlan,Turing,Bletchley,https://www.linkedin.com/in/alan-sim-fast-accept\n',
    );
    const dry = await cli(['import', '--campaign', campaignId, '--file', csv, '--db', join(dir, 'outreach.db'), '--dry-run', '--json']);
    expect(JSON.parse(dry)).toMatchObject({ creditsNeeded: 3, summary: { created: 3 } });
    const real = await cli(['import', '--campaign', campaignId, '--file', csv, '--db', join(dir, 'outreach.db'), '--json']);
    expect(JSON.parse(real)).toMatchObject({ creditsCharged: 3, summary: { total: 3, created: 3 }, unmappedColumns: [] });

    const started = await rest(`/campaigns/${campaignId}/start`, 'POST', {});
    expect(started.body.action).toBe('started');

    const leadList = await rest(`/campaigns/${campaignId}/leads?limit=10`);
    expect(leadList.body.leads).toHaveLength(3);
    const preview = await callTool(mcp, 'preview_agent', { agentId, leadId: leadList.body.leads.find((l: any) => l.firstName === 'Ada').id });
    expect(preview.body.connectionNote).toBe('Hi Ada, I enjoyed reading about Analytical Engines.');

    const deadline = Date.now() + 60_000;
    let sent = 0;
    while (Date.now() < deadline) {
      sent = server.ctx.db
        .select()
        .from(activity)
        .where(and(eq(activity.campaignId, campaignId), eq(activity.type, 'connection_request_sent')))
        .all().length;
      if (sent === 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sent).toBe(3);
    const got = await rest(`/campaigns/${campaignId}`);
    expect(got.body.stats.connectionRequestsSent).toBe(3);
  }, 90_000);
});
