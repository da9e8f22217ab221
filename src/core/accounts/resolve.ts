import { eq, sql } from 'drizzle-orm';
import { perDb } from '../../db/prepared.js';
import { accounts } from '../../db/schema.js';
import type { AccountRef } from '../network/provider.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';

export type AccountRow = typeof accounts.$inferSelect;

// Prepared once per database: the engine looks its accounts up before every send.
const accountById = perDb((db) => db.select().from(accounts).where(eq(accounts.id, sql.placeholder('id'))).prepare());

export function findAccount(ctx: Ctx, id: string): AccountRow | undefined {
  return accountById(ctx.db).get({ id });
}

// One statement for many: the engine's tick reads every account with work waiting at once.
const accountsByIds = perDb((db) =>
  db.select().from(accounts).where(sql`${accounts.id} IN (SELECT value FROM json_each(${sql.placeholder('ids')}))`).prepare(),
);

/** The accounts with these ids, by id (unknown ids are left out). */
export function findAccounts(ctx: Ctx, ids: readonly string[]): Map<string, AccountRow> {
  if (ids.length === 0) return new Map();
  return new Map(accountsByIds(ctx.db).all({ ids: JSON.stringify([...new Set(ids)]) }).map((a) => [a.id, a]));
}

/** The account, or 404 not_found (self-hosting.md, Accounts: unknown accountId on lookup, search or send). */
export function requireAccount(ctx: Ctx, id: string): AccountRow {
  const row = findAccount(ctx, id);
  if (!row) throw new ApiError('not_found', `Account ${id} not found. Call list_accounts (GET /accounts) for valid ids.`);
  return row;
}

export const accountDisconnected = (row: Pick<AccountRow, 'id' | 'status'>): ApiError =>
  new ApiError(
    'account_disconnected',
    `Account ${row.id} is ${row.status}, not connected. Reconnect it, or use a connected account from list_accounts.`,
  );

/** The account, which must exist and be `connected`. */
export function requireConnectedAccount(ctx: Ctx, id: string): AccountRow {
  const row = requireAccount(ctx, id);
  if (row.status !== 'connected') throw accountDisconnected(row);
  return row;
}

/** What the network provider needs to know about an account. */
export const accountRef = (row: AccountRow): AccountRef => ({ id: row.id, hasSalesNavigator: row.hasSalesNavigator });
