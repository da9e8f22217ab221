import { and, asc, count, desc, eq, inArray, isNull, lt, lte, notInArray, or, type SQL } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents, workspace } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/**
 * SQL of webhook endpoints, their events, deliveries and attempts, and the workspace's signing
 * secret, for the verbs of ./endpoints.ts and ./deliveries.ts.
 */

type Conn = Pick<Ctx, 'db'>;

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type EventRow = typeof webhookEvents.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;
type DeliveryInsert = typeof webhookDeliveries.$inferInsert;

/* Endpoints. */

/** Every endpoint, oldest first. */
export const endpointRows = (ctx: Conn): EndpointRow[] =>
  ctx.db.select().from(webhookEndpoints).orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id)).all();

export const endpointRow = (ctx: Conn, id: string): EndpointRow | undefined => ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();

/** The endpoint with this URL, if any. */
export const endpointIdByUrl = (ctx: Conn, url: string): { id: string } | undefined =>
  ctx.db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.url, url)).get();

/** Every active endpoint (no order). */
export const activeEndpointRows = (ctx: Conn): EndpointRow[] => ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.status, 'active')).all();

/** The URL of an endpoint while it is active. */
export const activeEndpointUrl = (ctx: Conn, id: string): { url: string } | undefined =>
  ctx.db
    .select({ url: webhookEndpoints.url })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.status, 'active')))
    .get();

/** Adds an endpoint; `events` is the JSON list of its event types. */
export function insertEndpoint(ctx: Conn, row: { id: string; url: string; events: string; createdAt: number }): void {
  ctx.db.insert(webhookEndpoints).values(row).run();
}

/** Deletes an endpoint; false when there was none. */
export const deleteEndpoint = (ctx: Conn, id: string): boolean =>
  ctx.db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning({ id: webhookEndpoints.id }).all().length > 0;

/** Disables an endpoint that is active; returns how many rows changed (0 or 1). */
export const disableActiveEndpoint = (ctx: Conn, id: string, reason: string): number =>
  ctx.db
    .update(webhookEndpoints)
    .set({ status: 'disabled', disabledReason: reason })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.status, 'active')))
    .run().changes;

/** Marks an endpoint active, clearing its disabled reason; returns how many rows changed (0 or 1). */
export const activateEndpoint = (ctx: Conn, id: string): number =>
  ctx.db.update(webhookEndpoints).set({ status: 'active', disabledReason: null }).where(eq(webhookEndpoints.id, id)).run().changes;

/** Whether the endpoint exists, or did: a deleted endpoint's deliveries still name it. */
export function endpointKnown(ctx: Conn, id: string): boolean {
  if (endpointRow(ctx, id)) return true;
  return ctx.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id)).limit(1).get() !== undefined;
}

/* The signing secret, on the workspace's row. */

/** Sets the workspace's webhook signing secret; returns how many rows changed (0 when there is no workspace). */
export const setWebhookSecret = (ctx: Conn, workspaceId: number, secret: string): number =>
  ctx.db.update(workspace).set({ webhookSecret: secret }).where(eq(workspace.id, workspaceId)).run().changes;

/** The workspace's webhook signing secret as stored; null when it has none or there is no workspace. */
export const webhookSecretOf = (ctx: Conn, workspaceId: number): string | null =>
  ctx.db.select({ secret: workspace.webhookSecret }).from(workspace).where(eq(workspace.id, workspaceId)).get()?.secret ?? null;

/* Events. */

/** Up to `limit` events not yet fanned out, in outbox order. */
export const unfannedEvents = (ctx: Conn, limit: number): { id: string; type: string }[] =>
  ctx.db
    .select({ id: webhookEvents.id, type: webhookEvents.type })
    .from(webhookEvents)
    .where(isNull(webhookEvents.fannedOutAt))
    .orderBy(asc(webhookEvents.seq))
    .limit(limit)
    .all();

/** Marks events as fanned out at `now`. */
export function markEventsFannedOut(ctx: Conn, ids: string[], now: number): void {
  ctx.db.update(webhookEvents).set({ fannedOutAt: now }).where(inArray(webhookEvents.id, ids)).run();
}

export const eventRow = (ctx: Conn, id: string): EventRow | undefined => ctx.db.select().from(webhookEvents).where(eq(webhookEvents.id, id)).get();

export const eventExists = (ctx: Conn, id: string): boolean =>
  ctx.db.select({ id: webhookEvents.id }).from(webhookEvents).where(eq(webhookEvents.id, id)).get() !== undefined;

/* Deliveries. */

/** Plans a delivery of an event to an endpoint, due at `now`. */
export function insertDeliveryRow(ctx: Conn, id: string, eventId: string, endpointId: string, now: number): void {
  ctx.db.insert(webhookDeliveries).values({ id, eventId, endpointId, nextAttemptAt: now, createdAt: now, updatedAt: now }).run();
}

const leaseFree = (now: number): SQL => or(isNull(webhookDeliveries.leasedUntil), lte(webhookDeliveries.leasedUntil, now)) as SQL;

/** Active endpoints with at least one pending delivery due at `now` and not leased. */
export const endpointIdsWithDueDeliveries = (ctx: Conn, now: number): string[] =>
  ctx.db
    .selectDistinct({ id: webhookDeliveries.endpointId })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, and(eq(webhookEndpoints.id, webhookDeliveries.endpointId), eq(webhookEndpoints.status, 'active')))
    .where(and(eq(webhookDeliveries.state, 'pending'), lte(webhookDeliveries.nextAttemptAt, now), leaseFree(now)))
    .all()
    .map((r) => r.id);

export interface DueDeliveryRow {
  id: string;
  eventId: string;
  attempts: number;
  /** The event's stored payload. */
  body: string;
}

/** Up to `limit` pending, unleased deliveries of one endpoint due at `now`, but those of `skip`; oldest due first. */
export const dueDeliveryRows = (ctx: Conn, endpointId: string, now: number, limit: number, skip: ReadonlySet<string>): DueDeliveryRow[] =>
  ctx.db
    .select({ id: webhookDeliveries.id, eventId: webhookDeliveries.eventId, attempts: webhookDeliveries.attempts, body: webhookEvents.payload })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.state, 'pending'),
        lte(webhookDeliveries.nextAttemptAt, now),
        leaseFree(now),
        skip.size > 0 ? notInArray(webhookDeliveries.id, [...skip]) : undefined,
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.seq))
    .limit(limit)
    .all();

/** Ends a delivery as failed with `lastError`, unscheduled and unleased. */
export function failDelivery(ctx: Conn, id: string, lastError: string, now: number): void {
  ctx.db
    .update(webhookDeliveries)
    .set({ state: 'failed', nextAttemptAt: null, leasedUntil: null, lastStatus: null, lastError, updatedAt: now })
    .where(eq(webhookDeliveries.id, id))
    .run();
}

/** Counts attempt number `attempts` of a delivery and leases it until `leasedUntil`. */
export function leaseDelivery(ctx: Conn, id: string, attempts: number, leasedUntil: number, now: number): void {
  ctx.db.update(webhookDeliveries).set({ attempts, leasedUntil, updatedAt: now }).where(eq(webhookDeliveries.id, id)).run();
}

/** What an attempt's outcome writes on its delivery. */
export type DeliveryOutcome = Pick<DeliveryInsert, 'state' | 'nextAttemptAt' | 'leasedUntil' | 'lastStatus' | 'lastError' | 'updatedAt'>;

/** Writes an attempt's outcome on its delivery, whatever the delivery's state. */
export function setDeliveryOutcome(ctx: Conn, id: string, outcome: DeliveryOutcome): void {
  ctx.db.update(webhookDeliveries).set(outcome).where(eq(webhookDeliveries.id, id)).run();
}

/** Writes an attempt's outcome on its delivery while it is still pending; returns how many rows changed (0 or 1). */
export const setPendingDeliveryOutcome = (ctx: Conn, id: string, outcome: DeliveryOutcome): number =>
  ctx.db
    .update(webhookDeliveries)
    .set(outcome)
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.state, 'pending')))
    .run().changes;

/** Ends every pending delivery of an endpoint as failed with `reason`. */
export function failPendingDeliveriesOf(ctx: Conn, endpointId: string, reason: string, now: number): void {
  ctx.db
    .update(webhookDeliveries)
    .set({ state: 'failed', nextAttemptAt: null, lastError: reason, updatedAt: now })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.state, 'pending')))
    .run();
}

/** The pending delivery of an event to an endpoint, if any. */
export const pendingDeliveryRow = (ctx: Conn, eventId: string, endpointId: string): DeliveryRow | undefined =>
  ctx.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.state, 'pending')))
    .get();

/** Makes a delivery due at `now`. */
export function makeDeliveryDue(ctx: Conn, id: string, now: number): void {
  ctx.db.update(webhookDeliveries).set({ nextAttemptAt: now, updatedAt: now }).where(eq(webhookDeliveries.id, id)).run();
}

/** The event and endpoint of a delivery. */
export const deliveryTarget = (ctx: Conn, id: string): { eventId: string; endpointId: string } | undefined =>
  ctx.db
    .select({ eventId: webhookDeliveries.eventId, endpointId: webhookDeliveries.endpointId })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, id))
    .get();

/** Pending deliveries per endpoint id (endpoints with none are absent). */
export const pendingDeliveriesByEndpoint = (ctx: Conn): Map<string, number> =>
  new Map(
    ctx.db
      .select({ endpointId: webhookDeliveries.endpointId, n: count() })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.state, 'pending'))
      .groupBy(webhookDeliveries.endpointId)
      .all()
      .map((r) => [r.endpointId, r.n]),
  );

/** Pending deliveries of one endpoint. */
export const pendingDeliveriesOf = (ctx: Conn, id: string): number =>
  ctx.db
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.state, 'pending')))
    .get()?.n ?? 0;

export interface DeliveryLogFilter {
  endpointId?: string | undefined;
  eventId?: string | undefined;
  state?: string | undefined;
  /** Only deliveries older than this one. */
  beforeSeq?: number | undefined;
}

export interface DeliveryLogRow {
  d: DeliveryRow;
  /** The event's type. */
  type: string;
  /** Null when the endpoint has been removed since. */
  url: string | null;
}

/** Up to `limit` deliveries matching the filter, newest first, with their event's type and endpoint's URL. */
export const deliveryLogRows = (ctx: Conn, filter: DeliveryLogFilter, limit: number): DeliveryLogRow[] =>
  ctx.db
    .select({ d: webhookDeliveries, type: webhookEvents.type, url: webhookEndpoints.url })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .leftJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(
      and(
        filter.endpointId !== undefined ? eq(webhookDeliveries.endpointId, filter.endpointId) : undefined,
        filter.eventId !== undefined ? eq(webhookDeliveries.eventId, filter.eventId) : undefined,
        filter.state !== undefined ? eq(webhookDeliveries.state, filter.state) : undefined,
        filter.beforeSeq !== undefined ? lt(webhookDeliveries.seq, filter.beforeSeq) : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.seq))
    .limit(limit)
    .all();

/* Attempts. */

/** Opens attempt number `attempt` of a delivery at `now`. */
export function insertAttempt(ctx: Conn, deliveryId: string, attempt: number, now: number): void {
  ctx.db.insert(webhookAttempts).values({ deliveryId, attempt, at: now }).run();
}

/** Closes a delivery's unfinished attempts with `error`. */
export function closeOpenAttempts(ctx: Conn, deliveryId: string, error: string, now: number): void {
  ctx.db
    .update(webhookAttempts)
    .set({ error, finishedAt: now })
    .where(and(eq(webhookAttempts.deliveryId, deliveryId), isNull(webhookAttempts.finishedAt)))
    .run();
}

/** What a finished attempt records. */
export type AttemptOutcome = Pick<AttemptRow, 'status' | 'durationMs' | 'error' | 'responseExcerpt' | 'finishedAt'>;

/** Records the outcome of attempt number `attempt` of a delivery. */
export function finishAttempt(ctx: Conn, deliveryId: string, attempt: number, outcome: AttemptOutcome): void {
  ctx.db
    .update(webhookAttempts)
    .set(outcome)
    .where(and(eq(webhookAttempts.deliveryId, deliveryId), eq(webhookAttempts.attempt, attempt)))
    .run();
}

/** The attempts of these deliveries, in the order they were made. */
export const attemptRowsOf = (ctx: Conn, deliveryIds: string[]): AttemptRow[] =>
  ctx.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds)).orderBy(asc(webhookAttempts.seq)).all();
