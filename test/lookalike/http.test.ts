import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { campaigns, creditLedger, lookalikeJobs, workspace } from '../../src/db/schema.js';
import { countRows } from '../../src/db/tx.js';
import { LookalikeWorker } from '../../src/workers/lookalike/worker.js';
import { callTool, RELAXED_LIMITS, startTestServer, type TestServer, type TestCtxOptions } from '../helpers.js';
import { failAt, jobsOf, ledgerSum, poolOf, SEED, setLookalikeBalances } from './helpers.js';

const RESULT_FIELDS = ['campaignId', 'extended', 'extensionBatchId', 'lookalikeReserved', 'message', 'requestedLeadTarget', 'resume', 'status'];

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(opts: TestCtxOptions = {}): Promise<TestServer> {
  const s = await startTestServer({ limits: RELAXED_LIMITS, ...opts });
  servers.push(s);
  return s;
}

const post = (s: TestServer, body: unknown, headers: Record<string, string> = {}) =>
  s.rest('/campaigns/lookalike', { method: 'POST', body: JSON.stringify(body), headers });

/** Polls until `probe` gives a value: what a client does while the worker fills the campaign. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a Lookalike campaign fills on the simulated network', () => {
  it('REST: create, poll get_campaign until it leaves PENDING, read the leads, start it', async () => {
    const s = await server({ lookalike: true });
    const created = await post(s, { seed: SEED, jobTitleKeywords: 'manager', countries: ['US', 'GB'], numberOfLeads: 25 });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(RESULT_FIELDS);
    expect(created.body).toMatchObject({
      status: 'PENDING',
      extended: false,
      extensionBatchId: null,
      resume: null,
      requestedLeadTarget: 25,
      lookalikeReserved: 25,
    });
    expect(created.body.campaignId).toMatch(/^cmp_[A-Za-z0-9]{16}$/);
    expect(created.body).not.toHaveProperty('creditsCharged');
    const id = created.body.campaignId as string;

    const campaign = await until('the campaign to fill', async () => {
      const r = await s.rest(`/campaigns/${id}`);
      expect(r.status).toBe(200);
      return r.body.status === 'PENDING' ? undefined : r.body;
    });
    expect(campaign).toMatchObject({ status: 'READY_TO_SEND', totalLeads: 25, assignedTemplateId: 'tpl_intro' });

    const list = await s.rest(`/campaigns/${id}/leads?limit=100`);
    expect(list.body.leads).toHaveLength(25);
    expect(new Set(list.body.leads.map((l: { networkUrl: string }) => l.networkUrl))).toEqual(new Set(poolOf(['manager'], ['US', 'GB']).slice(0, 25)));
    for (const lead of list.body.leads) {
      expect(lead.jobTitle.toLowerCase()).toContain('manager');
      expect(lead).toMatchObject({ stage: 'new', excluded: false, replied: false });
      expect(lead.fullName).toBeTruthy();
    }

    // The Lookalike allowance paid for it; normal credits did not move.
    const credits = await s.rest('/credits');
    expect(credits.body).toMatchObject({ credits: 100, topUpCredits: 5, lookalikeCredits: 475, lookalikeTopUpCredits: 20 });
    expect(ledgerSum(s.ctx, { bucket: 'credits' }) + ledgerSum(s.ctx, { bucket: 'top_up_credits' })).toBe(105);

    // Filled, it starts like any campaign.
    const started = await s.rest(`/campaigns/${id}/start`, { method: 'POST', body: '{}' });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ action: 'started', status: 'CAMPAIGN_IN_PROGRESS' });
  });

  it('MCP: create, watch leads appear with get_campaign and list_leads, extend and continue', async () => {
    const s = await server({ lookalike: true });
    const client = await s.mcp();
    const created = await callTool(client, 'create_lookalike_campaign', { seed: 'ada-lovelace', numberOfLeads: 10 });
    expect(created.isError).toBe(false);
    expect(Object.keys(created.body).sort()).toEqual(RESULT_FIELDS);
    const id = created.body.campaignId as string;

    await until('ten leads', async () => {
      const c = await callTool(client, 'get_campaign', { campaignId: id });
      return c.body.status === 'READY_TO_SEND' && c.body.totalLeads === 10 ? true : undefined;
    });
    const first = await callTool(client, 'list_leads', { campaignId: id, limit: 100 });
    expect(first.body.leads).toHaveLength(10);

    const extended = await callTool(client, 'create_lookalike_campaign', { seed: 'ada-lovelace', campaignId: id, numberOfLeads: 5 });
    expect(extended.body).toMatchObject({ campaignId: id, extended: true, resume: 'continue', status: 'READY_TO_SEND', lookalikeReserved: 5 });
    expect(extended.body.extensionBatchId).toMatch(/^lkb_/);
    await until('the extension', async () => {
      const c = await callTool(client, 'get_campaign', { campaignId: id });
      return c.body.totalLeads === 15 && !s.ctx.db.select().from(campaigns).where(eq(campaigns.id, id)).get()!.importing ? true : undefined;
    });
    const all = await callTool(client, 'list_leads', { campaignId: id, limit: 100 });
    // Newest first: the extension's five are the pool's next five, with no repeats.
    expect(all.body.leads.map((l: { networkUrl: string }) => l.networkUrl).sort()).toEqual(poolOf().slice(0, 15).sort());
  });
});

describe('Lookalike plan gates', () => {
  const gates: [string, Partial<typeof workspace.$inferInsert>, [number, number]][] = [
    ['an isolated white-label workspace', { whiteLabelIsolated: true }, [500, 20]],
    ['a blocked workspace', { blocked: true }, [500, 20]],
    ['an inactive plan without a Lookalike top-up', { planActive: false }, [500, 0]],
  ];

  it.each(gates)('%s gets 403 plan_required on REST and MCP, before validation, writing nothing', async (_what, change, [plan, topUp]) => {
    const s = await server();
    s.ctx.db.update(workspace).set(change).where(eq(workspace.id, 1)).run();
    setLookalikeBalances(s.ctx, plan, topUp);
    const before = [countRows(s.ctx.db, campaigns), countRows(s.ctx.db, lookalikeJobs), countRows(s.ctx.db, creditLedger)];
    for (const body of [{ seed: SEED, numberOfLeads: 1 }, { seed: 'acme.com' }]) {
      const r = await post(s, body, { 'Idempotency-Key': 'gate-1' });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('plan_required');
      const m = await callTool(await s.mcp(), 'create_lookalike_campaign', { ...body, idempotencyKey: 'gate-2' });
      expect(m.isError).toBe(true);
      expect(m.body.error.code).toBe('plan_required');
    }
    expect([countRows(s.ctx.db, campaigns), countRows(s.ctx.db, lookalikeJobs), countRows(s.ctx.db, creditLedger)]).toEqual(before);
    // Other routes are not gated by these flags.
    expect((await s.rest('/credits')).status).toBe(200);
  });

  it('an inactive plan with a Lookalike top-up may use it (and only it)', async () => {
    const s = await server();
    s.ctx.db.update(workspace).set({ planActive: false }).where(eq(workspace.id, 1)).run();
    const r = await post(s, { seed: SEED, numberOfLeads: 100 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ requestedLeadTarget: 100, lookalikeReserved: 20 });
    expect((await s.rest('/credits')).body).toMatchObject({ lookalikeCredits: 500, lookalikeTopUpCredits: 0 });
  });

  it('no allowance left is 403 insufficient_lookalike_credits with available and required', async () => {
    const s = await server();
    setLookalikeBalances(s.ctx, 0, 0);
    const r = await post(s, { seed: SEED, numberOfLeads: 30 });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'insufficient_lookalike_credits', details: { available: 0, required: 30 } });
    const m = await callTool(await s.mcp(), 'create_lookalike_campaign', { seed: SEED });
    expect(m.body.error).toMatchObject({ code: 'insufficient_lookalike_credits', details: { available: 0, required: 50 } });
  });
});

describe('extending', () => {
  it('two extends at once: one is queued, the other is 409 conflict', async () => {
    const s = await server();
    const client = await s.mcp();
    const [a, b] = await Promise.all([
      post(s, { seed: SEED, campaignId: 'cmp_q4', numberOfLeads: 3 }),
      callTool(client, 'create_lookalike_campaign', { seed: SEED, campaignId: 'cmp_q4', numberOfLeads: 4 }),
    ]);
    const outcomes = [a.status === 200 ? 'ok' : a.body.error.code, b.isError ? b.body.error.code : 'ok'].sort();
    expect(outcomes).toEqual(['conflict', 'ok']);
    expect(jobsOf(s.ctx, 'cmp_q4')).toHaveLength(1);
    // Only the queued one reserved anything.
    expect(ledgerSum(s.ctx, { reason: 'lookalike_reserve' })).toBe(-(a.status === 200 ? 3 : 4));

    // Still in progress: a third is refused, and so are pause and batch-delete.
    const third = await post(s, { seed: 'grace-hopper', campaignId: 'cmp_q4' });
    expect(third.status).toBe(409);
    expect(third.body.error.code).toBe('conflict');
    const del = await s.rest('/campaigns/cmp_q4/leads/batch-delete', { method: 'POST', body: JSON.stringify({ leadIds: ['lead_ada1'] }) });
    expect(del.status).toBe(409);

    await new LookalikeWorker(s.ctx).drain();
    const after = await post(s, { seed: SEED, campaignId: 'cmp_q4', numberOfLeads: 1 });
    expect(after.status).toBe(200);
    expect(after.body.resume).toBe('continue');
  });

  it('pause answers 409 while a running campaign is being extended, and works once the leads are in', async () => {
    const s = await server();
    const r = await post(s, { seed: SEED, campaignId: 'cmp_running', numberOfLeads: 2 });
    expect(r.body).toMatchObject({ status: 'CAMPAIGN_IN_PROGRESS', extended: true, resume: 'fresh' });
    const paused = await s.rest('/campaigns/cmp_running/pause', { method: 'POST', body: '{}' });
    expect(paused.status).toBe(409);
    expect(paused.body.error.code).toBe('conflict');
    await new LookalikeWorker(s.ctx).drain();
    expect((await s.rest('/campaigns/cmp_running/pause', { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await s.rest('/campaigns/cmp_running')).body.totalLeads).toBe(2);
  });

  it('an unknown campaign is 404, a completed one 409, an exhausted query 400 lookalike_exhausted', async () => {
    const s = await server();
    const client = await s.mcp();
    const missing = await post(s, { seed: SEED, campaignId: 'cmp_nope' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    expect(missing.body.error.message).toMatch(/omit it to create/);
    const done = await post(s, { seed: SEED, campaignId: 'cmp_done' });
    expect(done.status).toBe(409);

    const small = { seed: SEED, jobTitleKeywords: ['sales'], countries: ['FR'] };
    const created = await post(s, { ...small, numberOfLeads: 100 });
    await new LookalikeWorker(s.ctx).drain();
    const rest = await post(s, { ...small, campaignId: created.body.campaignId });
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe('lookalike_exhausted');
    const mcp = await callTool(client, 'create_lookalike_campaign', { ...small, campaignId: created.body.campaignId });
    expect(mcp.body.error.code).toBe('lookalike_exhausted');
  });
});

describe('idempotency and the ambiguous enqueue', () => {
  it('the same key replays the first answer (REST and MCP share it); another body with it is 409', async () => {
    const s = await server();
    const body = { seed: SEED, numberOfLeads: 2 };
    const first = await post(s, body, { 'Idempotency-Key': 'lk-1' });
    expect(first.status).toBe(200);
    const again = await post(s, body, { 'Idempotency-Key': 'lk-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const viaMcp = await callTool(await s.mcp(), 'create_lookalike_campaign', { ...body, idempotencyKey: 'lk-1' });
    expect(viaMcp.body).toEqual(first.body);
    expect(countRows(s.ctx.db, lookalikeJobs)).toBe(1);
    const other = await post(s, { ...body, numberOfLeads: 3 }, { 'Idempotency-Key': 'lk-1' });
    expect(other.status).toBe(409);
  });

  it('a launch that fails before its commit is 503 with nothing reserved, and the key is free for the retry', async () => {
    const s = await server();
    failAt(s.ctx, ['lookalike.enqueue']);
    const before = [countRows(s.ctx.db, campaigns), countRows(s.ctx.db, lookalikeJobs), countRows(s.ctx.db, creditLedger)];
    const failed = await post(s, { seed: SEED, numberOfLeads: 2 }, { 'Idempotency-Key': 'lk-503' });
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('upstream_unavailable');
    expect([countRows(s.ctx.db, campaigns), countRows(s.ctx.db, lookalikeJobs), countRows(s.ctx.db, creditLedger)]).toEqual(before);
    s.ctx.faults = undefined;
    const retried = await post(s, { seed: SEED, numberOfLeads: 2 }, { 'Idempotency-Key': 'lk-503' });
    expect(retried.status).toBe(200);
  });

  it('a commit reported as failed that did land is read back and answered 200', async () => {
    const s = await server();
    failAt(s.ctx, ['lookalike.enqueue.commit']);
    const r = await post(s, { seed: SEED, numberOfLeads: 2 });
    expect(r.status).toBe(200);
    expect(jobsOf(s.ctx, r.body.campaignId)).toHaveLength(1);
  });

  it('when whether it landed cannot be read back either: 202 with the same body shape, kept for the key', async () => {
    const s = await server();
    failAt(s.ctx, ['lookalike.enqueue.commit', 'lookalike.enqueue.confirm']);
    const r = await post(s, { seed: SEED, campaignId: 'cmp_q4', numberOfLeads: 2 }, { 'Idempotency-Key': 'lk-202' });
    expect(r.status).toBe(202);
    expect(Object.keys(r.body).sort()).toEqual(RESULT_FIELDS);
    expect(r.body).toMatchObject({ campaignId: 'cmp_q4', extended: true, requestedLeadTarget: 2, resume: 'fresh' });
    expect(r.body.message).toMatch(/could not confirm/);
    // Here it had in fact landed; a retry with the key replays the 202 instead of queueing twice.
    expect(jobsOf(s.ctx, 'cmp_q4')).toHaveLength(1);
    const retried = await post(s, { seed: SEED, campaignId: 'cmp_q4', numberOfLeads: 2 }, { 'Idempotency-Key': 'lk-202' });
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(r.body);

    // MCP has no status: the same body is a successful tool result.
    const m = await callTool(await s.mcp(), 'create_lookalike_campaign', { seed: SEED, numberOfLeads: 1 });
    expect(m.isError).toBe(false);
    expect(m.body.message).toMatch(/could not confirm/);
  });

  it('the OpenAPI document describes the 202', async () => {
    const s = await server();
    const doc = await fetch(`${s.url}/public/v1/openapi.json`).then((r) => r.json() as Promise<any>);
    const op = doc.paths['/campaigns/lookalike'].post;
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '202', '400', '403', '404', '409', '429', '503']));
    expect(op.responses['202'].description).toMatch(/could not confirm/);
  });
});
