import { leadStatements, updateLeadById, type LeadRow } from '../../db/sql/leads.js';
import { recordActivity } from '../activity/record.js';
import type { Ctx } from '../context.js';
import { recordLeadEvent } from '../webhooks/outbox.js';
import { openReplyDraftsOf, skipDraftRow } from '../drafts/store.js';

/** The skip reason of a reply draft whose conversation a person took over. */
export const HANDED_OFF = 'handed_off';

/**
 * Hands a conversation to a person: stage `handed_off`, the agent's pending work dropped (its
 * reply drafts not yet on the wire end `skipped`, reason `handed_off`: the engine sends nothing
 * more to this lead, so an approval would wait for ever), an `agent_handed_off` activity with
 * the reason, and a `lead.handed_off` webhook event. Call inside a transaction. Returns the
 * updated row.
 */
export function handOffLead(ctx: Ctx, lead: LeadRow, reason: string, at: number, accountId: string | null, changes: Partial<LeadRow> = {}): LeadRow {
  // On the prepared statements of every send (an agent's reply handed off on each of a run's many replies).
  updateLeadById(ctx.db, lead.id, {
    ...changes,
    stage: 'handed_off',
    pendingReplyText: null,
    agentSendKind: null,
    agentSendText: null,
    nextActionAt: null,
    updatedAt: at,
  });
  for (const draftId of openReplyDraftsOf(ctx, lead.id)) skipDraftRow(ctx, draftId, HANDED_OFF);
  const updated = leadStatements(ctx.db).byId.get(lead.id) as LeadRow;
  recordActivity(ctx, { type: 'agent_handed_off', at, lead: updated, handOffReason: reason, accountId });
  recordLeadEvent(ctx, 'lead.handed_off', updated, { handOffReason: reason });
  return updated;
}
