import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** The checks make a negative balance impossible even for a writer that forgets to test first. */
export const creditBalance = sqliteTable(
  'credit_balance',
  {
    id: integer('id').primaryKey(),
    credits: integer('credits').notNull().default(0),
    topUpCredits: integer('top_up_credits').notNull().default(0),
    lookalikeCredits: integer('lookalike_credits').notNull().default(0),
    lookalikeTopUpCredits: integer('lookalike_top_up_credits').notNull().default(0),
  },
  (t) => [
    check('credit_balance_credits_nonnegative', sql`${t.credits} >= 0`),
    check('credit_balance_top_up_nonnegative', sql`${t.topUpCredits} >= 0`),
    check('credit_balance_lookalike_nonnegative', sql`${t.lookalikeCredits} >= 0`),
    check('credit_balance_lookalike_top_up_nonnegative', sql`${t.lookalikeTopUpCredits} >= 0`),
  ],
);

/** Every movement of a balance. balance(now) = balance(seed) + sum(delta). */
export const creditLedger = sqliteTable(
  'credit_ledger',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    /** credits | top_up_credits | lookalike_credits | lookalike_top_up_credits */
    bucket: text('bucket').notNull(),
    delta: integer('delta').notNull(),
    /** lead_created | lookalike_reserve | lookalike_refund | seed | adjustment | grant */
    reason: text('reason').notNull(),
    ref: text('ref'),
  },
  (t) => [index('credit_ledger_ref').on(t.ref)],
);
