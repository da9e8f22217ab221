import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';
import { creditBalance, creditLedger } from '../../db/schema.js';

/**
 * SQL of the credit balance (one row, id 1) and its ledger. Every movement of a balance is a
 * guarded UPDATE (with the table's CHECK, no balance goes below zero) and a ledger row, both
 * written by the caller's transaction.
 */

/** The four balances, as the schema names them in code. */
export type BalanceField = 'credits' | 'topUpCredits' | 'lookalikeCredits' | 'lookalikeTopUpCredits';

/** The ledger's name of each balance. */
export const LEDGER_BUCKETS: Record<BalanceField, string> = {
  credits: 'credits',
  topUpCredits: 'top_up_credits',
  lookalikeCredits: 'lookalike_credits',
  lookalikeTopUpCredits: 'lookalike_top_up_credits',
};

export type CreditBalanceRow = typeof creditBalance.$inferSelect;

/** Normal credits are spent before top-up credits (self-hosting.md, Credits). */
const LEAD_CREDIT_ORDER = ['credits', 'topUpCredits'] as const;

/** Every created lead and every request's balance read run these, so they are prepared once per connection. */
const statements = perDb((db) => ({
  balance: db.select().from(creditBalance).where(eq(creditBalance.id, 1)).prepare(),
  spends: LEAD_CREDIT_ORDER.map((field) => {
    const column = creditBalance[field];
    const spend = db
      .update(creditBalance)
      .set({ [field]: sql`${column} - 1` })
      .where(and(eq(creditBalance.id, 1), gte(column, 1)))
      .prepare();
    return { bucket: LEDGER_BUCKETS[field], spend };
  }),
  ledger: db
    .insert(creditLedger)
    .values({
      at: sql.placeholder('at'),
      bucket: sql.placeholder('bucket'),
      delta: sql.placeholder('delta'),
      reason: sql.placeholder('reason'),
      ref: sql.placeholder('ref'),
    })
    .prepare(),
}));

/** The balance row as it stands (undefined before the first grant). */
export const balanceRow = (db: Db): CreditBalanceRow | undefined => statements(db).balance.get();

/** One ledger row: `delta` moved `bucket` at `at`, for `reason` and `ref`. */
export function recordCreditMove(db: Db, move: { at: number; bucket: string; delta: number; reason: string; ref: string }): void {
  statements(db).ledger.run(move);
}

/**
 * Spends one normal credit (plan balance first, then top-up) and writes its ledger row for the
 * lead `ref`; false, with nothing written, when none is left.
 */
export function spendLeadCredit(db: Db, at: number, ref: string): boolean {
  for (const { bucket, spend } of statements(db).spends) {
    if (spend.run().changes === 1) {
      recordCreditMove(db, { at, bucket, delta: -1, reason: 'lead_created', ref });
      return true;
    }
  }
  return false;
}

/** Sets the normal credits to `credits` and the top-up to none: a rehearsed import's balance, rolled back with it. */
export function setRehearsalCredits(db: Db, credits: number): void {
  db.update(creditBalance).set({ credits, topUpCredits: 0 }).run();
}

/** Makes sure the balance row exists (a grant on a fresh database). */
export function ensureBalanceRow(db: Db): void {
  db.insert(creditBalance).values({ id: 1 }).onConflictDoNothing().run();
}

/** Moves one balance by `delta` unless that would take it below zero; false when it did not move. */
export function moveBalance(db: Db, field: BalanceField, delta: number): boolean {
  const column = creditBalance[field];
  return (
    db
      .update(creditBalance)
      .set({ [field]: sql`${column} + ${delta}` })
      .where(and(eq(creditBalance.id, 1), gte(column, Math.max(0, -delta))))
      .run().changes === 1
  );
}
