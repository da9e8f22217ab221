import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/connection.js';
import { engineIntents, leads } from '../../../src/db/schema.js';
import { insertIntent, intentStatements, kindsOfMany, type IntentRow } from '../../../src/db/sql/intents.js';
import { variedCtx } from './helpers.js';

const intent = (id: string, over: Partial<IntentRow> = {}): Omit<IntentRow, 'seq'> => ({
  id,
  leadId: 'lead_1',
  campaignId: 'cmp',
  accountId: 'acc_a',
  kind: 'connection_request',
  step: null,
  stepId: null,
  text: 'Hi',
  state: 'pending',
  holder: 'engine',
  createdAt: 100,
  settledAt: null,
  chatId: null,
  messageId: null,
  errorCode: null,
  ...over,
});

/** src/db/sql/intents.ts returns and writes what the query builder would. */
describe('intent statements', () => {
  const rows = (db: Db) => db.select().from(engineIntents).orderBy(engineIntents.seq).all();

  it('inserts intents as the query builder does', () => {
    const [a, b] = [variedCtx(), variedCtx()];
    const values = [intent('int_1'), intent('int_2', { leadId: 'lead_3', step: 1, kind: 'message', state: 'sent', chatId: 'c', createdAt: 90 })];
    for (const v of values) {
      insertIntent(a.db, v);
      b.db.insert(engineIntents).values(v).run();
    }
    expect(rows(a.db)).toStrictEqual(rows(b.db));
  });

  it('finds pending intents of a lead and of a campaign, and the latest intent of an account', () => {
    const { db } = variedCtx();
    const s = intentStatements(db);
    insertIntent(db, intent('int_1', { state: 'sent', createdAt: 50 }));
    insertIntent(db, intent('int_2', { leadId: 'lead_3', createdAt: 70 }));
    insertIntent(db, intent('int_3', { accountId: 'acc_b', campaignId: 'cmp_2', leadId: 'lead_4', createdAt: 60 }));
    const pending = (where: ReturnType<typeof and>) =>
      db
        .select({ one: sql<number>`1` })
        .from(engineIntents)
        .where(and(where, eq(engineIntents.state, 'pending')))
        .limit(1)
        .get()?.one;
    for (const lead of ['lead_1', 'lead_3', 'lead_4', 'lead_9']) expect(s.pendingOfLead.get(lead)).toBe(pending(eq(engineIntents.leadId, lead)));
    for (const c of ['cmp', 'cmp_2', 'cmp_none']) expect(s.pendingOfCampaign.get(c)).toBe(pending(eq(engineIntents.campaignId, c)));
    for (const acc of ['acc_a', 'acc_b', 'acc_none']) {
      const latest = db
        .select({ at: engineIntents.createdAt })
        .from(engineIntents)
        .where(eq(engineIntents.accountId, acc))
        .orderBy(desc(engineIntents.createdAt))
        .limit(1)
        .get()?.at;
      expect(s.lastOfAccount.get(acc)).toBe(latest);
    }
  });

  it('settles a pending intent once, keeping fields given as null', () => {
    const [a, b] = [variedCtx(), variedCtx()];
    for (const ctx of [a, b]) insertIntent(ctx.db, intent('int_1', { chatId: 'chat_old' }));
    const settle = { id: 'int_1', state: 'sent', settledAt: 200, chatId: null, messageId: 'm1', errorCode: null };
    expect(intentStatements(a.db).settle.run(settle).changes).toBe(1);
    b.db
      .update(engineIntents)
      .set({ state: 'sent', settledAt: 200, messageId: 'm1' })
      .where(and(eq(engineIntents.id, 'int_1'), eq(engineIntents.state, 'pending')))
      .run();
    expect(rows(a.db)).toStrictEqual(rows(b.db));
    expect(rows(a.db)[0]).toMatchObject({ state: 'sent', chatId: 'chat_old', messageId: 'm1' });
    expect(intentStatements(a.db).settle.run({ ...settle, state: 'failed' }).changes).toBe(0);
  });

  it('reads the leads touched ahead of their invitation, each once, up to what the caller asks', () => {
    const { db } = variedCtx();
    const s = intentStatements(db);
    // Two visits of lead_5, one of lead_6, a failed one of lead_7, and an invitation (not a touch).
    insertIntent(db, intent('int_1', { leadId: 'lead_5', kind: 'visit', state: 'sent', createdAt: 100 }));
    insertIntent(db, intent('int_2', { leadId: 'lead_5', kind: 'visit', state: 'sent', createdAt: 110 }));
    insertIntent(db, intent('int_3', { leadId: 'lead_6', kind: 'visit', state: 'sent', createdAt: 120 }));
    insertIntent(db, intent('int_4', { leadId: 'lead_7', kind: 'visit', state: 'failed', createdAt: 130 }));
    insertIntent(db, intent('int_5', { leadId: 'lead_1', kind: 'connection_request', state: 'sent', createdAt: 140 }));
    const ahead = (upTo: number, from = 0) => s.touchedNotInvited.all({ account: 'acc_a', from, kinds: JSON.stringify(['visit']), upTo }).sort();
    expect(ahead(100)).toStrictEqual(['lead_5', 'lead_6']);
    expect(ahead(100, 115)).toStrictEqual(['lead_6']);
    expect(ahead(2)).toStrictEqual(['lead_5', 'lead_6']);
    expect(ahead(1)).toHaveLength(1);
    // A lead invited meanwhile is no longer ahead of its invitation.
    db.$client.prepare("UPDATE leads SET invited_at = 1 WHERE id = 'lead_6'").run();
    expect(ahead(100)).toStrictEqual(['lead_5']);
  });

  it('keeps a touched lead exactly while each of the conditions on it holds, as the query builder reads them', () => {
    const { db } = variedCtx();
    const s = intentStatements(db);
    const ids = db
      .select({ id: leads.id })
      .from(leads)
      .orderBy(leads.seq)
      .all()
      .map((l) => l.id);
    // Every lead touched once; the leads take turns breaking one condition each, or none.
    const breaks = [
      {},
      { invitedAt: 5 },
      { connectionRequestAccepted: true },
      { excluded: true },
      { replied: true },
      { stage: 'connection_sent' },
      { stage: 'failed' },
    ] as const;
    ids.forEach((id, n) => {
      insertIntent(db, intent(`int_t${n}`, { leadId: id, kind: 'visit', state: 'sent', createdAt: 100 + n }));
      db.update(leads)
        .set({ invitedAt: null, connectionRequestAccepted: false, excluded: false, replied: false, stage: 'new', ...breaks[n % breaks.length] })
        .where(eq(leads.id, id))
        .run();
    });
    const expected = db
      .select({ id: leads.id })
      .from(leads)
      .where(
        and(isNull(leads.invitedAt), eq(leads.connectionRequestAccepted, false), eq(leads.excluded, false), eq(leads.replied, false), eq(leads.stage, 'new')),
      )
      .all()
      .map((l) => l.id)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(ids.length);
    const read = () => s.touchedNotInvited.all({ account: 'acc_a', from: 0, kinds: JSON.stringify(['visit']), upTo: 10_000 }).sort();
    expect(read()).toStrictEqual(expected);
    // A lead leaves and comes back as its row changes.
    const first = expected[0] as string;
    db.update(leads).set({ stage: 'connection_sent' }).where(eq(leads.id, first)).run();
    expect(read()).toStrictEqual(expected.slice(1));
    db.update(leads).set({ stage: 'new' }).where(eq(leads.id, first)).run();
    expect(read()).toStrictEqual(expected);
  });

  it("reads an account's touches and its sends of some kinds from their index alone", () => {
    const { db } = variedCtx();
    const s = intentStatements(db);
    const plan = (source: string, params: Record<string, unknown>) =>
      (db.$client.prepare(`EXPLAIN QUERY PLAN ${source}`).all(params) as { detail: string }[]).map((r) => r.detail).join('\n');
    const kinds = JSON.stringify(['visit']);
    expect(plan(s.touchedNotInvited.source, { account: 'acc_a', from: 0, kinds, upTo: 5 })).toContain('USING COVERING INDEX engine_intents_account_kind');
    // Each touched lead is looked for among the fresh leads only (migration 0036).
    expect(plan(s.touchedNotInvited.source, { account: 'acc_a', from: 0, kinds, upTo: 5 })).toContain('SEARCH l USING INDEX leads_fresh (id=?)');
    expect(plan(kindsOfMany(db, ['visit']).source, { ids: JSON.stringify(['acc_a']), from: 0, to: 1 })).toContain(
      'USING COVERING INDEX engine_intents_account_kind',
    );
  });

  it('counts sends of some kinds per account, one statement per list of kinds, and refuses a kind that is not a plain name', () => {
    const { db } = variedCtx();
    const made: [string, Partial<IntentRow>][] = [
      ['int_1', { kind: 'visit', state: 'sent', createdAt: 100 }],
      ['int_2', { kind: 'visit', state: 'sent', createdAt: 110, leadId: 'lead_2' }],
      ['int_3', { kind: 'visit', state: 'failed', createdAt: 120, leadId: 'lead_3' }],
      ['int_4', { kind: 'endorse', state: 'sent', createdAt: 130 }],
      ['int_5', { kind: 'connection_request', state: 'pending', createdAt: 140, accountId: 'acc_b' }],
      ['int_6', { kind: 'visit', state: 'sent', createdAt: 5_000, leadId: 'lead_4' }],
    ];
    for (const [id, over] of made) insertIntent(db, intent(id, over));
    const all = (kinds: string[]) =>
      db.$client
        .prepare(
          `SELECT account_id AS accountId, kind, count(*) AS n FROM engine_intents WHERE kind IN (SELECT value FROM json_each(?)) AND state != 'failed'
           GROUP BY account_id, kind ORDER BY 1, 2`,
        )
        .all(JSON.stringify(kinds));
    const accounts = (db.$client.prepare('SELECT DISTINCT account_id FROM engine_intents').pluck().all() as string[]).sort();
    const counted = (kinds: string[]) =>
      kindsOfMany(db, kinds)
        .all({ ids: JSON.stringify(accounts), from: 0, to: Number.MAX_SAFE_INTEGER })
        .sort((a, b) => (a.accountId + a.kind).localeCompare(b.accountId + b.kind));
    const kinds = (db.$client.prepare('SELECT DISTINCT kind FROM engine_intents').pluck().all() as string[]).sort();
    expect(kinds.length).toBeGreaterThan(1);
    expect(counted(kinds.slice(0, 1))).toEqual(all(kinds.slice(0, 1)));
    expect(counted(kinds)).toEqual(all(kinds));
    expect(all(kinds).length).toBeGreaterThan(0);
    expect(kindsOfMany(db, kinds)).toBe(kindsOfMany(db, kinds));
    // Failed calls are not counted, and only [from, to) is.
    expect(kindsOfMany(db, ['visit']).all({ ids: JSON.stringify(['acc_a']), from: 0, to: 1_000 })).toEqual([{ accountId: 'acc_a', kind: 'visit', n: 2 }]);
    expect(() => kindsOfMany(db, ["visit') OR ('1'='1"])).toThrow(/not a list of intent kinds/);
    expect(() => kindsOfMany(db, [])).toThrow(/not a list of intent kinds/);
  });
});
