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

export interface DailyRow {
  accountId: string;
  day: string;
  conn: number;
  msgs: number;
  visits: number;
  reactions: number;
}

export interface ActivityStatements {
  /** Adds one to a lifetime counter of the workspace (row 1). */
  countWorkspace: Record<WorkspaceCounter, Statement<[]>>;
  /** Adds one to an account's counter of a day, creating the day's row. */
  countDaily: Record<DailyCounter, Statement<[{ accountId: string; day: string }]>>;
  /** The invitations, messages, visits and likes of the accounts in the JSON array `ids`, on the days from..to (YYYY-MM-DD). */
  dailyOfMany: Statement<[{ ids: string; from: string; to: string }], DailyRow>;
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
    dailyOfMany: c.prepare(
      `SELECT account_id AS accountId, day, connection_requests_sent AS conn, messages_sent AS msgs,
         profile_visits AS visits, post_reactions AS reactions FROM account_daily
       WHERE account_id IN (SELECT value FROM json_each(@ids)) AND day BETWEEN @from AND @to`,
    ),
  };
});
