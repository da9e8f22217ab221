import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Ctx } from '../../src/core/context.js';
import { addLeadsBatch } from '../../src/core/leads/add.js';
import { failedItem } from '../../src/core/leads/batch.js';
import { deleteLeadsBatch } from '../../src/core/leads/delete.js';
import { updateLeadsBatch } from '../../src/core/leads/update.js';
import { campaigns, creditBalance, creditLedger, leads, webhookEvents } from '../../src/db/schema.js';
import { transaction } from '../../src/db/tx.js';
import { fixture, testCtx } from '../helpers.js';
import { openSession, type Session } from './call.js';

/**
 * A batch writes its items in one transaction, a savepoint per item. These cases make SQLite
 * itself fail, the ways it really can, rather than a failpoint: a statement error SQLite undoes
 * alone, a statement that makes SQLite roll the whole transaction back (as it may on
 * SQLITE_FULL or SQLITE_IOERR), and a COMMIT that fails. The failures come from TEMP triggers
 * and tables on the test's own connection, so the schema is untouched.
 */

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;

type Failure = 'statement' | 'transaction' | 'commit';

/**
 * Makes the write that `when` picks fail: `statement` aborts just that statement,
 * `transaction` makes SQLite roll back the whole transaction, `commit` lets every statement
 * through but leaves a deferred foreign-key violation, so COMMIT fails.
 */
function failWrite(ctx: Ctx, failure: Failure, on: string, when: string): void {
  const sqlite = ctx.db.$client;
  if (failure === 'commit') {
    sqlite.exec(`
      CREATE TEMP TABLE parent (id TEXT PRIMARY KEY);
      CREATE TEMP TABLE orphan (parent TEXT REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TEMP TRIGGER fail_write AFTER ${on} WHEN ${when} BEGIN INSERT INTO orphan VALUES ('none'); END;`);
    return;
  }
  const raise = failure === 'statement' ? `RAISE(ABORT, 'disk I/O error')` : `RAISE(ROLLBACK, 'database or disk is full')`;
  sqlite.exec(`CREATE TEMP TRIGGER fail_write BEFORE ${on} WHEN ${when} BEGIN SELECT ${raise}; END;`);
}

const healWrites = (ctx: Ctx) => ctx.db.$client.exec('DROP TRIGGER IF EXISTS temp.fail_write');

/** Everything an add batch can write, to compare before and after. */
function addState(ctx: Ctx) {
  return {
    leads: ctx.db.select({ id: leads.id, url: leads.networkUrl }).from(leads).where(eq(leads.campaignId, 'cmp_q4')).orderBy(leads.seq).all(),
    ledger: ctx.db.select().from(creditLedger).where(eq(creditLedger.reason, 'lead_created')).all(),
    balance: ctx.db.select().from(creditBalance).get(),
    campaign: ctx.db.select().from(campaigns).where(eq(campaigns.id, 'cmp_q4')).get(),
  };
}

const ADDS = [
  { networkUrl: url('p1') },
  { networkUrl: url('ada-lovelace') },
  { networkUrl: 'garbage' },
  { networkUrl: url('do-not-contact') },
  { networkUrl: url('p2') },
  { networkUrl: url('p1') },
  { networkUrl: url('p3') },
];

describe('add_leads_batch when SQLite fails', () => {
  it('a statement error fails that item and the rest; the items before it commit with their charges', () => {
    const ctx = testCtx();
    ctx.clock.advance(1000);
    failWrite(ctx, 'statement', 'INSERT ON main.leads', `NEW.network_url = '${url('p2')}'`);
    const r = addLeadsBatch(ctx, 'cmp_q4', ADDS);
    expect(r.results.map((x) => x.status)).toEqual(['created', 'duplicate', 'validation_error', 'excluded', 'failed', 'failed', 'failed']);
    expect(r.results[4]).toEqual({ index: 4, networkUrl: url('p2'), leadId: null, status: 'failed', creditsCharged: 0, error: failedItem() });
    expect(r.creditsCharged).toBe(1);
    const after = addState(ctx);
    expect(after.leads.map((l) => l.url).sort()).toEqual([url('ada-lovelace'), url('do-not-contact'), url('p1')]);
    // p2's charge rolled back with its insert: one ledger row, one credit spent, totals true.
    expect(after.ledger).toEqual([expect.objectContaining({ ref: r.results[0]!.leadId, delta: -1 })]);
    expect(after.balance).toMatchObject({ credits: 99, topUpCredits: 5 });
    expect(after.campaign).toMatchObject({ totalLeads: 3, updatedAt: ctx.clock.now() });
    expect(ctx.db.$client.inTransaction).toBe(false);
  });

  it.each(['transaction', 'commit'] as const)('when the %s is lost, nothing landed: every item is failed and the state is as before', (failure) => {
    const ctx = testCtx();
    const before = addState(ctx);
    ctx.clock.advance(1000);
    failWrite(ctx, failure, 'INSERT ON main.leads', `NEW.network_url = '${url('p2')}'`);
    const r = addLeadsBatch(ctx, 'cmp_q4', ADDS);
    expect(r.results).toEqual(
      ADDS.map((item, index) => ({
        index,
        networkUrl: item.networkUrl === 'garbage' ? 'garbage' : item.networkUrl,
        leadId: null,
        status: 'failed',
        creditsCharged: 0,
        error: failedItem(),
      })),
    );
    expect(r.summary).toEqual({ total: 7, created: 0, duplicate: 0, excluded: 0, validation_error: 0, insufficient_credits: 0, failed: 7 });
    expect(r.creditsCharged).toBe(0);
    // p3, after the lost item, did not commit on its own either.
    expect(addState(ctx)).toEqual(before);
    expect(ctx.db.$client.inTransaction).toBe(false);

    healWrites(ctx);
    expect(addLeadsBatch(ctx, 'cmp_q4', ADDS).summary).toMatchObject({ created: 3, duplicate: 2, excluded: 1, validation_error: 1 });
  });

  it('when the shared booking after the last item fails, nothing landed: every item is failed', () => {
    const ctx = testCtx();
    const before = addState(ctx);
    failWrite(ctx, 'statement', 'UPDATE ON main.campaigns', `NEW.id = 'cmp_q4'`);
    const r = addLeadsBatch(ctx, 'cmp_q4', ADDS);
    expect(r.summary).toMatchObject({ created: 0, failed: 7 });
    expect(addState(ctx)).toEqual(before);
  });

  it('inside a caller’s transaction, a batch lost as a whole leaves nothing behind in it', () => {
    const ctx = testCtx();
    const before = addState(ctx);
    failWrite(ctx, 'statement', 'UPDATE ON main.campaigns', `NEW.id = 'cmp_q4'`);
    const r = transaction(ctx.db, () => {
      ctx.db.update(creditBalance).set({ lookalikeCredits: 7 }).run();
      return addLeadsBatch(ctx, 'cmp_q4', ADDS);
    });
    expect(r.summary).toMatchObject({ created: 0, failed: 7 });
    // The caller's own write committed; none of the batch's did.
    expect(addState(ctx)).toEqual({ ...before, balance: { ...before.balance, lookalikeCredits: 7 } });
  });
});

describe('add_leads_batch with the caller’s writes alongside (an import’s progress)', () => {
  /** Records what `alongside` saw, and writes the count of created items where the test can read it back. */
  const recorder = (ctx: Ctx) => {
    const seen: { statuses: string[]; inTransaction: boolean }[] = [];
    const alongside = (answers: readonly { status: string }[]) => {
      seen.push({ statuses: answers.map((a) => a.status), inTransaction: ctx.db.$client.inTransaction });
      ctx.db
        .update(creditBalance)
        .set({ lookalikeCredits: 100 + answers.filter((a) => a.status === 'created').length })
        .run();
    };
    return { seen, alongside };
  };
  const lookalikeCredits = (ctx: Ctx) => ctx.db.select().from(creditBalance).get()!.lookalikeCredits;

  it('runs once, last, in the batch’s transaction, with the answers the batch returns', () => {
    const ctx = testCtx();
    const { seen, alongside } = recorder(ctx);
    const r = addLeadsBatch(ctx, 'cmp_q4', ADDS, undefined, alongside);
    expect(seen).toEqual([{ statuses: r.results.map((x) => x.status), inTransaction: true }]);
    expect(r.summary).toMatchObject({ created: 3 });
    expect(lookalikeCredits(ctx)).toBe(103);
    expect(ctx.db.$client.inTransaction).toBe(false);
  });

  it('after an item’s failure, gets the answers of the attempt that commits', () => {
    const ctx = testCtx();
    const { seen, alongside } = recorder(ctx);
    failWrite(ctx, 'statement', 'INSERT ON main.leads', `NEW.network_url = '${url('p2')}'`);
    const r = addLeadsBatch(ctx, 'cmp_q4', ADDS, undefined, alongside);
    expect(seen.map((s) => s.statuses)).toEqual([['created', 'duplicate', 'validation_error', 'excluded', 'failed', 'failed', 'failed']]);
    expect(r.summary).toMatchObject({ created: 1, failed: 3 });
    expect(lookalikeCredits(ctx)).toBe(101);
  });

  it.each(['transaction', 'commit'] as const)('when the %s is lost, records every item failed in a transaction of its own', (failure) => {
    const ctx = testCtx();
    const before = addState(ctx);
    const { seen, alongside } = recorder(ctx);
    failWrite(ctx, failure, 'INSERT ON main.leads', `NEW.network_url = '${url('p2')}'`);
    const r = addLeadsBatch(ctx, 'cmp_q4', ADDS, undefined, alongside);
    expect(r.summary).toMatchObject({ created: 0, failed: 7 });
    expect(seen.at(-1)).toEqual({ statuses: ADDS.map(() => 'failed'), inTransaction: true });
    // The batch left nothing; the caller's record of it committed.
    expect(addState(ctx)).toEqual({ ...before, balance: { ...before.balance, lookalikeCredits: 100 } });
    expect(ctx.db.$client.inTransaction).toBe(false);
  });

  it('a throw from it is the caller’s: it goes to the caller and nothing of the batch commits', () => {
    const ctx = testCtx();
    const before = addState(ctx);
    const boom = new Error('progress could not be written');
    expect(() =>
      addLeadsBatch(ctx, 'cmp_q4', ADDS, undefined, () => {
        ctx.db.update(creditBalance).set({ lookalikeCredits: 1 }).run();
        throw boom;
      }),
    ).toThrow(boom);
    expect(addState(ctx)).toEqual(before);
    expect(ctx.db.$client.inTransaction).toBe(false);
  });

  it('inside a caller’s transaction SQLite rolled back, the loss goes to the caller', () => {
    const ctx = testCtx();
    const before = addState(ctx);
    const { seen, alongside } = recorder(ctx);
    failWrite(ctx, 'transaction', 'INSERT ON main.leads', `NEW.network_url = '${url('p2')}'`);
    expect(() => transaction(ctx.db, () => addLeadsBatch(ctx, 'cmp_q4', ADDS, undefined, alongside))).toThrow('database or disk is full');
    expect(seen).toEqual([]);
    expect(addState(ctx)).toEqual(before);
  });
});

/** The fixture plus leads to tag and delete. */
function workspace() {
  const w = fixture();
  const q4 = w.campaigns!.find((c) => c.id === 'cmp_q4')!;
  q4.leads = [...(q4.leads ?? []), ...['b', 'c', 'd'].map((x) => ({ id: `lead_${x}`, networkUrl: url(`person-${x}`) }))];
  return w;
}

const leadRows = (ctx: Ctx) =>
  // In insertion order: without an ORDER BY, the order is whichever index SQLite picks.
  ctx.db.select({ id: leads.id, tag: leads.tag, excluded: leads.excluded }).from(leads).where(eq(leads.campaignId, 'cmp_q4')).orderBy(leads.seq).all();
const outbox = (ctx: Ctx) =>
  ctx.db
    .select({ payload: webhookEvents.payload })
    .from(webhookEvents)
    .all()
    .map((e) => JSON.parse(e.payload).data.lead.id);

describe('update_leads_batch when SQLite fails', () => {
  const UPDATES = [
    { leadId: 'lead_b', tag: 'Interested' as const },
    { leadId: 'lead_missing', tag: 'Interested' as const },
    { leadId: 'lead_c', tag: 'Not interested' as const },
    { leadId: 'lead_d', tag: 'Interested' as const },
  ];

  it('a statement error fails that item and the rest; the items before it commit with their webhook events', () => {
    const ctx = testCtx({ workspace: workspace() });
    // Not interested excludes the lead: the exclusion list insert is the write that fails.
    failWrite(ctx, 'statement', 'INSERT ON main.exclusions', `NEW.network_url = '${url('person-c')}'`);
    const r = updateLeadsBatch(ctx, 'cmp_q4', UPDATES);
    expect(r.results.map((x) => x.status)).toEqual(['updated', 'not_found', 'failed', 'failed']);
    expect(r.results[2]).toMatchObject({ leadId: 'lead_c', tag: null, excluded: null, error: { code: 'upstream_unavailable' } });
    // lead_c's tag was written before the failing exclusion; it rolled back with it.
    expect(leadRows(ctx)).toEqual([
      { id: 'lead_ada1', tag: null, excluded: false },
      { id: 'lead_b', tag: 'Interested', excluded: false },
      { id: 'lead_c', tag: null, excluded: false },
      { id: 'lead_d', tag: null, excluded: false },
    ]);
    expect(outbox(ctx)).toEqual(['lead_b']);
  });

  it.each(['transaction', 'commit'] as const)('when the %s is lost, nothing landed: every item is failed, no webhook event stays', (failure) => {
    const ctx = testCtx({ workspace: workspace() });
    const before = leadRows(ctx);
    failWrite(ctx, failure, 'UPDATE ON main.leads', `NEW.id = 'lead_d'`);
    const r = updateLeadsBatch(ctx, 'cmp_q4', UPDATES);
    expect(r.results.map((x) => x.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(r.results.every((x) => x.tag === null && x.excluded === null && x.error?.code === 'upstream_unavailable')).toBe(true);
    expect(r.summary).toMatchObject({ updated: 0, not_found: 0, failed: 4 });
    expect(leadRows(ctx)).toEqual(before);
    expect(outbox(ctx)).toEqual([]);
  });
});

describe('delete_leads_batch when SQLite fails', () => {
  it('a statement error fails that item and the rest; the deletes before it commit and are counted', () => {
    const ctx = testCtx({ workspace: workspace() });
    failWrite(ctx, 'statement', 'DELETE ON main.leads', `OLD.id = 'lead_c'`);
    const r = deleteLeadsBatch(ctx, 'cmp_q4', ['lead_b', 'lead_c', 'lead_d']);
    expect(r.results.map((x) => x.status)).toEqual(['deleted', 'failed', 'failed']);
    expect(r.reconciliationFailed).toBe(false);
    expect(leadRows(ctx).map((l) => l.id)).toEqual(['lead_ada1', 'lead_c', 'lead_d']);
    expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, 'cmp_q4')).get()!.totalLeads).toBe(3);
  });

  it.each(['transaction', 'commit'] as const)('when the %s is lost, nothing landed: every item is failed and no refresh is owed', (failure) => {
    const ctx = testCtx({ workspace: workspace() });
    failWrite(ctx, failure, 'DELETE ON main.leads', `OLD.id = 'lead_c'`);
    const r = deleteLeadsBatch(ctx, 'cmp_q4', ['lead_b', 'nope!', 'lead_c', 'lead_d']);
    expect(r.results.map((x) => x.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(r.results[1]).toMatchObject({ leadId: 'nope!', error: { code: 'upstream_unavailable' } });
    expect(r.reconciliationFailed).toBe(false);
    expect(leadRows(ctx).map((l) => l.id)).toEqual(['lead_ada1', 'lead_b', 'lead_c', 'lead_d']);
    expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, 'cmp_q4')).get()!.totalLeads).toBe(4);
  });
});

describe('a lost batch transaction and its idempotency key', () => {
  let s: Session;
  afterEach(() => s?.close());

  it('releases the key, so the retry with the same key performs the batch', async () => {
    s = await openSession('rest');
    const ctx = s.server.ctx;
    failWrite(ctx, 'transaction', 'INSERT ON main.leads', `NEW.network_url = '${url('p2')}'`);
    const args = { campaignId: 'cmp_q4', leads: [{ networkUrl: url('p1') }, { networkUrl: url('p2') }] };
    const lost = await s.call('add_leads_batch', args, { idempotencyKey: 'lost-1' });
    expect(lost.status).toBe(200);
    expect(lost.body.summary).toMatchObject({ created: 0, failed: 2 });

    healWrites(ctx);
    const retry = await s.call('add_leads_batch', args, { idempotencyKey: 'lost-1' });
    expect(retry.status).toBe(200);
    expect(retry.headers?.get('idempotent-replayed')).toBeNull();
    expect(retry.body.summary).toMatchObject({ created: 2, failed: 0 });
  });
});
