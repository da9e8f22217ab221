import { and, desc, eq, gte, inArray, sql, type SQL } from 'drizzle-orm';
import { builtKeyset, type KeysetSource } from '../../db/keyset.js';
import { activity } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/** SQL of the activity table that the shared statements (src/db/sql/activity.ts) do not hold. */

/** How many events of each of `types` fell on each UTC day (`YYYY-MM-DD`) from `start` on (epoch ms). */
export function activityCountsByDay(ctx: Pick<Ctx, 'db'>, start: number, types: readonly string[]): { day: string; type: string; n: number }[] {
  return (
    ctx.db
      .select({ day: sql<string>`strftime('%Y-%m-%d', ${activity.at} / 1000, 'unixepoch')`, type: activity.type, n: sql<number>`count(*)` })
      .from(activity)
      // The engine's events only, as /activity and the insights count them: a person's own sends
      // (an inbox reply, send_message) are not the campaign's. The (manual, at) index serves the range.
      .where(and(eq(activity.manual, false), gte(activity.at, start), inArray(activity.type, [...types])))
      .groupBy(sql`1`, activity.type)
      .all()
  );
}

/**
 * The public columns only: `accountId` and `manual` are never read into a response. Names are
 * the snapshots taken when the event was recorded, so events outlive lead edits and deletes.
 */
const EVENT_COLUMNS = {
  seq: activity.seq,
  id: activity.id,
  type: activity.type,
  at: activity.at,
  leadId: activity.leadId,
  leadName: activity.leadName,
  companyName: activity.companyName,
  campaignId: activity.campaignId,
  messagePreview: activity.messagePreview,
  handOffReason: activity.handOffReason,
};
export type EventRow = Pick<typeof activity.$inferSelect, keyof typeof EVENT_COLUMNS>;

/** A condition on an event's campaign id: the call's reach, handed in (undefined reaches every campaign). */
export type EventReach = (campaignId: typeof activity.campaignId) => SQL | undefined;

/** The public events within `reach`: every type of the public allowlist (or just `type`), never manual operator sends. */
const publicEvents = (reach: EventReach, type?: string): SQL | undefined =>
  and(eq(activity.manual, false), type ? eq(activity.type, type) : undefined, reach(activity.campaignId));

/** Up to `limit` events within `where`, newest first (ties to the later one recorded), public columns only. */
const activityEventRows = (ctx: Pick<Ctx, 'db'>, where: SQL | undefined, limit: number): EventRow[] =>
  ctx.db.select(EVENT_COLUMNS).from(activity).where(where).orderBy(desc(activity.at), desc(activity.seq)).limit(limit).all();

/** The public events within `reach` (of one `type`, or all), as a keyset walk newest first reads them. */
export function publicEventSource(ctx: Pick<Ctx, 'db'>, reach: EventReach, type?: string): KeysetSource<EventRow> {
  const where = publicEvents(reach, type);
  return builtKeyset(ctx.db, {
    table: activity,
    where,
    sort: activity.at,
    seq: activity.seq,
    select: (extra, limit) => activityEventRows(ctx, and(where, extra), limit),
  });
}

/** The newest public event within `reach` (of one `type`, or any; ties to the later one recorded); undefined when there is none. */
export const latestPublicEvent = (
  ctx: Pick<Ctx, 'db'>,
  reach: EventReach,
  type?: string,
): { at: number; leadName: string | null; campaignId: string } | undefined =>
  ctx.db
    .select({ at: activity.at, leadName: activity.leadName, campaignId: activity.campaignId })
    .from(activity)
    .where(publicEvents(reach, type))
    .orderBy(desc(activity.at), desc(activity.seq))
    .limit(1)
    .get();
