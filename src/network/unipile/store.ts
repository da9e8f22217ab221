import { createHash } from 'node:crypto';
import type { AccountSyncResult } from '../../core/accounts/sync.js';
import type { InboundEvent, ProviderAccount } from '../../core/network/provider.js';

const hash = (...parts: string[]): string => createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);

/**
 * One acceptance per (account, person), whichever path reports it first (webhook, relations
 * poll, or an invitation answered `already_connected`): the id carries no time or source.
 */
export const acceptEventId = (accountId: string, providerId: string): string => `unipile_accept_${hash('accept', accountId, providerId)}`;
export const messageEventId = (accountId: string, messageId: string): string => `unipile_msg_${hash('message', accountId, messageId)}`;

/**
 * The adapter's durable state: the inbound queue, sent invitations and known people, and the
 * account sync. All synchronous. The adapter is given one (core/network/unipile-store.ts is the
 * SQLite one) and never touches the database itself.
 */
export interface UnipileStore {
  /**
   * Links our `connecting` account to the Unipile account a hosted sign-in created, with the
   * status and Sales Navigator Unipile reports; false when nothing changed (see core verb completeHostedSignIn).
   */
  completeHostedSignIn(
    accountId: string,
    provider: { providerAccountId: string; status: 'connected' | 'connecting' | 'failed' | 'disconnected'; hasSalesNavigator: boolean },
  ): boolean;
  /** Makes the workspace's accounts match the provider's list (a core verb). */
  syncAccounts(list: readonly ProviderAccount[], now: number): AccountSyncResult;
  /** Unipile's id for one of our accounts: undefined when the account does not exist, null when it is not linked. */
  providerAccountId(accountId: string): string | null | undefined;
  /** Our account id for a Unipile account id, or null when none is linked to it. */
  accountIdFor(providerAccountId: string): string | null;
  /** Linked accounts, preferring connected ones with Sales Navigator (for calls with no account given). */
  linkedAccounts(): { id: string; providerAccountId: string; status: string; hasSalesNavigator: boolean }[];
  /** Queues an event; false when an event with its id was queued before (delivered or not). */
  enqueue(event: InboundEvent, receivedAt: number): boolean;
  /** Takes up to `limit` due events, oldest first, and marks them delivered in the same transaction. */
  drain(now: number, limit: number): InboundEvent[];
  /** Remembers an invitation so the relations poll can find its acceptance. A pending one keeps its first time. */
  recordInvitation(accountId: string, providerId: string, at: number, invitationId?: string | null): void;
  markAccepted(accountId: string, providerId: string, at: number): void;
  /** Unipile's id of the pending invitation to the person, when it was sent through this server. */
  invitationIdFor(accountId: string, providerId: string): string | null;
  /** Forgets a withdrawn invitation, so the relations poll stops looking for its acceptance. */
  forgetInvitation(accountId: string, providerId: string): void;
  /** Pending invitations sent at or after `since`: provider id to the time sent. */
  pendingInvitations(accountId: string, since: number): Map<string, number>;
  /** Remembers the profile URL a member id was seen with (stored in its normal form). */
  rememberContact(providerId: string, networkUrl: string, at: number): void;
  contactUrl(providerId: string): string | null;
  /**
   * Every member id seen for a profile URL, the newest first: the classic one, and any Sales
   * Navigator or Recruiter one a search gave. Saves a profile lookup before a send.
   */
  providerIdsFor(networkUrl: string): string[];
}
