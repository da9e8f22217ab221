import { z } from 'zod';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { Draft, toDraft } from '../drafts/view.js';
import { ApiError } from '../errors.js';
import { findLeadRow } from '../leads/lead.js';
import { draftRowsOfLead, getPosition, stepEventsOf } from './store.js';

/** At most this many step events are returned, the newest kept. */
export const LEAD_EVENTS_MAX = 200;

export const LeadSequence = z.object({
  position: z
    .object({
      agentId: z.string(),
      stepId: z.string().nullable().describe('The step the lead is at; null once its sequence ended.'),
      enteredAt: IsoTimestamp,
      endReason: z.string().nullable().describe('completed, replied, step_removed, failed, rejected or excluded; null while it runs.'),
      endedAt: IsoTimestamp.nullable(),
    })
    .nullable()
    .describe('Null when the lead has not started a sequence.'),
  events: z.array(
    z.object({
      stepId: z.string(),
      kind: z.string(),
      variant: z.string(),
      event: z.string().describe('sent, skipped, accepted or replied.'),
      reason: z.string().nullable().describe('Why a step was skipped; null otherwise.'),
      at: IsoTimestamp,
    }),
  ),
  drafts: z.array(Draft),
});
export type LeadSequence = z.infer<typeof LeadSequence>;

/**
 * One lead's way through its agent: where it is (or how its sequence ended), what happened at
 * each step (sent, skipped and why, accepted, replied), oldest first, and its drafts. A read:
 * nothing is written.
 */
export function leadSequence(ctx: Ctx, campaignId: string, leadId: string): LeadSequence {
  if (!findLeadRow(ctx, campaignId, leadId)) throw new ApiError('not_found', `No lead ${leadId} in campaign ${campaignId}.`, { fields: ['leadId'] });
  const position = getPosition(ctx, leadId);
  const rows = stepEventsOf(ctx, leadId).slice(-LEAD_EVENTS_MAX);
  const draftRows = draftRowsOfLead(ctx, leadId);
  return {
    position: position
      ? {
          agentId: position.agentId,
          stepId: position.stepId,
          enteredAt: iso(position.enteredAt),
          endReason: position.endReason,
          endedAt: position.endedAt === null ? null : iso(position.endedAt),
        }
      : null,
    events: rows.map((r) => ({ stepId: r.stepId, kind: r.kind, variant: r.variant, event: r.event, reason: r.reason, at: iso(r.at) })),
    drafts: draftRows.filter((r) => r.campaignId === campaignId).map(toDraft),
  };
}
