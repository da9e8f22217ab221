import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Each network account's provider calls of one UTC day, as the lock-step rule compares them
 * (core/outreach/lockstep.ts): the minutes of the day the calls were made in, in order, joined
 * by commas (operators' manual sends and emails left out, as the safety audit leaves them out).
 * Written with each intent the engine records; read to find another account with the very same
 * minutes, one lookup in the (day, minutes) index instead of reading every call of two minutes.
 * Internal: never returned.
 */
export const accountCallMinutes = sqliteTable(
  'account_call_minutes',
  {
    accountId: text('account_id').notNull(),
    /** The UTC day: sim-clock ms ÷ 86,400,000, rounded down. */
    day: integer('day').notNull(),
    /** The minutes of the day (0 to 1439) of the day's calls, in order, comma-joined. */
    minutes: text('minutes').notNull(),
    calls: integer('calls').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] }), index('account_call_minutes_day').on(t.day, t.minutes, t.accountId)],
);
