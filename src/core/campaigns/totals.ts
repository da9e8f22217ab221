import { eq, sql } from 'drizzle-orm';
import { perDb } from '../../db/prepared.js';
import { campaigns, leads } from '../../db/schema.js';
import type { Ctx } from '../context.js';
import { noteChange } from '../live/feed.js';
import { applyCampaignEvent, campaignNow } from './state-machine.js';

/**
 * Books inserted leads on their campaign, in the inserting transaction: the count, the update
 * time, and the state machine's `lead_added` (FAILED → READY_TO_SEND, so that start works
 * without a new campaign). A batch books all its inserts at once.
 */
export function bookLeadsInserted(ctx: Ctx, campaignId: string, count: number): void {
  bookInserts(ctx.db).run({ campaignId, count, now: campaignNow(ctx) });
  noteChange(ctx, { resource: 'campaign', campaignId });
  if (count > 0) applyCampaignEvent(ctx, campaignId, 'lead_added');
}

/** Prepared once per connection: every add books through it. */
const bookInserts = perDb((db) =>
  db
    .update(campaigns)
    .set({
      totalLeads: sql`${campaigns.totalLeads} + ${sql.placeholder('count')}`,
      updatedAt: sql`${sql.placeholder('now')}`,
    })
    .where(eq(campaigns.id, sql.placeholder('campaignId')))
    .prepare(),
);

/** Books one deleted lead on its campaign, in the deleting transaction. */
export function bookLeadDeleted(ctx: Ctx, campaignId: string): void {
  ctx.db
    .update(campaigns)
    .set({ totalLeads: sql`max(${campaigns.totalLeads} - 1, 0)`, updatedAt: campaignNow(ctx) })
    .where(eq(campaigns.id, campaignId))
    .run();
  noteChange(ctx, { resource: 'campaign', campaignId });
}

/**
 * Recounts a campaign's totals from its lead rows. The per-row bookings keep them true as
 * rows come and go; the recount repairs any drift from a writer that bypassed them.
 */
export function refreshCampaignTotals(ctx: Ctx, campaignId: string): void {
  ctx.db
    .update(campaigns)
    .set({ totalLeads: sql`(SELECT count(*) FROM ${leads} WHERE ${leads.campaignId} = ${campaignId})`, updatedAt: campaignNow(ctx) })
    .where(eq(campaigns.id, campaignId))
    .run();
  noteChange(ctx, { resource: 'campaign', campaignId });
}
