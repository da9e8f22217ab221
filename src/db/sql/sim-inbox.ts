import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { perDb, selectList } from '../prepared.js';
import { simInbox } from '../schema.js';

/* The simulated network's inbox: every simulated send schedules an answer, every tick asks what is due. */

export type SimInboxRow = typeof simInbox.$inferSelect;
export type ScheduledRow = Omit<SimInboxRow, 'deliveredAt'>;

export interface SimInboxStatements {
  /** changes 0 when the id was scheduled before. */
  schedule: Statement<[ScheduledRow]>;
  /** Marks the ids in the JSON array `ids` delivered, unless they were. */
  ack: Statement<[{ ids: string; at: number }]>;
  /** Undelivered rows due at `now`, in time order, at most `limit`. */
  due: Statement<[{ now: number; limit: number }], SimInboxRow>;
  /** Adds one to the simulator's tally `key` and answers the count after it. */
  tally: Statement<[{ key: string }], number>;
}

export const simInboxStatements: (db: Db) => SimInboxStatements = perDb((db) => {
  const c = db.$client;
  return {
    schedule: c.prepare<[ScheduledRow]>(
      `INSERT INTO sim_inbox (id, type, account_id, network_url, provider_id, chat_id, text, at)
       VALUES (@id, @type, @accountId, @networkUrl, @providerId, @chatId, @text, @at) ON CONFLICT DO NOTHING`,
    ),
    // `+delivered_at` keeps SQLite off the due index: without statistics it would walk every
    // undelivered event (2 ms at 20,000) instead of looking the ids up (7 µs).
    ack: c.prepare('UPDATE sim_inbox SET delivered_at = @at WHERE id IN (SELECT value FROM json_each(@ids)) AND +delivered_at IS NULL'),
    due: c.prepare(`SELECT ${selectList(simInbox)} FROM sim_inbox WHERE delivered_at IS NULL AND at <= @now ORDER BY at, id LIMIT (SELECT @limit)`),
    tally: c
      .prepare<[{ key: string }], number>(
        'INSERT INTO sim_tallies (key, count) VALUES (@key, 1) ON CONFLICT (key) DO UPDATE SET count = count + 1 RETURNING count',
      )
      .pluck(),
  };
});
