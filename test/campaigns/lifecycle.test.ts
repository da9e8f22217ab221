import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { agents } from '../../src/db/schema.js';
import { callTool, RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

type Op = 'start' | 'pause';
interface Row {
  name: string;
  op: Op;
  status: string;
  agent?: string | null;
  leads?: number;
  importing?: boolean;
  ok?: { action: string; status: string };
  error?: { http: number; code: string; fields?: string[] };
}

/** The spec's start/pause table, row by row, plus the start preconditions. */
const ROWS: Row[] = [
  { name: 'READY_TO_SEND start', op: 'start', status: 'READY_TO_SEND', leads: 1, ok: { action: 'started', status: 'CAMPAIGN_IN_PROGRESS' } },
  { name: 'READY_TO_SEND start without leads', op: 'start', status: 'READY_TO_SEND', ok: { action: 'started', status: 'CAMPAIGN_IN_PROGRESS' } },
  { name: 'FAILED start with leads', op: 'start', status: 'FAILED', leads: 2, ok: { action: 'started', status: 'CAMPAIGN_IN_PROGRESS' } },
  { name: 'CAMPAIGN_PAUSED start', op: 'start', status: 'CAMPAIGN_PAUSED', leads: 1, ok: { action: 'resumed', status: 'CAMPAIGN_IN_PROGRESS' } },
  { name: 'CAMPAIGN_IN_PROGRESS start', op: 'start', status: 'CAMPAIGN_IN_PROGRESS', ok: { action: 'noop', status: 'CAMPAIGN_IN_PROGRESS' } },
  { name: 'COMPLETED start', op: 'start', status: 'COMPLETED', leads: 1, error: { http: 409, code: 'conflict' } },
  { name: 'DONE start', op: 'start', status: 'DONE', leads: 1, error: { http: 409, code: 'conflict' } },
  { name: 'FAILED start without leads', op: 'start', status: 'FAILED', error: { http: 409, code: 'conflict' } },
  { name: 'PENDING start', op: 'start', status: 'PENDING', error: { http: 409, code: 'conflict' } },
  { name: 'PREPARING start', op: 'start', status: 'PREPARING', error: { http: 409, code: 'conflict' } },
  { name: 'DRAFT start', op: 'start', status: 'DRAFT', error: { http: 409, code: 'conflict' } },
  { name: 'CAMPAIGN_IN_PROGRESS pause', op: 'pause', status: 'CAMPAIGN_IN_PROGRESS', leads: 1, ok: { action: 'paused', status: 'CAMPAIGN_PAUSED' } },
  { name: 'CAMPAIGN_PAUSED pause', op: 'pause', status: 'CAMPAIGN_PAUSED', ok: { action: 'noop', status: 'CAMPAIGN_PAUSED' } },
  { name: 'CAMPAIGN_IN_PROGRESS pause while importing', op: 'pause', status: 'CAMPAIGN_IN_PROGRESS', importing: true, error: { http: 409, code: 'conflict' } },
  ...['READY_TO_SEND', 'COMPLETED', 'DONE', 'FAILED', 'PENDING', 'DRAFT', 'PREPARING'].map(
    (status): Row => ({ name: `${status} pause`, op: 'pause', status, error: { http: 409, code: 'conflict' } }),
  ),
  // Start preconditions.
  { name: 'no agent', op: 'start', status: 'READY_TO_SEND', agent: null, error: { http: 400, code: 'validation_error', fields: ['assignedTemplateId'] } },
  { name: 'agent deleted', op: 'start', status: 'READY_TO_SEND', agent: 'tpl_gone', error: { http: 404, code: 'not_found' } },
  { name: 'agent account disconnected', op: 'start', status: 'READY_TO_SEND', agent: 'tpl_off', error: { http: 403, code: 'account_disconnected' } },
  {
    name: 'agent account down at the provider',
    op: 'start',
    status: 'READY_TO_SEND',
    agent: 'tpl_simdisc',
    error: { http: 403, code: 'account_disconnected' },
  },
  { name: 'resume fails at the provider', op: 'start', status: 'CAMPAIGN_PAUSED', agent: 'tpl_outage', error: { http: 503, code: 'upstream_unavailable' } },
  {
    name: 'noop even when the account is down',
    op: 'start',
    status: 'CAMPAIGN_IN_PROGRESS',
    agent: 'tpl_off',
    ok: { action: 'noop', status: 'CAMPAIGN_IN_PROGRESS' },
  },
];

const idOf = (i: number, transport: string) => `cmp_row${i}_${transport}`;

function workspace(): WorkspaceFileInput {
  const campaigns = ROWS.flatMap((row, i) =>
    ['rest', 'mcp'].map((t) => ({
      id: idOf(i, t),
      name: row.name,
      status: row.status as 'READY_TO_SEND',
      assignedTemplateId: row.agent === undefined ? 'tpl' : row.agent,
      importing: row.importing ?? false,
      leads: Array.from({ length: row.leads ?? 0 }, (_, j) => ({ networkUrl: `https://www.linkedin.com/in/row${i}-${t}-${j}` })),
    })),
  );
  return {
    apiKeys: [{ key: TEST_KEY }],
    accounts: [
      { id: 'acc_a', status: 'connected' },
      { id: 'acc_off', status: 'disconnected' },
      { id: 'acc_sim-outage', status: 'connected' },
      { id: 'acc_sim-disconnected', status: 'connected' },
    ],
    agents: [
      { id: 'tpl', accountId: 'acc_a' },
      { id: 'tpl_off', accountId: 'acc_off' },
      { id: 'tpl_outage', accountId: 'acc_sim-outage' },
      { id: 'tpl_simdisc', accountId: 'acc_sim-disconnected' },
      { id: 'tpl_gone', accountId: 'acc_a' },
    ],
    campaigns,
  };
}

describe('campaign start and pause: the transition table over REST and MCP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ workspace: workspace(), limits: RELAXED_LIMITS });
    server.ctx.db.delete(agents).where(eq(agents.id, 'tpl_gone')).run();
  });
  afterAll(() => server.close());

  describe.each(ROWS.map((row, i) => [row.name, row, i] as const))('%s', (_name, row, i) => {
    it.each(['rest', 'mcp'] as const)('%s', async (transport) => {
      const id = idOf(i, transport);
      let status: number;
      let body: any;
      if (transport === 'rest') {
        const r = await server.rest(`/campaigns/${id}/${row.op}`, { method: 'POST', body: i % 2 === 0 ? '{}' : undefined });
        status = r.status;
        body = r.body;
      } else {
        const r = await callTool(await server.mcp(), `${row.op}_campaign`, { campaignId: id });
        status = r.isError ? -1 : 200;
        body = r.body;
      }
      const after = (await server.rest(`/campaigns/${id}`)).body;
      if (row.ok) {
        expect(status).toBe(200);
        expect(body).toEqual({ campaignId: id, action: row.ok.action, status: row.ok.status, campaign: after });
        expect(after.status).toBe(row.ok.status);
      } else {
        const err = row.error!;
        if (transport === 'rest') expect(status).toBe(err.http);
        expect(body.error.code).toBe(err.code);
        expect(body.error.message.length).toBeGreaterThan(20);
        if (err.fields) expect(body.error.details.fields).toEqual(err.fields);
        expect(after.status).toBe(row.status);
      }
    });
  });

  it('checks the body before anything else: an extra field is validation_error even without an agent', async () => {
    const noAgent = idOf(
      ROWS.findIndex((r) => r.name === 'no agent'),
      'rest',
    );
    const r = await server.rest(`/campaigns/${noAgent}/start`, { method: 'POST', body: JSON.stringify({ force: true }) });
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields).toEqual(['force']);
    const m = await callTool(await server.mcp(), 'pause_campaign', { campaignId: 'cmp_missing', force: true });
    expect(m.body.error.details.fields).toEqual(['force']);
  });

  it('answers not_found for an unknown campaign and 400 for a malformed id', async () => {
    for (const op of ['start', 'pause']) {
      const r = await server.rest(`/campaigns/cmp_nope/${op}`, { method: 'POST' });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
      const bad = await server.rest(`/campaigns/bad%20id/${op}`, { method: 'POST' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.fields).toEqual(['campaignId']);
    }
  });
});
