import { and, eq, sql } from 'drizzle-orm';
import { accountDaily } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/** SQL of the per-account daily quota counters (`account_daily`, one row per account and UTC day). */

type Conn = Pick<Ctx, 'db'>;

/** A daily counter, as the schema names it in code. */
export type DailyCounter = 'profileLookups' | 'searchResults';

const COLUMNS = { profileLookups: accountDaily.profileLookups, searchResults: accountDaily.searchResults } as const;

const counter = <V>(name: DailyCounter, value: V) => (name === 'profileLookups' ? { profileLookups: value } : { searchResults: value });

/** How much of the counter the account used on `day` (0 before the first use). */
export function dailyCount(ctx: Conn, name: DailyCounter, accountId: string, day: string): number {
  const row = ctx.db
    .select({ used: COLUMNS[name] })
    .from(accountDaily)
    .where(and(eq(accountDaily.accountId, accountId), eq(accountDaily.day, day)))
    .get();
  return row?.used ?? 0;
}

/** Adds `n` to the account's counter of `day`, creating the day's row on its first use. */
export function addToDailyCount(ctx: Conn, name: DailyCounter, accountId: string, day: string, n: number): void {
  ctx.db
    .insert(accountDaily)
    .values({ accountId, day, ...counter(name, n) })
    .onConflictDoUpdate({ target: [accountDaily.accountId, accountDaily.day], set: counter(name, sql`${COLUMNS[name]} + ${n}`) })
    .run();
}

/** Gives `n` back to the account's counter of `day`, never below zero. */
export function takeFromDailyCount(ctx: Conn, name: DailyCounter, accountId: string, day: string, n: number): void {
  ctx.db
    .update(accountDaily)
    .set(counter(name, sql`max(0, ${COLUMNS[name]} - ${n})`))
    .where(and(eq(accountDaily.accountId, accountId), eq(accountDaily.day, day)))
    .run();
}
