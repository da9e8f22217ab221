import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addLead } from '../../src/core/leads/add.js';
import { getCampaign } from '../../src/core/campaigns/campaign.js';
import { ApiError } from '../../src/core/errors.js';
import { finishJob } from '../../src/core/lookalike/jobs.js';
import { agents, campaigns, exclusions, leads, workspace } from '../../src/db/schema.js';
import { countRows } from '../../src/db/tx.js';
import { LookalikeWorker } from '../../src/workers/lookalike/worker.js';
import { networkError } from '../../src/core/network/provider.js';
import { testCtx } from '../helpers.js';
import {
  balances,
  ControlledNetwork,
  failAt,
  jobById,
  jobsOf,
  launch,
  launchOutcome,
  leadUrls,
  ledgerRows,
  ledgerSum,
  poolOf,
  SEED,
  setLookalikeBalances,
} from './helpers.js';
import { setCampaignState } from '../helpers.js';

const LEASE_MS = 150_000;

function setup() {
  const ctx = testCtx();
  const net = new ControlledNetwork(ctx.network);
  ctx.network = net.provider();
  return { ctx, net, worker: (holder = 'w1') => new LookalikeWorker(ctx, { holder, leaseMs: LEASE_MS }) };
}

/** Every balance equals what its ledger rows add up to, and no ledger row went negative. */
function expectLedgerInvariant(ctx: ReturnType<typeof testCtx>) {
  const b = balances(ctx);
  expect(ledgerSum(ctx, { bucket: 'credits' })).toBe(b.credits);
  expect(ledgerSum(ctx, { bucket: 'top_up_credits' })).toBe(b.topUpCredits);
  expect(ledgerSum(ctx, { bucket: 'lookalike_credits' })).toBe(b.lookalikeCredits);
  expect(ledgerSum(ctx, { bucket: 'lookalike_top_up_credits' })).toBe(b.lookalikeTopUpCredits);
}

describe('Lookalike allowance: reserve and refund', () => {
  it('reserves at launch (plan allowance first, clamped), refunds the unused part top-up first, once', async () => {
    const { ctx, worker } = setup();
    setLookalikeBalances(ctx, 30, 10);
    const pool = poolOf(['sales'], ['FR']);
    expect(pool.length).toBeGreaterThan(0);
    expect(pool.length).toBeLessThan(30);

    const r = launch(ctx, { jobTitleKeywords: ['sales'], countries: ['FR'], numberOfLeads: 100 });
    // 100 asked, 40 available: 30 from the plan allowance, then 10 from the top-up.
    expect(r).toMatchObject({ requestedLeadTarget: 100, lookalikeReserved: 40 });
    const job = jobsOf(ctx, r.campaignId)[0]!;
    expect(job).toMatchObject({ reserved: 40, reservedCredits: 30, reservedTopUp: 10 });
    expect(balances(ctx)).toMatchObject({ lookalikeCredits: 0, lookalikeTopUpCredits: 0 });

    await worker().drain();
    const done = jobById(ctx, job.id)!;
    expect(done).toMatchObject({ state: 'done', outcome: 'exhausted', inserted: pool.length, refunded: 40 - pool.length });
    // The unused part goes back top-up first (the reverse of the draw order).
    const refund = 40 - pool.length;
    const toTopUp = Math.min(refund, 10);
    expect(toTopUp).toBe(10);
    expect(refund).toBeGreaterThan(toTopUp);
    expect(balances(ctx)).toMatchObject({ lookalikeCredits: refund - toTopUp, lookalikeTopUpCredits: toTopUp });
    expect(ledgerSum(ctx, { ref: job.id, reason: 'lookalike_reserve' })).toBe(-40);
    expect(ledgerSum(ctx, { ref: job.id, reason: 'lookalike_refund' })).toBe(refund);
    expect(ledgerSum(ctx, { ref: job.id })).toBe(-pool.length);
    expect(ledgerSum(ctx, { ref: job.id, bucket: 'lookalike_top_up_credits', reason: 'lookalike_refund' })).toBe(toTopUp);
    expectLedgerInvariant(ctx);

    // Normal credits are never touched: no charge rows, balances as seeded.
    expect(balances(ctx)).toMatchObject({ credits: 100, topUpCredits: 5 });
    expect(ledgerSum(ctx, { reason: 'lead_created' })).toBe(0);
    expect(leadUrls(ctx, r.campaignId)).toEqual(pool);

    // A second finish changes nothing: the refund happened exactly once.
    expect(finishJob(ctx, job.id, 'w1', 'filled')).toBeNull();
    expect(
      ledgerRows(ctx, job.id)
        .filter((l) => l.reason === 'lookalike_refund')
        .reduce((n, l) => n + l.delta, 0),
    ).toBe(refund);
  });

  it('a filled job refunds nothing; the allowance spent equals the leads inserted', async () => {
    const { ctx, worker } = setup();
    const before = balances(ctx);
    const r = launch(ctx, { numberOfLeads: 30 });
    expect(r.lookalikeReserved).toBe(30);
    await worker().drain();
    const job = jobsOf(ctx, r.campaignId)[0]!;
    expect(job).toMatchObject({ outcome: 'filled', inserted: 30, refunded: 0 });
    expect(ledgerRows(ctx, job.id).map((l) => [l.bucket, l.delta, l.reason])).toEqual([['lookalike_credits', -30, 'lookalike_reserve']]);
    expect(balances(ctx)).toEqual({ ...before, lookalikeCredits: before.lookalikeCredits - 30 });
    expect(leadUrls(ctx, r.campaignId)).toEqual(poolOf().slice(0, 30));
    expectLedgerInvariant(ctx);
  });

  it('draws the top-up once the plan allowance is spent', () => {
    const { ctx } = setup();
    setLookalikeBalances(ctx, 3, 20);
    const r = launch(ctx, { numberOfLeads: 10 });
    expect(jobsOf(ctx, r.campaignId)[0]).toMatchObject({ reserved: 10, reservedCredits: 3, reservedTopUp: 7 });
    expect(balances(ctx)).toMatchObject({ lookalikeCredits: 0, lookalikeTopUpCredits: 13 });
  });

  it('with no allowance at all: 403 insufficient_lookalike_credits with available and required, nothing written', () => {
    const { ctx } = setup();
    setLookalikeBalances(ctx, 0, 0);
    const campaignsBefore = countRows(ctx.db, campaigns);
    let err: unknown;
    try {
      launch(ctx, { numberOfLeads: 40 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('insufficient_lookalike_credits');
    expect((err as ApiError).details).toEqual({ available: 0, required: 40 });
    expect(countRows(ctx.db, campaigns)).toBe(campaignsBefore);
    expect(ledgerSum(ctx, { reason: 'lookalike_reserve' })).toBe(0);
  });

  it('an inactive plan with a top-up draws the top-up only', () => {
    const { ctx } = setup();
    ctx.db.update(workspace).set({ planActive: false }).run();
    setLookalikeBalances(ctx, 500, 20);
    const r = launch(ctx, { numberOfLeads: 50 });
    expect(r.lookalikeReserved).toBe(20);
    expect(jobsOf(ctx, r.campaignId)[0]).toMatchObject({ reservedCredits: 0, reservedTopUp: 20 });
    expect(balances(ctx)).toMatchObject({ lookalikeCredits: 500, lookalikeTopUpCredits: 0 });
  });
});

describe('Lookalike extend: continue, fresh, exhausted', () => {
  it('the same seed, titles and countries continue from the stored cursor; others start fresh', async () => {
    const { ctx, net, worker } = setup();
    const created = launch(ctx, { jobTitleKeywords: ['CTO'], countries: ['de'], numberOfLeads: 20 });
    expect(created).toMatchObject({ extended: false, extensionBatchId: null, resume: null, status: 'PENDING' });
    await worker().drain();
    const first = jobsOf(ctx, created.campaignId)[0]!;

    // Order, case and repeats of the filters do not make another query.
    const cont = launch(ctx, { campaignId: created.campaignId, jobTitleKeywords: [' cto', 'CTO'], countries: ['DE'], numberOfLeads: 15 });
    expect(cont).toMatchObject({ extended: true, resume: 'continue', status: 'READY_TO_SEND', lookalikeReserved: 15, requestedLeadTarget: 15 });
    const contJob = jobById(ctx, cont.extensionBatchId!)!;
    expect(contJob.campaignId).toBe(created.campaignId);
    expect(contJob.cursor).toBe(first.cursor);
    await worker().drain();
    // The provider was asked to continue from the cursor the first job stopped at, and the
    // campaign now holds the pool's first 35 in order: nothing skipped, nothing repeated.
    expect(net.calls.at(-1)?.cursor).not.toBeNull();
    const pool = poolOf(['cto'], ['DE']);
    expect(leadUrls(ctx, created.campaignId)).toEqual(pool.slice(0, 35));

    const fresh = launch(ctx, { campaignId: created.campaignId, jobTitleKeywords: ['cto'], countries: ['FR'], numberOfLeads: 5 });
    expect(fresh).toMatchObject({ extended: true, resume: 'fresh' });
    expect(fresh.extensionBatchId).not.toBe(cont.extensionBatchId);
    expect(jobById(ctx, fresh.extensionBatchId!)!.cursor).toBeNull();
    await worker().drain();
    expect(leadUrls(ctx, created.campaignId).slice(35)).toEqual(poolOf(['cto'], ['FR']).slice(0, 5));

    // A different seed is fresh too, and then the first query still continues where it was.
    const other = launch(ctx, { campaignId: created.campaignId, seed: 'grace-hopper', jobTitleKeywords: ['cto'], countries: ['DE'], numberOfLeads: 1 });
    expect(other.resume).toBe('fresh');
    await worker().drain();
    const again = launch(ctx, { campaignId: created.campaignId, jobTitleKeywords: ['cto'], countries: ['DE'], numberOfLeads: 1 });
    expect(again.resume).toBe('continue');
    expect(jobById(ctx, again.extensionBatchId!)!.cursor).toBe(jobById(ctx, cont.extensionBatchId!)!.cursor);
    await worker().drain();

    // The seed's bare slug is the same seed as its profile URL: it continues too.
    const bySlug = launch(ctx, { campaignId: created.campaignId, seed: 'ada-lovelace', jobTitleKeywords: ['cto'], countries: ['DE'], numberOfLeads: 1 });
    expect(bySlug.resume).toBe('continue');
    expect(jobById(ctx, bySlug.extensionBatchId!)!.cursor).toBe(jobById(ctx, again.extensionBatchId!)!.cursor);
    await worker().drain();
    // A job stored before the seed entered the key by its slug (the key held the full URL) is still continued.
    ctx.db.$client.prepare('UPDATE lookalike_jobs SET query_key = ? WHERE campaign_id = ?').run(JSON.stringify([SEED, ['cto'], ['DE']]), created.campaignId);
    expect(launch(ctx, { campaignId: created.campaignId, jobTitleKeywords: ['cto'], countries: ['DE'], numberOfLeads: 1 }).resume).toBe('continue');
  });

  it('an exhausted seed and filters give lookalike_exhausted (400), reserving nothing', async () => {
    const { ctx, worker } = setup();
    const pool = poolOf(['sales'], ['FR']);
    const created = launch(ctx, { jobTitleKeywords: ['sales'], countries: ['FR'], numberOfLeads: 100 });
    await worker().drain();
    expect(jobsOf(ctx, created.campaignId)[0]).toMatchObject({ outcome: 'exhausted', exhausted: true, inserted: pool.length });
    expect(getCampaign(ctx, created.campaignId)).toMatchObject({ status: 'READY_TO_SEND', totalLeads: pool.length });

    const before = balances(ctx);
    let err: unknown;
    try {
      launch(ctx, { campaignId: created.campaignId, jobTitleKeywords: ['SALES'], countries: ['fr'] });
    } catch (e) {
      err = e;
    }
    expect((err as ApiError).code).toBe('lookalike_exhausted');
    expect(balances(ctx)).toEqual(before);
    expect(jobsOf(ctx, created.campaignId)).toHaveLength(1);
    expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, created.campaignId)).get()!.importing).toBe(false);

    // Other filters on the same campaign are not exhausted.
    expect(launch(ctx, { campaignId: created.campaignId, jobTitleKeywords: ['sales'], countries: ['DE'], numberOfLeads: 1 }).resume).toBe('fresh');
  });

  it('a job that fills exactly at the end of its pool is exhausted for the next extend', async () => {
    const { ctx, worker } = setup();
    const pool = poolOf(['sales'], ['FR']);
    const created = launch(ctx, { jobTitleKeywords: ['sales'], countries: ['FR'], numberOfLeads: pool.length });
    await worker().drain();
    expect(jobsOf(ctx, created.campaignId)[0]).toMatchObject({ inserted: pool.length, exhausted: true, refunded: 0 });
    expect(() => launch(ctx, { campaignId: created.campaignId, jobTitleKeywords: ['sales'], countries: ['FR'] })).toThrow(/No more Lookalike results/);
  });

  it('refuses to extend a campaign that is importing (409), completed (409) or unknown (404)', () => {
    const { ctx } = setup();
    const created = launch(ctx, { numberOfLeads: 5 });
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as ApiError).code;
      }
      return 'ok';
    };
    expect(codeOf(() => launch(ctx, { campaignId: created.campaignId }))).toBe('conflict');
    expect(codeOf(() => launch(ctx, { campaignId: 'cmp_import' }))).toBe('conflict');
    expect(codeOf(() => launch(ctx, { campaignId: 'cmp_done' }))).toBe('conflict');
    expect(codeOf(() => launch(ctx, { campaignId: 'cmp_nope' }))).toBe('not_found');
    expect(jobsOf(ctx, created.campaignId)).toHaveLength(1);
  });
});

describe('Lookalike worker: what it inserts', () => {
  it('skips profiles already in the campaign, in other campaigns (protection on) and on the exclusion list', async () => {
    const { ctx, worker } = setup();
    const pool = poolOf();
    addLead(ctx, 'cmp_q4', { networkUrl: pool[0]! });
    addLead(ctx, 'cmp_running', { networkUrl: pool[1]! });
    ctx.db.insert(exclusions).values({ networkUrl: pool[2]!, createdAt: 0 }).run();

    const protectedRun = launch(ctx, { campaignId: 'cmp_q4', numberOfLeads: 10 });
    expect(protectedRun.resume).toBe('fresh');
    await worker().drain();
    const added = leadUrls(ctx, 'cmp_q4').filter((u) => u.startsWith('https://www.linkedin.com/in/') && u !== 'https://www.linkedin.com/in/ada-lovelace');
    // pool[0] was already there; pool[1] is in another campaign; pool[2] is excluded.
    expect(added).toEqual([pool[0], ...pool.slice(3, 13)]);
    expect(jobById(ctx, protectedRun.extensionBatchId!)).toMatchObject({ inserted: 10, refunded: 0 });

    // Without protection, a profile of another campaign is added; the excluded one never is.
    const open = launch(ctx, { numberOfLeads: 3, protectAcrossCampaigns: false });
    await worker().drain();
    expect(leadUrls(ctx, open.campaignId)).toEqual([pool[0], pool[1], pool[3]]);
    const none = ctx.db.select().from(leads).where(eq(leads.campaignId, open.campaignId)).all();
    expect(none.every((l) => l.source === 'lookalike' && !l.excluded && l.stage === 'new')).toBe(true);
  });

  it('stores the profile fields a lead shows, and the leads are ready for the engine', async () => {
    const { ctx, worker } = setup();
    const r = launch(ctx, { numberOfLeads: 1 });
    await worker().drain();
    const lead = ctx.db.select().from(leads).where(eq(leads.campaignId, r.campaignId)).get()!;
    expect(lead).toMatchObject({ source: 'lookalike', nextActionAt: 0, networkUrl: poolOf()[0] });
    for (const field of ['fullName', 'firstName', 'lastName', 'jobTitle', 'companyName', 'location', 'headline', 'providerId'] as const) {
      expect(lead[field]).toBeTruthy();
    }
  });

  it('ends PENDING as READY_TO_SEND with the first connected agent, or FAILED when nothing was found', async () => {
    const { ctx, worker } = setup();
    const found = launch(ctx, { numberOfLeads: 2 });
    const none = launch(ctx, { jobTitleKeywords: ['astronaut'], numberOfLeads: 7 });
    expect(getCampaign(ctx, found.campaignId)).toMatchObject({ status: 'PENDING', totalLeads: 0, assignedTemplateId: 'tpl_intro' });
    await worker().drain();
    expect(getCampaign(ctx, found.campaignId)).toMatchObject({ status: 'READY_TO_SEND', totalLeads: 2 });
    expect(getCampaign(ctx, none.campaignId)).toMatchObject({ status: 'FAILED', totalLeads: 0 });
    expect(jobsOf(ctx, none.campaignId)[0]).toMatchObject({ outcome: 'exhausted', refunded: 7 });
    for (const id of [found.campaignId, none.campaignId]) {
      expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, id)).get()!.importing).toBe(false);
    }

    // A FAILED campaign extended with leads is ready again; a running one keeps running.
    launch(ctx, { campaignId: 'cmp_failed', numberOfLeads: 1 });
    launch(ctx, { campaignId: 'cmp_running', numberOfLeads: 1 });
    await worker().drain();
    expect(getCampaign(ctx, 'cmp_failed').status).toBe('READY_TO_SEND');
    expect(getCampaign(ctx, 'cmp_running')).toMatchObject({ status: 'CAMPAIGN_IN_PROGRESS', totalLeads: 1 });
  });

  it('a workspace without agents gets a campaign without one', () => {
    const { ctx } = setup();
    ctx.db.delete(agents).run();
    expect(getCampaign(ctx, launch(ctx, { numberOfLeads: 1 }).campaignId).assignedTemplateId).toBeNull();
  });
});

describe('Lookalike worker: failures and restarts', () => {
  it('survives a crash between pages: the next worker resumes from the last page, without duplicates, refunding once', async () => {
    const { ctx, net } = setup();
    const pool = poolOf(['sales'], ['FR']);
    const r = launch(ctx, { jobTitleKeywords: ['sales'], countries: ['FR'], numberOfLeads: 100 });
    const jobId = jobsOf(ctx, r.campaignId)[0]!.id;
    // Pages of 10: the first commits, the second hangs (the process "dies" there).
    const hung = net.hold(2);
    const dead = new LookalikeWorker(ctx, { holder: 'dead', leaseMs: LEASE_MS, pageSize: 10 });
    void dead.drain();
    await hung.reached;
    expect(jobById(ctx, jobId)).toMatchObject({ inserted: 10, leasedBy: 'dead', state: 'pending' });
    expect(leadUrls(ctx, r.campaignId)).toEqual(pool.slice(0, 10));

    // A new worker cannot take the job while the dead one's lease holds.
    const next = new LookalikeWorker(ctx, { holder: 'next', leaseMs: LEASE_MS, pageSize: 10 });
    await next.drain();
    expect(jobById(ctx, jobId)!.leasedBy).toBe('dead');
    ctx.clock.advance(LEASE_MS);
    const nextHeld = net.hold(3);
    const resumed = next.drain();
    await nextHeld.reached;
    expect(net.calls[2]!.cursor).toBe(net.calls[1]!.cursor);

    // The dead worker's page comes back late, while the job is the new worker's: it is dropped.
    hung.release();
    await dead.idle();
    expect(jobById(ctx, jobId)).toMatchObject({ inserted: 10, leasedBy: 'next' });
    expect(leadUrls(ctx, r.campaignId)).toEqual(pool.slice(0, 10));

    nextHeld.release();
    await resumed;
    const done = jobById(ctx, jobId)!;
    expect(done).toMatchObject({ state: 'done', outcome: 'exhausted', inserted: pool.length, refunded: 100 - pool.length });
    expect(leadUrls(ctx, r.campaignId)).toEqual(pool);
    expect(
      ledgerRows(ctx, jobId)
        .filter((l) => l.reason === 'lookalike_refund')
        .reduce((n, l) => n + l.delta, 0),
    ).toBe(100 - pool.length);
    expect(getCampaign(ctx, r.campaignId)).toMatchObject({ status: 'READY_TO_SEND', totalLeads: pool.length });
    expectLedgerInvariant(ctx);
  });

  it('a crash after the last page but before the end: the next worker only finishes it, refunding once', async () => {
    const { ctx, worker } = setup();
    const pool = poolOf(['sales'], ['FR']);
    const r = launch(ctx, { jobTitleKeywords: ['sales'], countries: ['FR'], numberOfLeads: 100 });
    const jobId = jobsOf(ctx, r.campaignId)[0]!.id;
    failAt(ctx, ['lookalike.finish']);
    await worker('dead').drain();
    // All pages landed; the end (refund, status) rolled back with the "crash".
    expect(jobById(ctx, jobId)).toMatchObject({ state: 'pending', inserted: pool.length, exhausted: true, refunded: null, leasedBy: 'dead' });
    expect(ledgerSum(ctx, { ref: jobId, reason: 'lookalike_refund' })).toBe(0);
    expect(getCampaign(ctx, r.campaignId).status).toBe('PENDING');

    ctx.faults = undefined;
    ctx.clock.advance(LEASE_MS);
    await worker('next').drain();
    expect(jobById(ctx, jobId)).toMatchObject({ state: 'done', refunded: 100 - pool.length });
    expect(ledgerSum(ctx, { ref: jobId, reason: 'lookalike_refund' })).toBe(100 - pool.length);
    expect(leadUrls(ctx, r.campaignId)).toEqual(pool);
    expect(getCampaign(ctx, r.campaignId).status).toBe('READY_TO_SEND');
  });

  it('a page whose commit fails is fetched again, never half-applied', async () => {
    const { ctx, worker } = setup();
    const r = launch(ctx, { numberOfLeads: 25 });
    const jobId = jobsOf(ctx, r.campaignId)[0]!.id;
    failAt(ctx, ['lookalike.page'], 1);
    await worker().drain();
    expect(jobById(ctx, jobId)).toMatchObject({ state: 'pending', inserted: 0, attempts: 1 });
    expect(leadUrls(ctx, r.campaignId)).toEqual([]);
    ctx.clock.advance(30_000);
    await worker().drain();
    expect(leadUrls(ctx, r.campaignId)).toEqual(poolOf().slice(0, 25));
  });

  it('retries transient provider failures with backoff, then gives up, refunding everything', async () => {
    const { ctx, net } = setup();
    const w = new LookalikeWorker(ctx, { holder: 'w', retryBaseMs: 1_000, maxAttempts: 3 });
    const r = launch(ctx, { numberOfLeads: 5 });
    const jobId = jobsOf(ctx, r.campaignId)[0]!.id;
    const outage = networkError('upstream_unavailable');
    net.fail(1, outage);
    net.fail(2, outage);
    await w.drain();
    expect(jobById(ctx, jobId)).toMatchObject({ state: 'pending', attempts: 1, errorCode: 'upstream_unavailable', nextAttemptAt: ctx.clock.now() + 1_000 });
    await w.drain();
    expect(net.calls).toHaveLength(1);
    ctx.clock.advance(1_000);
    await w.drain();
    // The second failure doubles the wait; the third call succeeds and fills the job.
    expect(jobById(ctx, jobId)).toMatchObject({ attempts: 2, nextAttemptAt: ctx.clock.now() + 2_000 });
    ctx.clock.advance(2_000);
    await w.drain();
    expect(jobById(ctx, jobId)).toMatchObject({ state: 'done', outcome: 'filled', attempts: 0, inserted: 5 });

    const again = launch(ctx, { numberOfLeads: 4, jobTitleKeywords: ['engineer'] });
    const againId = jobsOf(ctx, again.campaignId)[0]!.id;
    for (const n of [4, 5, 6]) net.fail(n, outage);
    for (let i = 0; i < 3; i++) {
      await w.drain();
      ctx.clock.advance(10_000);
    }
    expect(jobById(ctx, againId)).toMatchObject({ state: 'done', outcome: 'failed', errorCode: 'upstream_unavailable', inserted: 0, refunded: 4 });
    expect(ledgerSum(ctx, { ref: againId })).toBe(0);
    expect(getCampaign(ctx, again.campaignId).status).toBe('FAILED');
  });

  it('a seed the network refuses ends the job at once as failed, refunding everything', async () => {
    const { ctx, worker } = setup();
    const r = launch(ctx, { seed: 'someone-sim-not-found', numberOfLeads: 9 });
    await worker().drain();
    const job = jobsOf(ctx, r.campaignId)[0]!;
    expect(job).toMatchObject({ state: 'done', outcome: 'failed', errorCode: 'not_found', refunded: 9, attempts: 0 });
    expect(ledgerSum(ctx, { ref: job.id })).toBe(0);
    expect(getCampaign(ctx, r.campaignId).status).toBe('FAILED');
  });

  it('a clean stop releases the job, so the next worker resumes it at once', async () => {
    const { ctx, net } = setup();
    const r = launch(ctx, { numberOfLeads: 30 });
    const jobId = jobsOf(ctx, r.campaignId)[0]!.id;
    const held = net.hold(2);
    const first = new LookalikeWorker(ctx, { holder: 'first', pageSize: 10 });
    first.tick();
    await held.reached;
    const stopping = first.stop();
    held.release();
    await stopping;
    expect(jobById(ctx, jobId)).toMatchObject({ state: 'pending', inserted: 20, leasedBy: null });
    await new LookalikeWorker(ctx, { holder: 'second', pageSize: 10 }).drain();
    expect(jobById(ctx, jobId)).toMatchObject({ state: 'done', inserted: 30 });
    expect(leadUrls(ctx, r.campaignId)).toEqual(poolOf().slice(0, 30));
  });

  it('only one job per campaign can be pending, whatever writes it', () => {
    const { ctx } = setup();
    const r = launch(ctx, { numberOfLeads: 1 });
    setCampaignState(ctx, r.campaignId, { importing: false, importingHolder: null });
    expect(() => launchOutcome(ctx, { campaignId: r.campaignId })).toThrow();
    expect(jobsOf(ctx, r.campaignId)).toHaveLength(1);
  });
});

describe('the seed', () => {
  it('is handed to the provider as given: a normalised URL, or the identifier', async () => {
    const { ctx, net, worker } = setup();
    launch(ctx, { seed: SEED, numberOfLeads: 1 });
    launch(ctx, { seed: 'Ada-Lovelace', numberOfLeads: 1, protectAcrossCampaigns: false });
    await worker().drain();
    expect(net.calls.map((c) => c.seed)).toEqual([SEED, 'Ada-Lovelace']);
  });
});
