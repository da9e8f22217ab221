import type { Ctx } from '../context.js';
import { noteChange } from '../live/feed.js';
import { applyCampaignEvent, campaignNow } from './state-machine.js';
import { bookDeletedLead, bookInsertedLeads, recountTotalLeads } from './store.js';

/**
 * Books inserted leads on their campaign, in the inserting transaction: the count, the update
 * time, and the state machine's `lead_added` (FAILED → READY_TO_SEND, so that start works
 * without a new campaign). A batch books all its inserts at once.
 */
export function bookLeadsInserted(ctx: Ctx, campaignId: string, count: number): void {
  bookInsertedLeads(ctx, campaignId, count, campaignNow(ctx));
  noteChange(ctx, { resource: 'campaign', campaignId });
  if (count > 0) applyCampaignEvent(ctx, campaignId, 'lead_added');
}

/** Books one deleted lead on its campaign, in the deleting transaction. */
export function bookLeadDeleted(ctx: Ctx, campaignId: string): void {
  bookDeletedLead(ctx, campaignId, campaignNow(ctx));
  noteChange(ctx, { resource: 'campaign', campaignId });
}

/**
 * Recounts a campaign's totals from its lead rows. The per-row bookings keep them true as
 * rows come and go; the recount repairs any drift from a writer that bypassed them.
 */
export function refreshCampaignTotals(ctx: Ctx, campaignId: string): void {
  recountTotalLeads(ctx, campaignId, campaignNow(ctx));
  noteChange(ctx, { resource: 'campaign', campaignId });
}
