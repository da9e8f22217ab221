import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { activity } from '../../db/schema.js';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { builtKeyset, keysetPage } from '../keyset.js';
import { ActivityType } from '../leads/enums.js';
import { clean } from '../text.js';
import { campaignReach } from '../auth/scope.js';

export const MESSAGE_PREVIEW_MAX = 80;

export const ActivityEvent = z.object({
  id: z.string(),
  type: ActivityType,
  timestamp: IsoTimestamp,
  leadId: z.string(),
  leadName: z.string().nullable().describe('Null when the lead had no name when the event happened.'),
  companyName: z.string().nullable(),
  campaignId: z.string(),
  messagePreview: z.string().max(MESSAGE_PREVIEW_MAX).nullable(),
  handOffReason: z.string().nullable(),
});
export type ActivityEvent = z.infer<typeof ActivityEvent>;

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
type EventRow = Pick<typeof activity.$inferSelect, keyof typeof EVENT_COLUMNS>;

/**
 * At most 80 characters, cut at a code point boundary so the result is never longer than 80
 * UTF-16 units (what `.length` counts) and never ends in half a surrogate pair.
 */
export function messagePreview(value: string | null): string | null {
  const text = clean(value);
  if (text === null || text.length <= MESSAGE_PREVIEW_MAX) return text;
  let out = '';
  for (const ch of text) {
    if (out.length + ch.length > MESSAGE_PREVIEW_MAX) break;
    out += ch;
  }
  return clean(out);
}

export function toActivityEvent(row: EventRow): ActivityEvent {
  return {
    id: row.id,
    type: row.type as ActivityType,
    timestamp: iso(row.at),
    leadId: row.leadId,
    leadName: clean(row.leadName),
    companyName: clean(row.companyName),
    campaignId: row.campaignId,
    messagePreview: messagePreview(row.messagePreview),
    handOffReason: clean(row.handOffReason),
  };
}

/** Listed events: every type of the public allowlist, never manual operator sends. */
export const publicEvents = (type?: ActivityType) => and(eq(activity.manual, false), type ? eq(activity.type, type) : undefined);

/** The public events a call may see: those of its campaigns only, for a key held to campaigns. */
export const reachableEvents = (ctx: Ctx, type?: ActivityType) => and(publicEvents(type), campaignReach(ctx, activity.campaignId));

export interface ListActivityInput {
  type?: ActivityType | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Newest first; the cursor is bound to the type filter. */
export function listActivity(ctx: Ctx, secret: string, input: ListActivityInput): { events: ActivityEvent[]; nextCursor: string | null } {
  const where = reachableEvents(ctx, input.type);
  const page = keysetPage<EventRow>(secret, {
    scope: `activity|${input.type ?? ''}`,
    cursor: input.cursor,
    limit: input.limit,
    source: builtKeyset(ctx.db, {
      table: activity,
      where,
      sort: activity.at,
      seq: activity.seq,
      select: (extra, limit) =>
        ctx.db.select(EVENT_COLUMNS).from(activity).where(and(where, extra)).orderBy(desc(activity.at), desc(activity.seq)).limit(limit).all(),
    }),
    position: (row) => ({ value: row.at, seq: row.seq }),
  });
  return { events: page.items.map(toActivityEvent), nextCursor: page.nextCursor };
}
