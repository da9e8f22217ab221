import { and, asc, eq, getTableColumns, gt, isNotNull, lte, min } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { leads } from '../../../src/db/schema.js';
import { LEAD_COLUMNS, leadStatements } from '../../../src/db/sql/leads.js';
import { bySeq, variedCtx } from './helpers.js';

/** src/db/sql/leads.ts returns what the query builder would. */
describe('lead statements', () => {
  const ctx = variedCtx();
  const db = ctx.db;
  const s = leadStatements(db);
  const q = () => db.select().from(leads);
  const ids = (cs: string[]) => JSON.stringify(cs);
  const campaignsOf = ['cmp', 'cmp_2', 'cmp_none', 'cmp_missing'];

  it('reads a lead by id, booleans and nulls decoded as drizzle decodes them', () => {
    for (const id of ['lead_1', 'lead_2', 'lead_3', 'no_such_lead']) expect(s.byId.get(id)).toStrictEqual(q().where(eq(leads.id, id)).get());
    expect(s.byId.get('lead_1')).toMatchObject({ replied: true, excluded: false, connectionRequestAccepted: false });
  });

  it('reads leads with a polite close pending, oldest first, at most the limit', () => {
    const builder = (limit: number) => q().where(isNotNull(leads.politeClosePendingAt)).orderBy(asc(leads.politeClosePendingAt)).limit(limit).all();
    for (const limit of [1, 2, 10]) expect(s.closing.all({ limit })).toStrictEqual(builder(limit));
  });

  it('reads the due and the fresh leads of many campaigns, at most `limit` each, earliest due first', () => {
    const perCampaign = (due: (c: string) => ReturnType<typeof and>, limit: number) =>
      bySeq(campaignsOf.flatMap((c) => q().where(due(c)).orderBy(asc(leads.nextActionAt)).limit(limit).all()));
    for (const [now, limit] of [
      [1000, 10],
      [1000, 1],
      [100, 10],
      [2000, 2],
    ] as const) {
      const scheduled = (c: string) => and(eq(leads.campaignId, c), gt(leads.nextActionAt, 0), lte(leads.nextActionAt, now));
      expect(bySeq(s.scheduledOfMany.all({ ids: ids(campaignsOf), now, limit }))).toStrictEqual(perCampaign(scheduled, limit));
    }
    const fresh = (c: string) => and(eq(leads.campaignId, c), eq(leads.nextActionAt, 0));
    expect(bySeq(s.freshOfMany.all({ ids: ids(campaignsOf), limit: 5 }))).toStrictEqual(perCampaign(fresh, 5));
    expect(s.freshOfMany.all({ ids: ids(['cmp']), limit: 5 }).map((l) => l.id)).toEqual(['lead_5']);
  });

  it('tells when each campaign next has work, and which have none left', () => {
    for (const now of [0, 600, 5000]) {
      const builder = campaignsOf.map((c) => ({
        id: c,
        at: db
          .select({ at: min(leads.nextActionAt) })
          .from(leads)
          .where(and(eq(leads.campaignId, c), gt(leads.nextActionAt, now)))
          .get()!.at,
      }));
      expect(s.nextScheduled.all({ ids: ids(campaignsOf), now })).toStrictEqual(builder);
    }
    const idle = campaignsOf.filter(
      (c) =>
        q()
          .where(and(eq(leads.campaignId, c), isNotNull(leads.nextActionAt)))
          .get() === undefined,
    );
    expect(s.withoutWorkLeft.all({ ids: ids(campaignsOf) })).toEqual(idle);
    expect(idle).toEqual(['cmp_none', 'cmp_missing']);
  });

  it('probes a campaign for any lead, work left and a pending polite close', () => {
    for (const c of campaignsOf) {
      const probe = (where: ReturnType<typeof and>) => (q().where(where).get() === undefined ? undefined : 1);
      expect(s.anyOfCampaign.get(c)).toBe(probe(eq(leads.campaignId, c)));
      expect(s.workLeftInCampaign.get(c)).toBe(probe(and(eq(leads.campaignId, c), isNotNull(leads.nextActionAt))));
      expect(s.closingInCampaign.get(c)).toBe(probe(and(eq(leads.campaignId, c), isNotNull(leads.politeClosePendingAt))));
    }
  });

  it('finds the leads of a profile URL or a provider id', () => {
    const url = s.byId.get('lead_1')!.networkUrl!;
    expect(s.byUrl.all(url)).toStrictEqual(q().where(eq(leads.networkUrl, url)).all());
    expect(s.byProviderId.all('p6')).toStrictEqual(q().where(eq(leads.providerId, 'p6')).all());
    expect(s.byProviderId.all('nobody')).toEqual([]);
  });

  it("moves a lead's due time only from the value it was read with", () => {
    const due = (id: string) => q().where(eq(leads.id, id)).get()!.nextActionAt;
    expect(s.moveDueFromAt.run({ leadId: 'lead_6', from: 1, to: 5 }).changes).toBe(0);
    expect(s.moveDueFromAt.run({ leadId: 'lead_6', from: 900, to: 950 }).changes).toBe(1);
    expect(due('lead_6')).toBe(950);
    expect(s.moveDueFromAt.run({ leadId: 'lead_6', from: 950, to: null }).changes).toBe(1);
    expect(due('lead_6')).toBeNull();
    expect(s.moveDueFromNull.run({ leadId: 'lead_1', to: 7 }).changes).toBe(0);
    expect(s.moveDueFromNull.run({ leadId: 'lead_6', to: 7 }).changes).toBe(1);
    expect(due('lead_6')).toBe(7);
  });
});

describe('the lead row', () => {
  it('names every column of the schema, in order, and reads each into its own field', () => {
    expect(LEAD_COLUMNS.split(', ')).toEqual(Object.values(getTableColumns(leads)).map((c) => c.name));
    // Every column a value of its own, so a field read from the wrong column shows.
    const ctx = variedCtx();
    const values: Record<string, unknown> = {};
    Object.entries(getTableColumns(leads)).forEach(([key, c], i) => {
      values[key] = c.dataType === 'boolean' ? i % 2 === 0 : c.dataType === 'number' ? 1000 + i : `v_${key}`;
    });
    const { seq: _seq, ...row } = values;
    ctx.db
      .insert(leads)
      .values(row as typeof leads.$inferInsert)
      .run();
    const id = values.id as string;
    const read = leadStatements(ctx.db).byId.get(id);
    expect(read).toStrictEqual(ctx.db.select().from(leads).where(eq(leads.id, id)).get());
    expect(read).toMatchObject({ ...row, id });
  });
});
