import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { accountDaily, accounts, activity, agents, creditBalance, creditLedger, exclusions, leads } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/**
 * SQL of loading a workspace file (./load.ts): each row is written as the file gives it, in the
 * loader's one transaction. (The workspace's own row is the workspace store's, ../workspace/store.ts.)
 */

type Conn = Pick<Ctx, 'db'>;

/** Inserts one row of `table` as given: every insert of the loader but the exclusions'. */
const inserter =
  <T extends SQLiteTable>(table: T) =>
  (ctx: Conn, row: T['$inferInsert']): void => {
    ctx.db.insert(table).values(row).run();
  };

/** Inserts the credit balance row (id 1) with the file's balances. */
export const insertBalanceRow = inserter(creditBalance);

/** Inserts one credit ledger row. */
export const insertLedgerRow = inserter(creditLedger);

/** Inserts one account row. */
export const insertSeededAccount = inserter(accounts);

/** Inserts one account's counters of a day. */
export const insertSeededAccountDay = inserter(accountDaily);

/** Inserts one agent row. */
export const insertSeededAgent = inserter(agents);

/** Inserts one lead row. */
export const insertSeededLead = inserter(leads);

/** Inserts one activity event. */
export const insertSeededActivity = inserter(activity);

/** Puts a profile URL (normalised) on the exclusion list; one already there stays as it is. */
export function insertSeededExclusion(ctx: Conn, row: typeof exclusions.$inferInsert): void {
  ctx.db.insert(exclusions).values(row).onConflictDoNothing().run();
}
