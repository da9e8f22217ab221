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

  it("reads the accounts' invitations, messages, visits and likes of a span of days", () => {
    const { db } = variedCtx();
    const rows = [
      { accountId: 'acc_a', day: '2026-01-01', connectionRequestsSent: 3, messagesSent: 1, profileVisits: 2, postReactions: 5 },
      { accountId: 'acc_a', day: '2026-01-08', connectionRequestsSent: 4, messagesSent: 0 },
      { accountId: 'acc_b', day: '2026-01-03', connectionRequestsSent: 0, messagesSent: 9 },
      { accountId: 'acc_c', day: '2026-01-03', connectionRequestsSent: 1, messagesSent: 1 },
    ];
    db.insert(accountDaily).values(rows).run();
    const sort = <R extends { accountId: string; day: string }>(r: R[]) =>
      r.sort((x, y) => x.accountId.localeCompare(y.accountId) || x.day.localeCompare(y.day));
    const got = activityStatements(db).dailyOfMany.all({ ids: JSON.stringify(['acc_a', 'acc_b']), from: '2026-01-01', to: '2026-01-07' });
    const want = db
      .select({
        accountId: accountDaily.accountId,
        day: accountDaily.day,
        conn: accountDaily.connectionRequestsSent,
        msgs: accountDaily.messagesSent,
        visits: accountDaily.profileVisits,
        reactions: accountDaily.postReactions,
      })
      .from(accountDaily)
      .where(and(sql`${accountDaily.accountId} IN ('acc_a', 'acc_b')`, between(accountDaily.day, '2026-01-01', '2026-01-07')))
      .all();
    expect(sort(got)).toStrictEqual(sort(want));
    expect(got).toHaveLength(2);
  });
});
