import { and, asc, eq, gte, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import type { Clock } from '../clock.js';
import { accounts, unipileContacts, unipileInbound, unipileInvitations } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import type { UnipileStore } from '../../network/unipile/store.js';
import { syncProviderAccounts, type AccountSyncResult } from '../accounts/sync.js';
import { completeHostedSignIn } from '../accounts/manage.js';
import type { InboundEvent, ProviderAccount } from './provider.js';
import { inboundEvent, inboundRow } from './inbound-rows.js';
import { normalizeProfileUrl } from '../leads/url.js';

/** The adapter's durable state: the inbound queue, sent invitations and known people. All synchronous. */
export class SqliteUnipileStore implements UnipileStore {
  /** `simClock` is the engine's clock: a warm-up starts on its day, as the engine counts days on it. */
  constructor(
    readonly db: Db,
    readonly simClock: Clock,
  ) {}

  completeHostedSignIn(accountId: string, provider: Parameters<typeof completeHostedSignIn>[3]): boolean {
    return completeHostedSignIn({ db: this.db }, accountId, this.simClock.now(), provider);
  }

  /** Account sync is a core verb: the adapter fetches, core decides what changes. */
  syncAccounts(list: readonly ProviderAccount[], now: number): AccountSyncResult {
    return syncProviderAccounts(this.db, now, list);
  }

  /** Unipile's id for one of our accounts: undefined when the account does not exist, null when it is not linked. */
  providerAccountId(accountId: string): string | null | undefined {
    const row = this.db.select({ p: accounts.providerAccountId }).from(accounts).where(eq(accounts.id, accountId)).get();
    return row === undefined ? undefined : row.p;
  }

  /** Our account id for a Unipile account id, or null when none is linked to it. */
  accountIdFor(providerAccountId: string): string | null {
    return this.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.providerAccountId, providerAccountId)).get()?.id ?? null;
  }

  /** Linked accounts, preferring connected ones with Sales Navigator (for calls with no account given). */
  linkedAccounts(): { id: string; providerAccountId: string; status: string; hasSalesNavigator: boolean }[] {
    return this.db
      .select({ id: accounts.id, providerAccountId: accounts.providerAccountId, status: accounts.status, hasSalesNavigator: accounts.hasSalesNavigator })
      .from(accounts)
      .where(isNotNull(accounts.providerAccountId))
      .orderBy(asc(accounts.seq))
      .all()
      .flatMap((a) => (a.providerAccountId ? [{ ...a, providerAccountId: a.providerAccountId }] : []));
  }

  /** Queues an event; false when an event with its id was queued before (delivered or not). */
  enqueue(event: InboundEvent, receivedAt: number): boolean {
    const res = this.db
      .insert(unipileInbound)
      .values({ ...inboundRow(event), receivedAt })
      .onConflictDoNothing()
      .run();
    return res.changes > 0;
  }

  /** Takes up to `limit` due events, oldest first, and marks them delivered in the same transaction. */
  drain(now: number, limit: number): InboundEvent[] {
    return transaction(this.db, () => {
      const rows = this.db
        .select()
        .from(unipileInbound)
        .where(and(isNull(unipileInbound.deliveredAt), lte(unipileInbound.at, now)))
        .orderBy(asc(unipileInbound.at), asc(unipileInbound.id))
        .limit(limit)
        .all();
      if (rows.length > 0) {
        this.db
          .update(unipileInbound)
          .set({ deliveredAt: now })
          .where(
            inArray(
              unipileInbound.seq,
              rows.map((r) => r.seq),
            ),
          )
          .run();
      }
      return rows.map(inboundEvent);
    });
  }

  /** Remembers an invitation so the relations poll can find its acceptance. A pending one keeps its first time. */
  recordInvitation(accountId: string, providerId: string, at: number, invitationId: string | null = null): void {
    this.db
      .insert(unipileInvitations)
      .values({ accountId, providerId, invitedAt: at, invitationId })
      .onConflictDoUpdate({
        target: [unipileInvitations.accountId, unipileInvitations.providerId],
        set: {
          invitedAt: sql`case when ${unipileInvitations.acceptedAt} is null then ${unipileInvitations.invitedAt} else ${at} end`,
          acceptedAt: null,
          invitationId: sql`coalesce(${invitationId}, ${unipileInvitations.invitationId})`,
        },
      })
      .run();
  }

  invitationIdFor(accountId: string, providerId: string): string | null {
    return (
      this.db
        .select({ id: unipileInvitations.invitationId })
        .from(unipileInvitations)
        .where(and(eq(unipileInvitations.accountId, accountId), eq(unipileInvitations.providerId, providerId), isNull(unipileInvitations.acceptedAt)))
        .get()?.id ?? null
    );
  }

  forgetInvitation(accountId: string, providerId: string): void {
    this.db
      .delete(unipileInvitations)
      .where(and(eq(unipileInvitations.accountId, accountId), eq(unipileInvitations.providerId, providerId), isNull(unipileInvitations.acceptedAt)))
      .run();
  }

  markAccepted(accountId: string, providerId: string, at: number): void {
    this.db
      .update(unipileInvitations)
      .set({ acceptedAt: at })
      .where(and(eq(unipileInvitations.accountId, accountId), eq(unipileInvitations.providerId, providerId), isNull(unipileInvitations.acceptedAt)))
      .run();
  }

  /** Pending invitations sent at or after `since`: provider id to the time sent. */
  pendingInvitations(accountId: string, since: number): Map<string, number> {
    const rows = this.db
      .select({ p: unipileInvitations.providerId, at: unipileInvitations.invitedAt })
      .from(unipileInvitations)
      .where(and(eq(unipileInvitations.accountId, accountId), isNull(unipileInvitations.acceptedAt), gte(unipileInvitations.invitedAt, since)))
      .all();
    return new Map(rows.map((r) => [r.p, r.at]));
  }

  rememberContact(providerId: string, given: string, at: number): void {
    // The normal form, as leads hold it: a provider-id URL keeps its case in the adapter.
    const networkUrl = normalizeProfileUrl(given) ?? given;
    this.db
      .insert(unipileContacts)
      .values({ providerId, networkUrl, updatedAt: at })
      .onConflictDoUpdate({ target: unipileContacts.providerId, set: { networkUrl, updatedAt: at } })
      .run();
  }

  contactUrl(providerId: string): string | null {
    return this.db.select({ u: unipileContacts.networkUrl }).from(unipileContacts).where(eq(unipileContacts.providerId, providerId)).get()?.u ?? null;
  }

  providerIdsFor(networkUrl: string): string[] {
    return this.db
      .select({ p: unipileContacts.providerId })
      .from(unipileContacts)
      .where(eq(unipileContacts.networkUrl, normalizeProfileUrl(networkUrl) ?? networkUrl))
      .orderBy(sql`${unipileContacts.updatedAt} desc`)
      .all()
      .map((r) => r.p);
  }
}
