import { and, asc, eq, gt, ne } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { accountDaily, accounts } from '../../db/schema.js';
import { countRows } from '../../db/tx.js';

/**
 * SQL of the sending accounts and their daily counters, for the verbs of this folder: the
 * listing (./list.ts), the lookup cache (./resolve.ts), connecting and editing (./manage.ts)
 * and the provider's sync (./sync.ts).
 */

export type AccountRow = typeof accounts.$inferSelect;
export type AccountDailyRow = typeof accountDaily.$inferSelect;
export type NewAccountRow = typeof accounts.$inferInsert;

/** Every account, in no particular order (./resolve.ts caches them by id). */
export const accountRows = (db: Db): AccountRow[] => db.select().from(accounts).all();

/** One account's whole row, read from the table (not the cache). */
export const accountRowById = (db: Db, id: string): AccountRow | undefined => db.select().from(accounts).where(eq(accounts.id, id)).get();

/** Whether an account has this id. */
export const accountIdExists = (db: Db, id: string): boolean => countRows(db, accounts, eq(accounts.id, id)) > 0;

/** Whether an account has this seq (a listing cursor's position). */
export const accountSeqExists = (db: Db, seq: number): boolean => countRows(db, accounts, eq(accounts.seq, seq)) > 0;

/** The account linked to this provider account, if any. */
export const accountByProviderAccountId = (db: Db, providerAccountId: string): { id: string } | undefined =>
  db.select({ id: accounts.id }).from(accounts).where(eq(accounts.providerAccountId, providerAccountId)).get();

/** Every account's id, provider link and status. */
export const accountProviderLinks = (db: Db): { id: string; providerAccountId: string | null; status: string }[] =>
  db.select({ id: accounts.id, providerAccountId: accounts.providerAccountId, status: accounts.status }).from(accounts).all();

/** Stores a new account's row. */
export function insertAccountRow(db: Db, row: NewAccountRow): void {
  db.insert(accounts).values(row).run();
}

/** Writes the given columns of one account. */
export function updateAccountRow(db: Db, id: string, set: Partial<NewAccountRow>): void {
  db.update(accounts).set(set).where(eq(accounts.id, id)).run();
}

/** Deletes one account's row. */
export function deleteAccountRow(db: Db, id: string): void {
  db.delete(accounts).where(eq(accounts.id, id)).run();
}

/** Sets the account's Sales Navigator flag where it differs; returns how many rows changed (0 or 1). */
export const setSalesNavigatorWhereDifferent = (db: Db, id: string, hasSalesNavigator: boolean): number =>
  db
    .update(accounts)
    .set({ hasSalesNavigator })
    .where(and(eq(accounts.id, id), ne(accounts.hasSalesNavigator, hasSalesNavigator)))
    .run().changes;

/** Up to `take` accounts after seq `after`, in seq order, each with its counters of `day` (null without a row). */
export const accountPageWithDay = (db: Db, day: string, after: number, take: number): { a: AccountRow; d: AccountDailyRow | null }[] =>
  db
    .select({ a: accounts, d: accountDaily })
    .from(accounts)
    .leftJoin(accountDaily, and(eq(accountDaily.accountId, accounts.id), eq(accountDaily.day, day)))
    .where(gt(accounts.seq, after))
    .orderBy(asc(accounts.seq))
    .limit(take)
    .all();

/** One account with its counters of `day` (null without a row). */
export const accountWithDay = (db: Db, id: string, day: string): { a: AccountRow; d: AccountDailyRow | null } | undefined =>
  db
    .select({ a: accounts, d: accountDaily })
    .from(accounts)
    .leftJoin(accountDaily, and(eq(accountDaily.accountId, accounts.id), eq(accountDaily.day, day)))
    .where(eq(accounts.id, id))
    .get();
