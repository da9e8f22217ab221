import { and, asc, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { boundLimitsAsSubqueries, fast, inserterOf, updaterById } from '../../src/db/prepared.js';
import { agents, campaigns, leads } from '../../src/db/schema.js';
import { engineWorkspace } from '../engine/helpers.js';
import { testCtx } from '../helpers.js';
import { restoreCampaign } from '../../src/core/campaigns/state-machine.js';

describe('updaterById and inserterOf', () => {
  const updateLead = updaterById(leads);
  const insertLead = inserterOf(leads);

  it('writes exactly the columns given, in any order, nulls as NULL, and skips undefined ones', () => {
    const ctx = testCtx({ workspace: engineWorkspace(['ann-sim-never-accepts']) });
    const row = () => ctx.db.select().from(leads).where(eq(leads.id, 'lead_1')).get()!;
    const before = row();
    expect(updateLead(ctx.db, 'lead_1', { stage: 'connection_sent', invitedAt: 5, jobTitle: undefined })).toBe(1);
    expect(row()).toMatchObject({ stage: 'connection_sent', invitedAt: 5, jobTitle: before.jobTitle, firstName: before.firstName });
    // The same columns in another order, then a null where a value was.
    expect(updateLead(ctx.db, 'lead_1', { invitedAt: 7, stage: 'connected' })).toBe(1);
    expect(row()).toMatchObject({ stage: 'connected', invitedAt: 7 });
    expect(updateLead(ctx.db, 'lead_1', { stage: 'new', invitedAt: null })).toBe(1);
    expect(row()).toMatchObject({ stage: 'new', invitedAt: null });
    // A boolean column maps through its column (true is stored as 1 and read back as true).
    expect(updateLead(ctx.db, 'lead_1', { replied: true })).toBe(1);
    expect(row().replied).toBe(true);
    expect(updateLead(ctx.db, 'lead_1', {})).toBe(0);
    expect(updateLead(ctx.db, 'lead_1', { stage: undefined })).toBe(0);
    expect(updateLead(ctx.db, 'no_such_lead', { stage: 'new' })).toBe(0);
  });

  it('inserts a row from the columns given, leaving the others to their defaults', () => {
    const ctx = testCtx({ workspace: engineWorkspace([]) });
    insertLead(ctx.db, { id: 'lead_x', campaignId: 'cmp', networkUrl: 'https://www.linkedin.com/in/x', firstName: null, createdAt: 1, updatedAt: 1 });
    const row = ctx.db.select().from(leads).where(eq(leads.id, 'lead_x')).get()!;
    expect(row).toMatchObject({ campaignId: 'cmp', firstName: null, stage: 'new', replied: false, nextActionAt: 0 });
  });
});

describe('fast', () => {
  const ctx = () => {
    const c = testCtx({ workspace: engineWorkspace(['ann-sim-never-accepts', { slug: 'bob-sim-never-accepts', excluded: true }, 'cy-sim-never-accepts']) });
    // A second campaign with no agent: its joined agent must come back null, as drizzle has it.
    restoreCampaign(c, { id: 'cmp_none', name: 'No agent', status: 'READY_TO_SEND', createdAt: 1, updatedAt: 1 });
    return c;
  };
  /** Runs the same prepared query through drizzle and through fast, and expects the same. */
  const same = <Q extends { run(...a: never[]): unknown; all(v?: Record<string, unknown>): unknown[]; get(v?: Record<string, unknown>): unknown }>(
    q: Q,
    values: Record<string, unknown>,
  ) => {
    const f = fast(q);
    expect(f.all(values)).toStrictEqual(q.all(values));
    expect(f.get(values)).toStrictEqual(q.get(values));
    return f.all(values);
  };

  it('reads flat rows, with every column decoded as drizzle decodes it', () => {
    const c = ctx();
    const q = c.db
      .select()
      .from(leads)
      .where(eq(leads.campaignId, sql.placeholder('id')))
      .orderBy(asc(leads.seq))
      .limit(sql.placeholder('limit'))
      .prepare();
    const rows = same(q, { id: 'cmp', limit: 10 });
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.excluded)).toEqual([false, true, false]);
    expect(same(q, { id: 'cmp', limit: 1 })).toHaveLength(1);
    expect(same(q, { id: 'nope', limit: 10 })).toEqual([]);
  });

  it('reads joined rows, a missing left-joined row as null', () => {
    const c = ctx();
    const q = c.db
      .select({ id: campaigns.id, status: campaigns.status, a: agents })
      .from(campaigns)
      .leftJoin(agents, eq(agents.id, campaigns.assignedTemplateId))
      .where(eq(campaigns.id, sql.placeholder('id')))
      .prepare();
    expect(same(q, { id: 'cmp' })[0]?.a?.id).toBe('tpl');
    expect(same(q, { id: 'cmp_none' })[0]?.a).toBeNull();
    const all = c.db.select().from(campaigns).leftJoin(agents, eq(agents.id, campaigns.assignedTemplateId)).orderBy(asc(campaigns.seq)).prepare();
    expect(same(all, {}).map((r) => r.agents?.id ?? null)).toEqual(['tpl', null]);
    const inner = c.db
      .select({ c: campaigns.id, accountId: agents.accountId })
      .from(campaigns)
      .innerJoin(agents, eq(agents.id, campaigns.assignedTemplateId))
      .prepare();
    expect(same(inner, {})).toEqual([{ c: 'cmp', accountId: 'acc_a' }]);
  });

  it('reads sql fields from a table-valued source', () => {
    const c = ctx();
    const q = c.db
      .select({
        id: sql<string>`j.value`,
        n: sql<number>`(SELECT count(*) FROM ${leads} WHERE ${leads.campaignId} = j.value AND ${eq(leads.excluded, sql.placeholder('excluded'))})`,
      })
      .from(sql`json_each(${sql.placeholder('ids')}) j`)
      .prepare();
    expect(same(q, { ids: JSON.stringify(['cmp', 'cmp_none']), excluded: 1 })).toEqual([
      { id: 'cmp', n: 1 },
      { id: 'cmp_none', n: 0 },
    ]);
    expect(same(q, { ids: JSON.stringify(['cmp']), excluded: 0 })).toEqual([{ id: 'cmp', n: 2 }]);
  });

  it('binds a set placeholder through its column (a boolean as 1), and refuses a missing value with the error drizzle gives', () => {
    const c = ctx();
    const update = c.db
      .update(leads)
      .set({ replied: sql.placeholder('replied') as never, stage: sql.placeholder('stage') as never })
      .where(and(eq(leads.id, sql.placeholder('id')), eq(leads.excluded, false)))
      .prepare();
    const f = fast(update as never);
    expect(f.run({ id: 'lead_1', replied: true, stage: 'replied' }).changes).toBe(1);
    expect(f.run({ id: 'lead_2', replied: true, stage: 'replied' }).changes).toBe(0);
    const row = c.db.select().from(leads).where(eq(leads.id, 'lead_1')).get()!;
    expect([row.replied, row.stage]).toEqual([true, 'replied']);
    expect(() => f.run({ id: 'lead_1', stage: 'x' })).toThrow('No value for placeholder "replied" was provided');
    expect(() => update.run({ id: 'lead_1', stage: 'x' })).toThrow('No value for placeholder "replied" was provided');
  });

  it('refuses what is not a drizzle prepared query', () => {
    expect(() => fast({ all: () => [] } as never)).toThrow(/not a drizzle/);
  });
});

describe('boundLimitsAsSubqueries', () => {
  it('wraps a bound LIMIT and OFFSET, and nothing else', () => {
    expect(boundLimitsAsSubqueries('select "a" from "t" where "b" = ? limit ?')).toBe('select "a" from "t" where "b" = ? limit (select ?)');
    expect(boundLimitsAsSubqueries('select a from t ORDER BY a LIMIT ? OFFSET ?')).toBe('select a from t ORDER BY a LIMIT (select ?) OFFSET (select ?)');
    expect(boundLimitsAsSubqueries('select a from t limit 5')).toBe('select a from t limit 5');
    expect(boundLimitsAsSubqueries('select a from t limit ?1')).toBe('select a from t limit ?1');
    expect(boundLimitsAsSubqueries('select a from t where unlimit = ?')).toBe('select a from t where unlimit = ?');
  });
});
