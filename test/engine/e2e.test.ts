import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { activity, leads, webhookEvents } from '../../src/db/schema.js';
import { silentLogger } from '../../src/log.js';
import { createContext, startServer, type RunningServer } from '../../src/server.js';
import type { Settings } from '../../src/config.js';
import { callTool, fixture, TEST_KEY } from '../helpers.js';
import { expectSafe } from '../safety/audit.js';
import { resolveEngineSettings } from '../../src/workers/outreach/index.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;

async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The real server on the wall clock, with the simulated network at one day per second. */
describe('end to end at --sim-speed 86400', () => {
  let server: RunningServer;
  let settings: Settings;
  let client: Client;
  const rest = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}/public/v1${path}`, { ...init, headers: { 'X-API-Key': TEST_KEY, 'content-type': 'application/json' } });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    const ws = fixture();
    ws.campaigns!.find((c) => c.id === 'cmp_q4')!.leads!.push(
      { id: 'lead_pat', networkUrl: url('pat-sim-fast-accept-sim-replies-positive'), firstName: 'Pat' },
      { id: 'lead_quinn', networkUrl: url('quinn-sim-replies-question'), firstName: 'Quinn' },
      { id: 'lead_nina', networkUrl: url('nina-sim-replies-negative'), firstName: 'Nina' },
      { id: 'lead_sam', networkUrl: url('sam-sim-send-fail'), firstName: 'Sam' },
      { id: 'lead_vera', networkUrl: url('vera-sim-never-accepts'), firstName: 'Vera' },
    );
    settings = {
      host: '127.0.0.1',
      port: 0,
      dbPath: ':memory:',
      env: 'development',
      simSpeed: 86_400,
      config: { engine: { invitationTimeoutDays: 2, replyWaitDays: 1 } },
    };
    const ctx = createContext(settings, silentLogger());
    loadWorkspace(ctx, WorkspaceFile.parse(ws), { reset: false });
    server = await startServer(settings, ctx.log, ctx);
    client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('a started campaign shows activity within seconds, moves every lead and completes with exact stats', async () => {
    const db = server.ctx.db;
    // Only what the engine records: the fixture seeded one activity event of its own.
    const events = (type: string) =>
      db
        .select()
        .from(activity)
        .where(and(eq(activity.campaignId, 'cmp_q4'), eq(activity.type, type)))
        .all()
        .filter((e) => e.id !== 'evt_1');
    const started = await callTool(client, 'start_campaign', { campaignId: 'cmp_q4' });
    expect(started.body).toMatchObject({ action: 'started', status: 'CAMPAIGN_IN_PROGRESS' });

    await waitFor('connection_request_sent', () => events('connection_request_sent').length > 0, 10_000);

    const done = await waitFor(
      'completion',
      async () => {
        const c = await rest('/campaigns/cmp_q4');
        return c.body.status === 'COMPLETED' && c.body;
      },
      40_000,
    );

    const stage = (id: string) => db.select().from(leads).where(eq(leads.id, id)).get()!.stage;
    expect(stage('lead_pat')).toBe('replied');
    expect(stage('lead_quinn')).toBe('replied');
    expect(stage('lead_nina')).toBe('handed_off');
    expect(stage('lead_sam')).toBe('failed');
    expect(stage('lead_vera')).toBe('connection_sent');
    expect(events('cta_sent').map((e) => e.leadId)).toEqual(['lead_pat']);
    expect(events('agent_replied').map((e) => e.leadId)).toEqual(['lead_quinn']);
    expect(events('agent_handed_off').map((e) => e.leadId)).toEqual(['lead_nina']);

    // The fixture seeded 10 sent, 3 accepted, 3 messages, 1 reply; the engine adds exactly what it did.
    expect(done.stats.connectionRequestsSent).toBe(10 + events('connection_request_sent').length);
    expect(done.stats.connectionRequestsAccepted).toBe(3 + events('connection_accepted').length);
    expect(done.stats.messagesSent).toBe(3 + events('message_sent').length);
    expect(done.stats.repliesReceived).toBe(1 + events('reply_received').length);
    expect(events('reply_received')).toHaveLength(3);
    expect(db.select().from(webhookEvents).where(eq(webhookEvents.type, 'lead.replied')).all()).toHaveLength(3);

    const listed = await callTool(client, 'get_campaign', { campaignId: 'cmp_q4' });
    expect(listed.body).toEqual(done);
    // Every cap, working hour and spacing rule held throughout the run.
    expectSafe(server.ctx, resolveEngineSettings(settings.config.engine));
  }, 60_000);
});
