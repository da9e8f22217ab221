import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { invitationTimeoutHours, toAgent } from '../../src/core/agents/agents.js';
import { agentRowById } from '../../src/core/agents/store.js';
import { resolveEngineSettings } from '../../src/core/outreach/settings.js';
import { createContext } from '../../src/server.js';
import { Engine } from '../../src/workers/outreach/index.js';
import { openDatabase } from '../../src/db/connection.js';
import type { Ctx } from '../../src/core/context.js';
import { SqliteSimInboxStore } from '../../src/core/network/sim-inbox-store.js';
import { createLimiter, resolveLimits } from '../../src/core/ratelimit/index.js';
import { silentLogger } from '../../src/log.js';
import { SimulatedNetwork } from '../../src/network/sim/index.js';
import { callTool, RELAXED_LIMITS, startTestServer, TEST_KEY } from '../helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;
const COUNT = 20;

/**
 * An assistant over MCP (the SDK's own client, on stdio, declaring elicitation) reviews 20
 * drafts: lists them with their leads, rewrites every one, then approves and rejects. Approving
 * asks the user first ("Send N messages from ACCOUNT?"); a declined question changes nothing.
 */
describe('reviewing 20 drafts through the MCP SDK client, with the confirmation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-drafts-mcp-'));
  const db = join(dir, 'o.db');
  const ids: string[] = [];
  let inviteStep = '';
  /** What the client was asked, in order, and how the test answers the next question. */
  const asked: string[] = [];
  let answer: ElicitResult['action'] = 'accept';
  let client: Client;

  beforeAll(async () => {
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(reviewWorkspace(COUNT)));
    execFileSync(process.execPath, [BIN, 'seed', '--file', file, '--db', db]);
    // The drafts the engine would have made at each lead's note step, through the same verb.
    const conn = openDatabase(db);
    const clock = new FakeClock();
    const network = new SimulatedNetwork({ clock, inbox: new SqliteSimInboxStore(conn, clock) });
    const ctx: Ctx = { db: conn, clock, log: silentLogger(), env: 'development', limits: createLimiter(clock, resolveLimits()), simClock: clock, network };
    // At the agent's invitation step, where the engine (running in the server too) finds them.
    inviteStep = toAgent(agentRowById(ctx, 'tpl_intro')!, invitationTimeoutHours(ctx)).steps[0]!.id;
    for (let i = 0; i < COUNT; i++) ids.push(draftFor(ctx, noteFor(`lead_r${i}`, { stepId: inviteStep })).id);
    conn.$client.close();

    client = new Client({ name: 'drafts-e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      return { action: answer, content: {} };
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--db', db],
        env: { ...(process.env as Record<string, string>), OUTREACH_API_KEY: TEST_KEY, OUTREACH_TOOLSETS: 'drafts', OUTREACH_ENV: '' },
        stderr: 'pipe',
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pending = async () => (await callTool(client, 'list_drafts', { campaignId: 'cmp_review', status: 'pending', limit: 100 })).body.drafts as any[];
  const newText = (i: number) => `Grace-level hello #${i}: your work at ${['Navy Labs', 'Bletchley'][i % 2]} caught my eye — café ☕ chat?`;

  it('lists the 20 pending drafts oldest first, each with its lead', async () => {
    const drafts = await pending();
    expect(drafts.map((d) => d.id)).toEqual(ids);
    expect(drafts[0].lead).toMatchObject({ fullName: 'Grace Hopper', jobTitle: 'VP Engineering', companyName: 'Navy Labs' });
    expect(drafts.every((d) => d.kind === 'invite' && d.status === 'pending' && !d.text.includes('{{'))).toBe(true);
  });

  it('saves 20 rewrites without asking: an edit sends nothing', async () => {
    const r = await callTool(client, 'update_drafts', { drafts: ids.map((id, i) => ({ id, text: newText(i) })) });
    expect(r.isError).toBeFalsy();
    expect(r.body.summary).toEqual({ total: COUNT, updated: COUNT, not_found: 0, validation_error: 0, conflict: 0 });
    expect(asked).toEqual([]);
    expect((await pending()).map((d) => d.text)).toEqual(ids.map((_, i) => newText(i)));
  });

  it('a rewrite breaking the rules fails its own item only', async () => {
    const r = await callTool(client, 'update_drafts', {
      drafts: [
        { id: ids[0], text: 'Hi {{firstName}}' },
        { id: ids[1], text: 'x'.repeat(301) },
        { id: 'drf_nope', text: 'fine' },
      ],
    });
    expect(r.body.results.map((x: any) => x.status)).toEqual(['validation_error', 'validation_error', 'not_found']);
    expect(asked).toEqual([]);
  });

  it('approving asks first; declined, it writes nothing and says the user declined', async () => {
    answer = 'decline';
    const r = await callTool(client, 'update_drafts', { drafts: ids.slice(0, 3).map((id) => ({ id, status: 'approved' })) });
    expect(asked).toEqual(['Send 3 invitations from Ada?']);
    expect(r.isError).toBe(true);
    expect(r.body.error.code).toBe('declined');
    expect(r.body.error.message).toContain('Send 3 invitations from Ada?');
    expect((await pending()).map((d) => d.id)).toEqual(ids);
  });

  it('a cancelled question is a decline too', async () => {
    answer = 'cancel';
    const r = await callTool(client, 'update_drafts', { drafts: [{ id: ids[0], status: 'approved' }] });
    expect(asked.at(-1)).toBe('Send 1 invitation from Ada?');
    expect(r.body.error.code).toBe('declined');
    expect(await pending()).toHaveLength(COUNT);
  });

  it('accepted, it approves 15 (one edited in the same call) and rejects 5; the question counts the approvals only', async () => {
    answer = 'accept';
    const before = asked.length;
    const items = ids.map((id, i) =>
      i < 15 ? { id, status: 'approved', ...(i === 7 ? { text: 'Changed at the last moment, sent as is.' } : {}) } : { id, status: 'rejected' },
    );
    const r = await callTool(client, 'update_drafts', { drafts: items });
    expect(asked.slice(before)).toEqual(['Send 15 invitations from Ada?']);
    expect(r.body.summary).toEqual({ total: COUNT, updated: COUNT, not_found: 0, validation_error: 0, conflict: 0 });
    expect(await pending()).toEqual([]);
    // The server's engine may have sent some already (approved, then sent).
    const listed = (await callTool(client, 'list_drafts', { campaignId: 'cmp_review', limit: 100 })).body.drafts as any[];
    const approved = listed.filter((d) => d.status === 'approved' || d.status === 'sent');
    // The words that will be sent are exactly those saved, byte for byte.
    expect(approved.map((d) => [d.id, d.text])).toEqual(
      ids.slice(0, 15).map((id, i) => [id, i === 7 ? 'Changed at the last moment, sent as is.' : newText(i)]),
    );
    const rejected = (await callTool(client, 'list_drafts', { campaignId: 'cmp_review', status: 'rejected', limit: 100 })).body.drafts as any[];
    expect(rejected.map((d) => d.id)).toEqual(ids.slice(15));
  });

  it('editing or approving a rejected draft is that item’s conflict, and asks nothing (it would send nothing)', async () => {
    const before = asked.length;
    const r = await callTool(client, 'update_drafts', {
      drafts: [
        { id: ids[19], status: 'approved' },
        { id: ids[18], text: 'again' },
      ],
    });
    expect(r.body.results.map((x: any) => x.status)).toEqual(['conflict', 'conflict']);
    expect(asked.length).toBe(before);
  });

  it('the engine sends exactly the approved words, and nothing to the leads whose draft was rejected', async () => {
    await client.close();
    // The server is gone (its engine released the lease); an engine on a fast simulated clock finishes the sends.
    const clock = new FakeClock(Date.now());
    const ctx = createContext({ dbPath: db, env: 'development', config: {} }, silentLogger(), clock, clock);
    const engine = new Engine(ctx, { settings: resolveEngineSettings({}), random: () => 0, holder: 'drafts-e2e' });
    const sent = () =>
      ctx.db.$client
        .prepare("SELECT lead_id AS leadId, text FROM engine_intents WHERE campaign_id = 'cmp_review' AND kind = 'connection_request' ORDER BY lead_id")
        .all() as { leadId: string; text: string }[];
    const ended = () =>
      ctx.db.$client
        .prepare("SELECT lead_id AS leadId FROM lead_positions WHERE campaign_id = 'cmp_review' AND end_reason = 'rejected' ORDER BY lead_id")
        .all() as { leadId: string }[];
    for (let i = 0; i < 2000 && (sent().length < 15 || ended().length < 5); i++) {
      await engine.tick();
      clock.advance(5 * 60_000);
    }
    await engine.stop();
    const expected = ids.slice(0, 15).map((_, i) => ({ leadId: `lead_r${i}`, text: i === 7 ? 'Changed at the last moment, sent as is.' : newText(i) }));
    expect(sent()).toEqual(expected.sort((a, b) => a.leadId.localeCompare(b.leadId)));
    const statuses = ctx.db.$client.prepare("SELECT status, count(*) AS n FROM drafts WHERE campaign_id = 'cmp_review' GROUP BY status ORDER BY status").all();
    expect(statuses).toEqual([
      { status: 'rejected', n: 5 },
      { status: 'sent', n: 15 },
    ]);
    // The leads whose draft was rejected: their sequence ended there, and nothing was sent to them.
    expect(ended().map((e) => e.leadId)).toEqual(
      ids
        .slice(15)
        .map((_, i) => `lead_r${15 + i}`)
        .sort(),
    );
    ctx.db.$client.close();
  });
});

describe('a client that cannot ask approves directly', () => {
  it('over stateless HTTP, even declaring elicitation, update_drafts approves without a question', async () => {
    const server = await startTestServer({ limits: RELAXED_LIMITS, workspace: reviewWorkspace(2) });
    try {
      const d = draftFor(server.ctx, noteFor('lead_r0'));
      const client = await server.mcp(undefined, 'toolsets=drafts');
      const r = await callTool(client, 'update_drafts', { drafts: [{ id: d.id, status: 'approved' }] });
      expect(r.body.results[0].status).toBe('updated');
      const rest = await server.rest('/drafts?status=approved');
      expect(rest.body.drafts.map((x: any) => x.id)).toEqual([d.id]);
    } finally {
      await server.close();
    }
  });
});
