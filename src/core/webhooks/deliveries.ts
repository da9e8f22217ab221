import { transaction } from '../../db/tx.js';
import { MAX_ATTEMPTS, nextAttemptDelay, type Rng } from './schedule.js';
import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import {
  activeEndpointRows,
  activeEndpointUrl,
  attemptRowsOf,
  closeOpenAttempts,
  deliveryLogRows,
  deliveryTarget,
  dueDeliveryRows,
  endpointIdsWithDueDeliveries,
  endpointKnown,
  endpointRow,
  eventExists,
  eventRow,
  failDelivery,
  finishAttempt,
  insertAttempt,
  insertDeliveryRow,
  leaseDelivery,
  makeDeliveryDue,
  markEventsFannedOut,
  pendingDeliveryRow,
  setDeliveryOutcome,
  setPendingDeliveryOutcome,
  unfannedEvents,
} from './store.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import { ApiError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { disableEndpoint, endpointEvents } from './endpoints.js';

/** What one delivery attempt came to; the webhook worker's HTTP call reports it, this module records it. */
export interface DeliveryResult {
  /** True only for a 2xx answer. */
  ok: boolean;
  status: number | null;
  durationMs: number;
  /** Short, in our words, null on success: 'timeout', 'HTTP 500', 'redirect not followed (301)'. */
  error: string | null;
  /** The first first 1 KiB (the worker's MAX_LOGGED_RESPONSE_BYTES) of the response body, decoded as UTF-8. */
  responseBody: string | null;
  /** Parsed `Retry-After` of a failed answer, for `nextAttemptDelay`. */
  retryAfterSeconds: number | null;
  /** 410 Gone: the receiver asks us to stop; disable the endpoint and drop pending retries. */
  disableEndpoint: boolean;
}

/**
 * The delivery state machine over SQLite. Every step is one short transaction, and the network
 * send happens between them (in src/workers/webhooks/worker.ts), so state survives a crash at any point:
 *
 *   event ──fanOut──▶ delivery pending ──claim──▶ in flight (leased) ──complete──▶ succeeded
 *                          ▲                          │ crash: lease runs out          │
 *                          └──── retry per schedule ◀─┴── failure ──▶ failed after the last attempt
 */

export type DeliveryState = 'pending' | 'succeeded' | 'failed';

/** How many outbox events one fan-out transaction takes. */
const FAN_OUT_BATCH = 500;

export const INTERRUPTED = 'interrupted: the server stopped before the answer was recorded';

/**
 * Plans deliveries for events not yet fanned out: one per active endpoint subscribed to the
 * event's type, due now. Endpoints added later do not receive earlier events. Returns the
 * number of events handled.
 */
export function fanOut(ctx: Ctx, limit = FAN_OUT_BATCH): number {
  return transaction(ctx.db, () => {
    const events = unfannedEvents(ctx, limit);
    if (events.length === 0) return 0;
    const endpoints = activeEndpoints(ctx);
    const now = ctx.clock.now();
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (endpoint.events.has(event.type)) insertDelivery(ctx, event.id, endpoint.id, now);
      }
    }
    markEventsFannedOut(
      ctx,
      events.map((e) => e.id),
      now,
    );
    return events.length;
  });
}

function activeEndpoints(ctx: Ctx): { id: string; url: string; events: Set<string> }[] {
  return activeEndpointRows(ctx).map((row) => ({ id: row.id, url: row.url, events: new Set<string>(endpointEvents(row)) }));
}

function insertDelivery(ctx: Ctx, eventId: string, endpointId: string, now: number): string {
  const id = newId('whd');
  insertDeliveryRow(ctx, id, eventId, endpointId, now);
  return id;
}

/** One attempt the worker must send. */
export interface ClaimedAttempt {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  url: string;
  /** The stored payload, byte for byte the same on every attempt. */
  body: string;
  /** 1-based number of this attempt within its delivery. */
  attempt: number;
}

/** Active endpoints with at least one delivery due now, oldest due first. */
export function endpointsWithDueDeliveries(ctx: Ctx): string[] {
  return endpointIdsWithDueDeliveries(ctx, ctx.clock.now());
}

/**
 * Claims up to `limit` due deliveries of one active endpoint: each gets a lease until
 * now + leaseMs and an attempt row that is completed by `completeAttempt`. A delivery whose
 * previous attempt was cut off by a crash has that attempt closed as interrupted first, and
 * ends as failed if it has no attempts left. `skip` holds deliveries this process already has
 * in flight, which a lease that ran out on a fake clock must not hand out twice.
 */
export function claimDue(ctx: Ctx, endpointId: string, limit: number, leaseMs: number, skip: ReadonlySet<string> = new Set()): ClaimedAttempt[] {
  if (limit <= 0) return [];
  return transaction(ctx.db, () => {
    const now = ctx.clock.now();
    const endpoint = activeEndpointUrl(ctx, endpointId);
    if (!endpoint) return [];
    const rows = dueDeliveryRows(ctx, endpointId, now, limit, skip);
    const claimed: ClaimedAttempt[] = [];
    for (const row of rows) {
      closeInterrupted(ctx, row.id, now);
      if (row.attempts >= MAX_ATTEMPTS) {
        failDelivery(ctx, row.id, INTERRUPTED, now);
        continue;
      }
      const attempt = row.attempts + 1;
      leaseDelivery(ctx, row.id, attempt, now + leaseMs, now);
      insertAttempt(ctx, row.id, attempt, now);
      claimed.push({ deliveryId: row.id, eventId: row.eventId, endpointId, url: endpoint.url, body: row.body, attempt });
    }
    return claimed;
  });
}

function closeInterrupted(ctx: Ctx, deliveryId: string, now: number): void {
  closeOpenAttempts(ctx, deliveryId, INTERRUPTED, now);
}

/**
 * Records the outcome of a claimed attempt and decides what follows: succeeded on 2xx; on 410
 * the endpoint is disabled and its pending deliveries end; otherwise the next attempt per the
 * schedule (or Retry-After), or failed after the last one. A success always counts, but a
 * failure no longer reschedules a delivery that ended meanwhile (endpoint removed or disabled).
 */
export function completeAttempt(ctx: Ctx, claimed: ClaimedAttempt, result: DeliveryResult, rng: Rng): DeliveryState {
  return transaction(ctx.db, () => {
    const now = ctx.clock.now();
    finishAttempt(ctx, claimed.deliveryId, claimed.attempt, {
      status: result.status,
      durationMs: result.durationMs,
      error: result.error,
      responseExcerpt: result.responseBody,
      finishedAt: now,
    });
    const outcome = { leasedUntil: null, lastStatus: result.status, lastError: result.error, updatedAt: now };
    if (result.ok) {
      setDeliveryOutcome(ctx, claimed.deliveryId, { ...outcome, state: 'succeeded', nextAttemptAt: null });
      return 'succeeded';
    }
    if (result.disableEndpoint) {
      setPendingDeliveryOutcome(ctx, claimed.deliveryId, { ...outcome, state: 'failed', nextAttemptAt: null });
      disableEndpoint(ctx, claimed.endpointId, `HTTP 410 Gone at ${iso(now)}`);
      return 'failed';
    }
    const delay = nextAttemptDelay(claimed.attempt, rng, result.retryAfterSeconds);
    const next = delay === null ? { state: 'failed' as const, nextAttemptAt: null } : { state: 'pending' as const, nextAttemptAt: now + delay };
    const changed = setPendingDeliveryOutcome(ctx, claimed.deliveryId, { ...outcome, ...next });
    return changed > 0 ? next.state : 'failed';
  });
}

export interface AttemptView {
  attempt: number;
  at: string;
  status: number | null;
  durationMs: number | null;
  error: string | null;
  response: string | null;
  /** False while the attempt is in flight. */
  finished: boolean;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  /** Null when the endpoint has been removed since. */
  url: string | null;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  log: AttemptView[];
}

export interface ListDeliveriesInput {
  endpointId?: string | undefined;
  eventId?: string | undefined;
  /** Only deliveries in this state. */
  state?: DeliveryState | undefined;
  /** Only deliveries older than this one (keyset paging; see listDeliveryPage). */
  beforeSeq?: number | undefined;
  limit?: number | undefined;
}

export const DEFAULT_DELIVERY_LIMIT = 20;
export const MAX_DELIVERY_LIMIT = 1000;

/**
 * The delivery log, newest first, each delivery with its attempts. A filter naming an id that
 * appears nowhere is not_found (with `fields` naming it) rather than an empty list, so a typo
 * is not mistaken for "nothing was sent".
 */
export function listDeliveries(ctx: Ctx, input: ListDeliveriesInput = {}): DeliveryView[] {
  return queryDeliveries(ctx, input).map((r) => r.view);
}

/**
 * The delivery log a page at a time (the dashboard's), filtered by endpoint and state, with a
 * signed cursor as the API's lists have.
 */
export function listDeliveryPage(
  ctx: Ctx,
  secret: string,
  input: { endpointId?: string | undefined; state?: DeliveryState | undefined; limit: number; cursor?: string | undefined },
): { deliveries: DeliveryView[]; nextCursor: string | null } {
  const scope = `webhook_deliveries:${input.endpointId ?? ''}:${input.state ?? ''}`;
  let beforeSeq: number | undefined;
  if (input.cursor !== undefined) {
    const [seq] = decodeCursor(secret, scope, input.cursor);
    if (typeof seq !== 'number') throw invalidCursor();
    beforeSeq = seq;
  }
  const rows = queryDeliveries(ctx, { endpointId: input.endpointId, state: input.state, beforeSeq, limit: input.limit + 1 });
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, scope, [last.seq]));
  return { deliveries: page.items.map((r) => r.view), nextCursor: page.nextCursor };
}

function queryDeliveries(ctx: Ctx, input: ListDeliveriesInput): { seq: number; view: DeliveryView }[] {
  const limit = input.limit ?? DEFAULT_DELIVERY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DELIVERY_LIMIT) {
    throw validationError(`limit: must be an integer from 1 to ${MAX_DELIVERY_LIMIT}`, ['limit']);
  }
  if (input.eventId !== undefined && !eventExists(ctx, input.eventId)) {
    throw new ApiError('not_found', `no webhook event "${input.eventId}"`, { fields: ['eventId'] });
  }
  if (input.endpointId !== undefined && !endpointKnown(ctx, input.endpointId)) {
    throw new ApiError('not_found', `no webhook endpoint "${input.endpointId}" and no delivery to it`, { fields: ['endpointId'] });
  }
  const rows = deliveryLogRows(ctx, input, limit);
  const attempts = rows.length
    ? attemptRowsOf(
        ctx,
        rows.map((r) => r.d.id),
      )
    : [];
  const logs = new Map<string, AttemptView[]>();
  for (const a of attempts) {
    const log = logs.get(a.deliveryId) ?? [];
    log.push({
      attempt: a.attempt,
      at: iso(a.at),
      status: a.status,
      durationMs: a.durationMs,
      error: a.error,
      response: a.responseExcerpt,
      finished: a.finishedAt !== null,
    });
    logs.set(a.deliveryId, log);
  }
  return rows.map(({ d, type, url }) => ({
    seq: d.seq,
    view: {
      id: d.id,
      eventId: d.eventId,
      eventType: type,
      endpointId: d.endpointId,
      url,
      state: d.state as DeliveryState,
      attempts: d.attempts,
      nextAttemptAt: d.nextAttemptAt === null ? null : iso(d.nextAttemptAt),
      lastStatus: d.lastStatus,
      lastError: d.lastError,
      createdAt: iso(d.createdAt),
      updatedAt: iso(d.updatedAt),
      log: logs.get(d.id) ?? [],
    },
  }));
}

export interface RedeliveryView {
  deliveryId: string;
  endpointId: string;
  url: string;
  /** created: a new delivery with a fresh schedule; rescheduled: a pending one made due now; in_flight: being sent right now. */
  action: 'created' | 'rescheduled' | 'in_flight';
}

/**
 * Sends an event again, with the same event id: to `endpointId`, or to every active endpoint
 * subscribed to its type. A delivery still pending is made due now; otherwise a new delivery
 * starts a fresh run of the retry schedule.
 */
export function redeliver(ctx: Ctx, eventId: string, endpointId?: string): RedeliveryView[] {
  return transaction(ctx.db, () => {
    const event = eventRow(ctx, eventId);
    if (!event) {
      throw new ApiError('not_found', `no webhook event "${eventId}"; find event ids with: npx outreach webhooks deliveries`, { fields: ['eventId'] });
    }
    // Fan out first, so the worker does not add a second delivery for the same endpoint later.
    if (event.fannedOutAt === null) fanOut(ctx);
    const now = ctx.clock.now();
    const targets = targetEndpoints(ctx, event.type, endpointId);
    return targets.map((endpoint): RedeliveryView => {
      const pending = pendingDeliveryRow(ctx, eventId, endpoint.id);
      const base = { endpointId: endpoint.id, url: endpoint.url };
      if (!pending) return { ...base, deliveryId: insertDelivery(ctx, eventId, endpoint.id, now), action: 'created' };
      if (pending.leasedUntil !== null && pending.leasedUntil > now) return { ...base, deliveryId: pending.id, action: 'in_flight' };
      makeDeliveryDue(ctx, pending.id, now);
      return { ...base, deliveryId: pending.id, action: 'rescheduled' };
    });
  });
}

/** Sends one logged delivery's event again to the same endpoint (the dashboard's redeliver button). */
export function redeliverDelivery(ctx: Ctx, deliveryId: string): RedeliveryView {
  const row = deliveryTarget(ctx, deliveryId);
  if (!row) throw new ApiError('not_found', `no webhook delivery "${deliveryId}"; pick one from the delivery log`, { fields: ['deliveryId'] });
  const [result] = redeliver(ctx, row.eventId, row.endpointId);
  return result as RedeliveryView;
}

function targetEndpoints(ctx: Ctx, eventType: string, endpointId: string | undefined): { id: string; url: string }[] {
  if (endpointId === undefined) {
    const subscribed = activeEndpoints(ctx).filter((e) => e.events.has(eventType));
    if (subscribed.length === 0) {
      throw validationError(`no active endpoint subscribes to ${eventType}; name one with --endpoint`, ['endpointId']);
    }
    return subscribed;
  }
  const row = endpointRow(ctx, endpointId);
  if (!row) throw new ApiError('not_found', `no webhook endpoint "${endpointId}"; list them with: npx outreach webhooks list`, { fields: ['endpointId'] });
  if (row.status !== 'active') {
    throw validationError(
      `endpoint ${endpointId} is disabled (${row.disabledReason ?? 'no reason recorded'}); enable it first with: npx outreach webhooks enable ${endpointId}`,
      ['endpointId'],
    );
  }
  return [{ id: row.id, url: row.url }];
}
