import { and, between, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/connection.js';
import { accountDaily, activity, workspace } from '../../../src/db/schema.js';
import { activityStatements, insertActivity } from '../../../src/db/sql/activity.js';
import { variedCtx } from './helpers.js';

/** src/db/sql/activity.ts returns and writes what the query builder would. */
describe('activity and counter statements', () => {
  const table = (db: Db) => ({
    activity: db.select().from(activity).orderBy(activity.seq).all(),
    daily: db.select().from(accountDaily).orderBy(accountDaily.accountId, accountDaily.day).all(),
    workspace: db
      .select({ c: workspace.connectionRequestsSent, a: workspace.connectionRequestsAccepted, m: workspace.messagesSent, r: workspace.repliesReceived })
      .from(workspace)
      .all(),
  });

  it('records activity, workspace and daily counters as the query builder would', () => {
    const [a, b] = [variedCtx(), variedCtx()];
    const events = [
      { id: 'act_1', type: 'connection_request_sent', at: 5, leadId: 'lead_1', leadName: 'Ann', campaignId: 'cmp', accountId: 'acc_a', manual: false },
      { id: 'act_2', type: 'message_sent', at: 6, leadId: 'lead_1', campaignId: 'cmp', messagePreview: 'Hi', accountId: null, manual: true },
    ];
    for (const e of events) {
      insertActivity(a.db, e);
      b.db.insert(activity).values(e).run();
    }
    const s = activityStatements(a.db);
    s.countWorkspace.messagesSent.run();
    s.countWorkspace.messagesSent.run();
    s.countDaily.connectionRequestsSent.run({ accountId: 'acc_a', day: '2026-01-01' });
    s.countDaily.connectionRequestsSent.run({ accountId: 'acc_a', day: '2026-01-01' });
    s.countDaily.messagesSent.run({ accountId: 'acc_a', day: '2026-01-02' });
    s.countDaily.profileVisits.run({ accountId: 'acc_a', day: '2026-01-02' });
    s.countDaily.postReactions.run({ accountId: 'acc_a', day: '2026-01-03' });
    b.db
      .update(workspace)
      .set({ messagesSent: sql`${workspace.messagesSent} + 2` })
      .run();
    // The upsert the query builder wrote before (src/core/activity/record.ts).
    const upsert = (day: string, counter: 'connectionRequestsSent' | 'messagesSent' | 'profileVisits' | 'postReactions') =>
      b.db
        .insert(accountDaily)
        .values({ accountId: 'acc_a', day, [counter]: 1 })
        .onConflictDoUpdate({ target: [accountDaily.accountId, accountDaily.day], set: { [counter]: sql`${accountDaily[counter]} + 1` } })
        .run();
    upsert('2026-01-01', 'connectionRequestsSent');
    upsert('2026-01-01', 'connectionRequestsSent');
    upsert('2026-01-02', 'messagesSent');
    upsert('2026-01-02', 'profileVisits');
    upsert('2026-01-03', 'postReactions');
    expect(table(a.db)).toStrictEqual(table(b.db));
  });

  it("reads each account's week in one row: invitations day by day, today's messages, visits and likes", () => {
    const { db } = variedCtx();
    const rows = [
      { accountId: 'acc_a', day: '2026-01-01', connectionRequestsSent: 3, messagesSent: 1, profileVisits: 2, postReactions: 5 },
      { accountId: 'acc_a', day: '2026-01-04', connectionRequestsSent: 2, messagesSent: 6 },
      { accountId: 'acc_a', day: '2026-01-07', connectionRequestsSent: 1, messagesSent: 4, profileVisits: 3, postReactions: 1 },
      // Outside the week, and an account not asked for.
      { accountId: 'acc_a', day: '2026-01-08', connectionRequestsSent: 4, messagesSent: 0 },
      { accountId: 'acc_a', day: '2025-12-31', connectionRequestsSent: 9 },
      { accountId: 'acc_b', day: '2026-01-03', connectionRequestsSent: 0, messagesSent: 9 },
      { accountId: 'acc_c', day: '2026-01-03', connectionRequestsSent: 1, messagesSent: 1 },
      // Asked for, with nothing in the week: no row.
      { accountId: 'acc_d', day: '2026-01-09', connectionRequestsSent: 5 },
    ];
    db.insert(accountDaily).values(rows).run();
    const days = { d0: '2026-01-01', d1: '2026-01-02', d2: '2026-01-03', d3: '2026-01-04', d4: '2026-01-05', d5: '2026-01-06', d6: '2026-01-07' };
    const ids = ['acc_a', 'acc_b', 'acc_d'];
    const got = activityStatements(db).weekOfMany.all({ ids: JSON.stringify(ids), ...days });
    // The same week from the query builder's rows, summed here.
    const dayRows = db
      .select()
      .from(accountDaily)
      .where(and(sql`${accountDaily.accountId} IN ('acc_a', 'acc_b', 'acc_d')`, between(accountDaily.day, days.d0, days.d6)))
      .all();
    const order = Object.values(days);
    const want = [...new Set(dayRows.map((r) => r.accountId))].map((accountId) => {
      const mine = dayRows.filter((r) => r.accountId === accountId);
      const on = (i: number) => mine.find((r) => r.day === order[i]);
      const conn = (i: number) => on(i)?.connectionRequestsSent ?? 0;
      return {
        accountId,
        conn0: conn(0),
        conn1: conn(1),
        conn2: conn(2),
        conn3: conn(3),
        conn4: conn(4),
        conn5: conn(5),
        conn6: conn(6),
        msgs: on(6)?.messagesSent ?? 0,
        visits: on(6)?.profileVisits ?? 0,
        reactions: on(6)?.postReactions ?? 0,
      };
    });
    const byId = <R extends { accountId: string }>(r: R[]) => [...r].sort((x, y) => x.accountId.localeCompare(y.accountId));
    expect(byId(got)).toStrictEqual(byId(want));
    expect(byId(got)).toStrictEqual([
      { accountId: 'acc_a', conn0: 3, conn1: 0, conn2: 0, conn3: 2, conn4: 0, conn5: 0, conn6: 1, msgs: 4, visits: 3, reactions: 1 },
      { accountId: 'acc_b', conn0: 0, conn1: 0, conn2: 0, conn3: 0, conn4: 0, conn5: 0, conn6: 0, msgs: 0, visits: 0, reactions: 0 },
    ]);
  });
});
