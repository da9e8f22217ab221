import { z } from 'zod';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { keysetPage } from '../keyset.js';
import { ActivityType } from '../leads/enums.js';
import { clean, MESSAGE_PREVIEW_MAX, messagePreview } from '../text.js';
import { campaignReach } from '../auth/scope.js';
import { type EventRow, publicEventSource } from './store.js';

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

export interface ListActivityInput {
  type?: ActivityType | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Newest first; the cursor is bound to the type filter. */
export function listActivity(ctx: Ctx, secret: string, input: ListActivityInput): { events: ActivityEvent[]; nextCursor: string | null } {
  const page = keysetPage<EventRow>(secret, {
    scope: `activity|${input.type ?? ''}`,
    cursor: input.cursor,
    limit: input.limit,
    // A key held to campaigns sees the events of its campaigns only.
    source: publicEventSource(ctx, (id) => campaignReach(ctx, id), input.type),
    position: (row) => ({ value: row.at, seq: row.seq }),
  });
  return { events: page.items.map(toActivityEvent), nextCursor: page.nextCursor };
}
