import { eq } from 'drizzle-orm';
import { leads } from '../../db/schema.js';
import { recordActivity } from '../activity/record.js';
import type { Ctx } from '../context.js';
import { recordLeadEvent } from '../webhooks/outbox.js';

type LeadRow = typeof leads.$inferSelect;

/**
 * Hands a conversation to a person: stage `handed_off`, the agent's pending work dropped,
 * an `agent_handed_off` activity with the reason, and a `lead.handed_off` webhook event.
 * Call inside a transaction. Returns the updated row.
 */
export function handOffLead(ctx: Ctx, lead: LeadRow, reason: string, at: number, accountId: string | null, changes: Partial<LeadRow> = {}): LeadRow {
  ctx.db
    .update(leads)
    .set({ ...changes, stage: 'handed_off', pendingReplyText: null, agentSendKind: null, agentSendText: null, nextActionAt: null, updatedAt: at })
    .where(eq(leads.id, lead.id))
    .run();
  const updated = ctx.db.select().from(leads).where(eq(leads.id, lead.id)).get() as LeadRow;
  recordActivity(ctx, { type: 'agent_handed_off', at, lead: updated, handOffReason: reason, accountId });
  recordLeadEvent(ctx, 'lead.handed_off', updated, { handOffReason: reason });
  return updated;
}
