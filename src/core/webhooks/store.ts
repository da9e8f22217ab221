import { and, asc, count, eq } from 'drizzle-orm';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/**
 * SQL of webhook endpoints and their deliveries that the verbs of ./endpoints.ts and
 * ./deliveries.ts have moved here so far (issue 35 moves the rest).
 */

type Conn = Pick<Ctx, 'db'>;

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** Every endpoint, oldest first. */
export const endpointRows = (ctx: Conn): EndpointRow[] =>
  ctx.db.select().from(webhookEndpoints).orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id)).all();

export const endpointRow = (ctx: Conn, id: string): EndpointRow | undefined => ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();

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

/** Whether the endpoint exists, or did: a deleted endpoint's deliveries still name it. */
export function endpointKnown(ctx: Conn, id: string): boolean {
  if (endpointRow(ctx, id)) return true;
  return ctx.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id)).limit(1).get() !== undefined;
}
