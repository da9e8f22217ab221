import type { Statement } from 'better-sqlite3';
import { perDb } from '../../db/prepared.js';
import type { Ctx } from '../context.js';

/** SQL of the per-account daily quota counters (`account_daily`, one row per account and UTC day). */

type Conn = Pick<Ctx, 'db'>;

/** A daily counter, as the schema names it in code. */
export type DailyCounter = 'profileLookups' | 'searchResults';

/** The counter's column: fixed names, never input. */
const COLUMN: Record<DailyCounter, string> = { profileLookups: 'profile_lookups', searchResults: 'search_results' };

interface Change {
  accountId: string;
  day: string;
  n: number;
}

interface CounterStatements {
  read: Statement<[string, string], number>;
  add: Statement<[Change]>;
  take: Statement<[Change]>;
}

/**
 * Prepared once per connection and counter: every lookup and search page reads its counter and
 * writes it (lookup_profile, people search, the engine's enrichment), where building the query
 * each time cost more than running it.
 */
const statements = perDb((db): Record<DailyCounter, CounterStatements> => {
  const c = db.$client;
  const forColumn = (col: string): CounterStatements => ({
    read: c.prepare<[string, string], number>(`SELECT ${col} FROM account_daily WHERE account_id = ? AND day = ?`).pluck(),
    add: c.prepare<[Change]>(
      `INSERT INTO account_daily (account_id, day, ${col}) VALUES (@accountId, @day, @n) ON CONFLICT (account_id, day) DO UPDATE SET ${col} = ${col} + @n`,
    ),
    take: c.prepare<[Change]>(`UPDATE account_daily SET ${col} = max(0, ${col} - @n) WHERE account_id = @accountId AND day = @day`),
  });
  return { profileLookups: forColumn(COLUMN.profileLookups), searchResults: forColumn(COLUMN.searchResults) };
});

/** How much of the counter the account used on `day` (0 before the first use). */
export function dailyCount(ctx: Conn, name: DailyCounter, accountId: string, day: string): number {
  return statements(ctx.db)[name].read.get(accountId, day) ?? 0;
}

/** Adds `n` to the account's counter of `day`, creating the day's row on its first use. */
export function addToDailyCount(ctx: Conn, name: DailyCounter, accountId: string, day: string, n: number): void {
  statements(ctx.db)[name].add.run({ accountId, day, n });
}

/** Gives `n` back to the account's counter of `day`, never below zero. */
export function takeFromDailyCount(ctx: Conn, name: DailyCounter, accountId: string, day: string, n: number): void {
  statements(ctx.db)[name].take.run({ accountId, day, n });
}
