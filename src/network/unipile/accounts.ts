import { eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import { PATH_ID, newId } from '../../core/ids.js';
import { countRows, transaction } from '../../db/tx.js';
import type { Db } from '../../db/connection.js';
import { accounts } from '../../db/schema.js';
import type { AccountStatus } from '../provider.js';
import type { UnipileHttp } from './http.js';
import { accountStatus, hasSalesNavigator, UnipileAccount, UnipileAccountsResponse } from './mapping.js';
import { parseOrUpstream } from './parse.js';

export interface AccountSyncResult {
  created: string[];
  updated: string[];
  /** Linked accounts that Unipile no longer lists; they are marked `disconnected`. */
  missing: string[];
}

const PAGE = 100;
/** Unipile lists accounts of every provider; only LinkedIn ones are ours. */
const isLinkedIn = (a: UnipileAccount): boolean => (a.type ?? 'LINKEDIN').toUpperCase() === 'LINKEDIN';

/** Every LinkedIn account Unipile holds, following the cursor to the end. */
export async function fetchUnipileAccounts(http: UnipileHttp, log: Logger): Promise<UnipileAccount[]> {
  const out: UnipileAccount[] = [];
  let cursor: string | null = null;
  const seen = new Set<string>();
  do {
    const body = await http.call({ method: 'GET', path: '/accounts', query: { limit: PAGE, cursor: cursor ?? undefined }, idempotent: true, ctx: { kind: 'account', salesNav: false } });
    const page = parseOrUpstream(UnipileAccountsResponse, body, log, 'GET /accounts');
    for (const item of page.items) {
      const parsed = UnipileAccount.safeParse(item);
      if (parsed.success && isLinkedIn(parsed.data)) out.push(parsed.data);
    }
    cursor = page.cursor ?? null;
    // A cursor that repeats would loop forever; Unipile's never should, but we do not rely on it.
    if (cursor !== null && seen.has(cursor)) break;
    if (cursor !== null) seen.add(cursor);
  } while (cursor !== null);
  return out;
}

/** `acc_<unipile id>` when that is a valid, free id; otherwise a fresh random one. */
function newAccountId(db: Db, unipileId: string): string {
  const candidate = `acc_${unipileId.replace(/[^A-Za-z0-9_-]/g, '')}`.slice(0, 64);
  if (PATH_ID.test(candidate) && candidate.length > 4 && !countRows(db, accounts, eq(accounts.id, candidate))) return candidate;
  return newId('acc');
}

/**
 * Makes our `accounts` rows match Unipile: each LinkedIn account is matched on
 * `provider_account_id`; a new one gets a row (status, Sales Navigator and name from Unipile,
 * default daily limits); a known one gets its status and `hasSalesNavigator` refreshed (its
 * name, limits and `active` flag are the operator's and stay); a linked row whose account
 * Unipile no longer lists becomes `disconnected`. One transaction, after all network I/O.
 */
export function applyAccountSync(db: Db, now: number, list: readonly UnipileAccount[]): AccountSyncResult {
  return transaction(db, () => {
    const result: AccountSyncResult = { created: [], updated: [], missing: [] };
    const listed = new Set<string>();
    for (const a of list) {
      listed.add(a.id);
      const status: AccountStatus = accountStatus(a);
      const salesNav = hasSalesNavigator(a);
      const existing = db.select({ id: accounts.id }).from(accounts).where(eq(accounts.providerAccountId, a.id)).get();
      if (existing) {
        db.update(accounts).set({ status, hasSalesNavigator: salesNav }).where(eq(accounts.id, existing.id)).run();
        result.updated.push(existing.id);
      } else {
        const id = newAccountId(db, a.id);
        db.insert(accounts)
          .values({ id, name: a.name?.trim() || 'LinkedIn account', status, hasSalesNavigator: salesNav, providerAccountId: a.id, createdAt: now })
          .run();
        result.created.push(id);
      }
    }
    for (const row of db.select({ id: accounts.id, p: accounts.providerAccountId, status: accounts.status }).from(accounts).all()) {
      if (row.p !== null && !listed.has(row.p)) {
        if (row.status !== 'disconnected') db.update(accounts).set({ status: 'disconnected' }).where(eq(accounts.id, row.id)).run();
        result.missing.push(row.id);
      }
    }
    return result;
  });
}
