import type { Logger } from 'pino';
import type { ProviderAccount } from '../../core/network/provider.js';
import type { UnipileHttp } from './http.js';
import { accountStatus, hasSalesNavigator, UnipileAccount, UnipileAccountsResponse } from './mapping.js';
import { parseOrUpstream } from './parse.js';

export type { AccountSyncResult } from '../../core/accounts/sync.js';

const PAGE = 100;
/** Unipile lists accounts of every provider; only LinkedIn ones are ours. */
const isLinkedIn = (a: UnipileAccount): boolean => (a.type ?? 'LINKEDIN').toUpperCase() === 'LINKEDIN';

/** Every LinkedIn account Unipile holds, following the cursor to the end. */
export async function fetchUnipileAccounts(http: UnipileHttp, log: Logger): Promise<UnipileAccount[]> {
  const out: UnipileAccount[] = [];
  let cursor: string | null = null;
  const seen = new Set<string>();
  do {
    const body = await http.call({
      method: 'GET',
      path: '/accounts',
      query: { limit: PAGE, cursor: cursor ?? undefined },
      idempotent: true,
      ctx: { kind: 'account', salesNav: false },
    });
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

/** Unipile's account in the shape the account sync takes. */
export const toProviderAccount = (a: UnipileAccount): ProviderAccount => ({
  providerAccountId: a.id,
  name: a.name?.trim() || null,
  status: accountStatus(a),
  hasSalesNavigator: hasSalesNavigator(a),
});
