import type { Db } from '../../db/connection.js';
import { transaction } from '../../db/tx.js';
import { PATH_ID, newId } from '../ids.js';
import type { ProviderAccount } from '../network/provider.js';
import {
  accountByProviderAccountId,
  accountIdExists,
  accountProviderLinks,
  insertAccountRow,
  setSalesNavigatorWhereDifferent,
  updateAccountRow,
} from './store.js';

export interface AccountSyncResult {
  created: string[];
  updated: string[];
  /** Linked accounts that the provider no longer lists; they are marked `disconnected`. */
  missing: string[];
}

/** `acc_<provider account id>` when that is a valid, free id; otherwise a fresh random one. */
function newAccountId(db: Db, providerAccountId: string): string {
  const candidate = `acc_${providerAccountId.replace(/[^A-Za-z0-9_-]/g, '')}`.slice(0, 64);
  if (PATH_ID.test(candidate) && candidate.length > 4 && !accountIdExists(db, candidate)) return candidate;
  return newId('acc');
}

/**
 * Makes our `accounts` rows match the provider's (Unipile's) list: each account is matched on
 * `provider_account_id`; a new one gets a row (status, Sales Navigator and name from Unipile,
 * default daily limits); a known one gets its status and `hasSalesNavigator` refreshed (its
 * name, limits and `active` flag are the operator's and stay); a linked row whose account
 * Unipile no longer lists becomes `disconnected`. One transaction, after all network I/O.
 */
export function syncProviderAccounts(db: Db, now: number, list: readonly ProviderAccount[]): AccountSyncResult {
  return transaction(db, () => {
    const result: AccountSyncResult = { created: [], updated: [], missing: [] };
    const listed = new Set<string>();
    for (const a of list) {
      listed.add(a.providerAccountId);
      const { status, hasSalesNavigator: salesNav } = a;
      const existing = accountByProviderAccountId(db, a.providerAccountId);
      if (existing) {
        updateAccountRow(db, existing.id, { status, hasSalesNavigator: salesNav });
        result.updated.push(existing.id);
      } else {
        const id = newAccountId(db, a.providerAccountId);
        insertAccountRow(db, {
          id,
          name: a.name ?? 'LinkedIn account',
          status,
          hasSalesNavigator: salesNav,
          providerAccountId: a.providerAccountId,
          createdAt: now,
        });
        result.created.push(id);
      }
    }
    for (const row of accountProviderLinks(db)) {
      if (row.providerAccountId !== null && !listed.has(row.providerAccountId)) {
        if (row.status !== 'disconnected') updateAccountRow(db, row.id, { status: 'disconnected' });
        result.missing.push(row.id);
      }
    }
    return result;
  });
}

/**
 * The provider said whether the account has Sales Navigator (its health check, when a campaign
 * starts): the account takes its word, as the sync does. Returns whether the flag changed.
 */
export function recordSalesNavigator(db: Db, accountId: string, hasSalesNavigator: boolean): boolean {
  return setSalesNavigatorWhereDifferent(db, accountId, hasSalesNavigator) === 1;
}
