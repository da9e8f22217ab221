import { useTool } from './hooks.js';
import { useOffered } from './offered.js';

/**
 * Sender names by account id, for a confirmation that names who sends: the workspace's first
 * 100 accounts, read only when `enabled` (the confirmation is open) and offered. A sender not
 * found is named by its id.
 */
export function useAccountNames(enabled: boolean): (accountId: string) => string {
  const { offers } = useOffered();
  const list = useTool('list_accounts', { limit: 100 }, { enabled: enabled && offers('list_accounts') });
  const names = new Map((list.data?.accounts ?? []).map((a) => [a.id, a.name]));
  return (accountId) => names.get(accountId) ?? (accountId === '' ? "the campaign's account" : `account ${accountId}`);
}
