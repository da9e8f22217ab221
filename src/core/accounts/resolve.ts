import { cached } from '../../db/cache.js';
import type { AccountRef } from '../network/provider.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { findMailbox } from '../mailboxes/store.js';
import { type AccountRow, accountRows } from './store.js';

export type { AccountRow } from './store.js';

/**
 * Every account by id, kept while the `accounts` counter stands still: the engine looks its
 * accounts up for every send, and a workspace has a few hundred at most. Shared and frozen.
 */
const allAccounts = cached('accounts', (db) => new Map(accountRows(db).map((a) => [a.id, Object.freeze(a)])));

export function findAccount(ctx: Ctx, id: string): AccountRow | undefined {
  return allAccounts(ctx.db).get(id);
}

/** The accounts with these ids, by id (unknown ids are left out). */
export function findAccounts(ctx: Ctx, ids: readonly string[]): Map<string, AccountRow> {
  const all = allAccounts(ctx.db);
  const out = new Map<string, AccountRow>();
  for (const id of ids) {
    const account = all.get(id);
    if (account) out.set(id, account);
  }
  return out;
}

/**
 * What a confirmation calls a sender: a LinkedIn account by its name; a mailbox (an email
 * draft's sender) by its name, else its address (a mailbox loaded from a workspace file without
 * a name holds its id as its name, which tells a person nothing); else the id itself.
 */
function senderName(ctx: Ctx, known: ReadonlyMap<string, AccountRow>, id: string): string {
  const account = known.get(id);
  if (account) return account.name;
  const mailbox = findMailbox(ctx, id);
  if (!mailbox) return id;
  return mailbox.name.trim() !== '' && mailbox.name !== mailbox.id ? mailbox.name : mailbox.address;
}

/**
 * Counts per sender, named and ordered for a confirmation: most first, then by name; `name` is
 * the account's or mailbox's name (see senderName), else its id (null stays null: a send with
 * no sender known yet).
 */
export function namedAccountCounts(ctx: Ctx, counts: ReadonlyMap<string | null, number>): { accountId: string | null; name: string | null; count: number }[] {
  const known = findAccounts(
    ctx,
    [...counts.keys()].filter((id): id is string => id !== null),
  );
  return [...counts.entries()]
    .map(([accountId, count]) => ({ accountId, name: accountId === null ? null : senderName(ctx, known, accountId), count }))
    .sort((a, b) => b.count - a.count || String(a.name).localeCompare(String(b.name)));
}

/** The account, or 404 not_found (self-hosting.md, Accounts: unknown accountId on lookup, search or send). */
export function requireAccount(ctx: Ctx, id: string): AccountRow {
  const row = findAccount(ctx, id);
  if (!row) throw new ApiError('not_found', `Account ${id} not found. Call list_accounts (GET /accounts) for valid ids.`);
  return row;
}

export const accountDisconnected = (row: Pick<AccountRow, 'id' | 'status'>): ApiError =>
  new ApiError('account_disconnected', `Account ${row.id} is ${row.status}, not connected. Reconnect it, or use a connected account from list_accounts.`);

/** The account, which must exist and be `connected`. */
export function requireConnectedAccount(ctx: Ctx, id: string): AccountRow {
  const row = requireAccount(ctx, id);
  if (row.status !== 'connected') throw accountDisconnected(row);
  return row;
}

/** What the network provider needs to know about an account. */
export const accountRef = (row: AccountRow): AccountRef => ({ id: row.id, hasSalesNavigator: row.hasSalesNavigator });
