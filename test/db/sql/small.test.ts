import { and, asc, eq, getTableColumns, isNull, lte, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/connection.js';
import { engineState, exclusions, simInbox, webhookEvents, workspace } from '../../../src/db/schema.js';
import { exclusionStatements } from '../../../src/db/sql/exclusions.js';
import { simInboxStatements } from '../../../src/db/sql/sim-inbox.js';
import { webhookStatements } from '../../../src/db/sql/webhooks.js';
import { workspaceStatements } from '../../../src/db/sql/workspace.js';
import { clearEngineLease, engineStateRow, raiseSimTime, writeEngineLease } from '../../../src/core/outreach/store.js';
import { variedCtx } from './helpers.js';

/** The small statement modules (sim inbox, workspace and lease, exclusions, webhook outbox) against the query builder. */
describe('sim inbox statements', () => {
  const row = (id: string, at: number) => ({
    id,
    type: 'invitation_accepted',
    accountId: 'acc_a',
    networkUrl: `u/${id}`,
    providerId: `p_${id}`,
    chatId: null,
    text: null,
    at,
  });

  it('schedules once, lists what is due in time order, and marks delivered', () => {
    const [a, b] = [variedCtx(), variedCtx()];
    const s = simInboxStatements(a.db);
    for (const r of [row('e1', 30), row('e2', 10), row('e3', 10), { ...row('e4', 50), type: 'message_received', chatId: 'c', text: 'hi' }]) {
      expect(s.schedule.run(r).changes).toBe(1);
      b.db.insert(simInbox).values(r).onConflictDoNothing().run();
    }
    expect(s.schedule.run(row('e1', 99)).changes).toBe(0);
    const due = (db: Db, now: number, limit: number) =>
      db
        .select()
        .from(simInbox)
        .where(and(isNull(simInbox.deliveredAt), lte(simInbox.at, now)))
        .orderBy(asc(simInbox.at), asc(simInbox.id))
        .limit(limit)
        .all();
    for (const [now, limit] of [
      [40, 10],
      [40, 2],
      [5, 10],
    ] as const)
      expect(s.due.all({ now, limit })).toStrictEqual(due(b.db, now, limit));
    s.ack.run({ ids: JSON.stringify(['e2', 'e9']), at: 77 });
    s.ack.run({ ids: JSON.stringify(['e2']), at: 88 });
    b.db.update(simInbox).set({ deliveredAt: 77 }).where(sql`${simInbox.id} IN ('e2', 'e9') AND ${simInbox.deliveredAt} IS NULL`).run();
    const all = (db: Db) => db.select().from(simInbox).orderBy(simInbox.id).all();
    expect(all(a.db)).toStrictEqual(all(b.db));
    expect(s.due.all({ now: 100, limit: 10 })).toStrictEqual(due(b.db, 100, 10));
  });
});

describe('workspace, lease, exclusion and outbox statements', () => {
  it("reads the workspace's settings and the engine state row", () => {
    const {
      repliesReceived: _r,
      connectionRequestsSent: _c,
      connectionRequestsAccepted: _a,
      messagesSent: _m,
      ...settingsColumns
    } = getTableColumns(workspace);
    const { db } = variedCtx();
    const s = workspaceStatements(db);
    expect(s.settings.get()).toStrictEqual(db.select(settingsColumns).from(workspace).where(eq(workspace.id, 1)).get());
    expect(s.settings.get()).toMatchObject({ planActive: true, blocked: false });
    expect(s.engineState.get()).toBeUndefined();
    db.insert(engineState).values({ id: 1, holder: 'h', leaseExpiresAt: 5, simNow: 3 }).run();
    expect(s.engineState.get()).toStrictEqual(db.select().from(engineState).where(eq(engineState.id, 1)).get());
  });

  it('writes the lease and the sim-time mark as the query builder would', () => {
    const mine = variedCtx().db;
    const theirs = variedCtx().db;
    const row = (db: Db) => db.select().from(engineState).where(eq(engineState.id, 1)).get();
    const lease = { holder: 'h1', holderHost: 'host', holderPid: 42, leaseExpiresAt: 30_000 };
    // No row yet: each write creates it; the sim time only ever rises; a clear by another holder changes nothing.
    raiseSimTime(mine, 50);
    theirs
      .insert(engineState)
      .values({ id: 1, simNow: 50 })
      .onConflictDoUpdate({ target: engineState.id, set: { simNow: sql`max(${engineState.simNow}, 50)` } })
      .run();
    expect(row(mine)).toStrictEqual(row(theirs));
    writeEngineLease(mine, lease);
    theirs
      .insert(engineState)
      .values({ id: 1, ...lease })
      .onConflictDoUpdate({ target: engineState.id, set: lease })
      .run();
    expect(row(mine)).toStrictEqual(row(theirs));
    raiseSimTime(mine, 20);
    expect(engineStateRow(mine)).toStrictEqual({ id: 1, ...lease, simNow: 50 });
    raiseSimTime(mine, 70);
    clearEngineLease(mine, 'someone else');
    expect(engineStateRow(mine)).toStrictEqual({ id: 1, ...lease, simNow: 70 });
    clearEngineLease(mine, 'h1');
    expect(engineStateRow(mine)).toStrictEqual({ id: 1, holder: null, holderHost: 'host', holderPid: 42, leaseExpiresAt: 0, simNow: 70 });
    // A lease written first creates the row with the sim time at its default.
    const fresh = variedCtx().db;
    writeEngineLease(fresh, lease);
    expect(engineStateRow(fresh)).toStrictEqual({ id: 1, ...lease, simNow: 0 });
  });

  it('looks a URL up on the exclusion list', () => {
    const { db } = variedCtx();
    db.insert(exclusions).values({ networkUrl: 'https://www.linkedin.com/in/x', createdAt: 1 }).run();
    for (const u of ['https://www.linkedin.com/in/x', 'https://www.linkedin.com/in/y'])
      expect(exclusionStatements(db).has.get(u)).toBe(db.select({ one: sql<number>`1` }).from(exclusions).where(eq(exclusions.networkUrl, u)).get()?.one);
  });

  it('records an outbox event as the query builder would', () => {
    const [a, b] = [variedCtx(), variedCtx()];
    const e = { id: 'evt_1', type: 'lead.replied', createdAt: 9, payload: '{"a":1}' };
    webhookStatements(a.db).insertEvent.run(e);
    b.db.insert(webhookEvents).values(e).run();
    const all = (db: Db) => db.select().from(webhookEvents).all();
    expect(all(a.db)).toStrictEqual(all(b.db));
  });
});
