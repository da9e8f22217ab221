import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { UnipileHttp } from './http.js';
import { networkUrlFor, UnipileRelation, UnipileRelationsResponse } from './mapping.js';
import { parseOrUpstream } from './parse.js';
import { acceptEventId, type UnipileStore } from './store.js';

export interface RelationsPollOptions {
  /** Pages of 100 relations read per account per poll, at most. */
  maxPages: number;
  /** Invitations older than this are no longer looked for (LinkedIn withdraws them after a while). */
  lookbackMs: number;
}

export const RELATIONS_POLL_DEFAULTS: RelationsPollOptions = { maxPages: 10, lookbackMs: 60 * 24 * 3600_000 };

export interface RelationsPollResult {
  /** Accounts whose relations were read. */
  polled: string[];
  /** Acceptances found and queued. */
  accepted: number;
  /** Accounts whose poll failed (logged); the next poll tries again. */
  failed: string[];
}

const PAGE = 100;
/** Relations are listed newest first; a relation older than the oldest pending invitation (less this slack) cannot be an acceptance. */
const CLOCK_SLACK_MS = 3600_000;
/** `created_at` is epoch milliseconds in Unipile's examples; a value this small can only be seconds. */
const toMs = (t: number): number => (t < 1e11 ? t * 1000 : t);

interface Deps {
  http: UnipileHttp;
  store: UnipileStore;
  clock: Clock;
  log: Logger;
}

/**
 * The fallback for `new_relation` webhooks, which Unipile sends up to 8 hours late or may
 * miss: for each connected, linked account with pending invitations, read GET /users/relations
 * (newest first, cursor paging) until every pending invitee is found, the relations get older
 * than the oldest pending invitation, the list ends, or `maxPages` is reached. Each invitee
 * found becomes an `invitation_accepted` event with the same id a webhook would produce, so
 * the two paths never report one acceptance twice.
 */
export async function pollRelations(deps: Deps, opts: RelationsPollOptions = RELATIONS_POLL_DEFAULTS): Promise<RelationsPollResult> {
  const result: RelationsPollResult = { polled: [], accepted: 0, failed: [] };
  const now = deps.clock.now();
  for (const account of deps.store.linkedAccounts()) {
    if (account.status !== 'connected') continue;
    const pending = deps.store.pendingInvitations(account.id, now - opts.lookbackMs);
    if (pending.size === 0) continue;
    const oldest = Math.min(...pending.values());
    result.polled.push(account.id);
    try {
      let cursor: string | null = null;
      for (let page = 1; page <= opts.maxPages && pending.size > 0; page++) {
        const body = await deps.http.call({
          method: 'GET',
          path: '/users/relations',
          query: { account_id: account.providerAccountId, limit: PAGE, cursor: cursor ?? undefined },
          idempotent: true,
          ctx: { kind: 'account', salesNav: false },
        });
        const list = parseOrUpstream(UnipileRelationsResponse, body, deps.log, 'GET /users/relations');
        let pageOldest = Number.POSITIVE_INFINITY;
        for (const item of list.items) {
          const parsed = UnipileRelation.safeParse(item);
          if (!parsed.success) continue;
          const r = parsed.data;
          const createdAt = typeof r.created_at === 'number' ? toMs(r.created_at) : null;
          if (createdAt !== null) pageOldest = Math.min(pageOldest, createdAt);
          if (!pending.has(r.member_id)) continue;
          const networkUrl = deps.store.contactUrl(r.member_id) ?? networkUrlFor(r, r.member_id);
          deps.store.rememberContact(r.member_id, networkUrl, now);
          const queued = deps.store.enqueue(
            {
              id: acceptEventId(account.id, r.member_id),
              type: 'invitation_accepted',
              accountId: account.id,
              networkUrl,
              providerId: r.member_id,
              at: Math.min(createdAt ?? now, now),
            },
            now,
          );
          deps.store.markAccepted(account.id, r.member_id, now);
          pending.delete(r.member_id);
          if (queued) result.accepted += 1;
        }
        cursor = typeof list.cursor === 'string' && list.cursor !== '' ? list.cursor : null;
        if (cursor === null || pageOldest < oldest - CLOCK_SLACK_MS) break;
      }
    } catch (err) {
      deps.log.warn({ accountId: account.id, err: err instanceof Error ? err.message : String(err) }, 'unipile relations poll failed');
      result.failed.push(account.id);
    }
  }
  return result;
}
