import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { inserterOf, perDb } from '../prepared.js';
import { activity } from '../schema.js';

/*
 * Statements the engine runs for every event it records: the activity row, the workspace's
 * lifetime counters and the account's counters of the day (account_daily), which the safety
 * rules read back before every send.
 */

export const insertActivity = inserterOf(activity);

export type WorkspaceCounter = 'connectionRequestsSent' | 'connectionRequestsAccepted' | 'messagesSent' | 'repliesReceived';
export type DailyCounter = 'connectionRequestsSent' | 'connectionRequestsAccepted' | 'messagesSent' | 'profileVisits' | 'postReactions';

const WORKSPACE_COLUMN: Record<WorkspaceCounter, string> = {
  connectionRequestsSent: 'connection_requests_sent',
  connectionRequestsAccepted: 'connection_requests_accepted',
  messagesSent: 'messages_sent',
  repliesReceived: 'replies_received',
};
const DAILY_COLUMN: Record<DailyCounter, string> = {
  connectionRequestsSent: 'connection_requests_sent',
  connectionRequestsAccepted: 'connection_requests_accepted',
  messagesSent: 'messages_sent',
  profileVisits: 'profile_visits',
  postReactions: 'post_reactions',
};

/** The seven UTC days (YYYY-MM-DD) of a rolling week, oldest first: `d6` is today. */
export interface WeekDays {
  d0: string;
  d1: string;
  d2: string;
  d3: string;
  d4: string;
  d5: string;
  d6: string;
}

/** One account's counters over a rolling week (`WeekDays`): one row an account, not one a day. */
export interface WeekRow {
  accountId: string;
  /** Invitations sent on each day of the week, `conn0` six days before today, `conn6` today. */
  conn0: number;
  conn1: number;
  conn2: number;
  conn3: number;
  conn4: number;
  conn5: number;
  conn6: number;
  /** Today's messages, profile visits and post likes. */
  msgs: number;
  visits: number;
  reactions: number;
}

export interface ActivityStatements {
  /** Adds one to a lifetime counter of the workspace (row 1). */
  countWorkspace: Record<WorkspaceCounter, Statement<[]>>;
  /** Adds one to an account's counter of a day, creating the day's row. */
  countDaily: Record<DailyCounter, Statement<[{ accountId: string; day: string }]>>;
  /**
   * The week of each account in the JSON array `ids` that has a counter in it: its invitations
   * day by day, and today's messages, visits and likes. Summed in SQLite, so an account costs one
   * row, not seven: the rows were most of the read's time (bench/METHOD.md).
   */
  weekOfMany: Statement<[{ ids: string } & WeekDays], WeekRow>;
}

export const activityStatements: (db: Db) => ActivityStatements = perDb((db) => {
  const c = db.$client;
  const map = <K extends string, V>(keys: Record<K, string>, f: (column: string) => V): Record<K, V> =>
    Object.fromEntries(Object.entries<string>(keys).map(([k, col]) => [k, f(col)])) as Record<K, V>;
  return {
    countWorkspace: map(WORKSPACE_COLUMN, (col) => c.prepare<[]>(`UPDATE workspace SET ${col} = ${col} + 1 WHERE id = 1`)),
    countDaily: map(DAILY_COLUMN, (col) =>
      c.prepare<[{ accountId: string; day: string }]>(
        `INSERT INTO account_daily (account_id, day, ${col}) VALUES (@accountId, @day, 1)
         ON CONFLICT (account_id, day) DO UPDATE SET ${col} = ${col} + 1`,
      ),
    ),
    weekOfMany: c.prepare(
      `SELECT account_id AS accountId,
         sum(CASE WHEN day = @d0 THEN connection_requests_sent ELSE 0 END) AS conn0,
         sum(CASE WHEN day = @d1 THEN connection_requests_sent ELSE 0 END) AS conn1,
         sum(CASE WHEN day = @d2 THEN connection_requests_sent ELSE 0 END) AS conn2,
         sum(CASE WHEN day = @d3 THEN connection_requests_sent ELSE 0 END) AS conn3,
         sum(CASE WHEN day = @d4 THEN connection_requests_sent ELSE 0 END) AS conn4,
         sum(CASE WHEN day = @d5 THEN connection_requests_sent ELSE 0 END) AS conn5,
         sum(CASE WHEN day = @d6 THEN connection_requests_sent ELSE 0 END) AS conn6,
         sum(CASE WHEN day = @d6 THEN messages_sent ELSE 0 END) AS msgs,
         sum(CASE WHEN day = @d6 THEN profile_visits ELSE 0 END) AS visits,
         sum(CASE WHEN day = @d6 THEN post_reactions ELSE 0 END) AS reactions
       FROM account_daily
       WHERE account_id IN (SELECT value FROM json_each(@ids)) AND day BETWEEN @d0 AND @d6
       GROUP BY account_id`,
    ),
  };
});
