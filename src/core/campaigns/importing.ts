import { and, eq } from 'drizzle-orm';
import { campaigns, lookalikeJobs } from '../../db/schema.js';
import { countRows, transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { requireCampaignRow } from './campaign.js';

/**
 * A file import marks its campaign `importing` while rows go in, so pause and batch-delete
 * answer 409 meanwhile (as they do while Lookalike fills a campaign). A flag left set by an
 * import that crashed is taken over by the next import of that campaign; only a Lookalike job
 * still filling the campaign refuses the import.
 */
export function beginImport(ctx: Ctx, campaignId: string): void {
  transaction(ctx.db, () => {
    const row = requireCampaignRow(ctx, campaignId);
    if (row.status === 'COMPLETED' || row.status === 'DONE') {
      throw new ApiError(
        'conflict',
        `Campaign ${campaignId} is ${row.status} and is never restarted, so imported leads would never be contacted. Import into a new campaign.`,
      );
    }
    if (countRows(ctx.db, lookalikeJobs, and(eq(lookalikeJobs.campaignId, campaignId), eq(lookalikeJobs.state, 'pending')))) {
      throw new ApiError('conflict', `Lookalike is still adding leads to campaign ${campaignId}. Import once it has finished (poll get_campaign).`);
    }
    ctx.db.update(campaigns).set({ importing: true, updatedAt: ctx.clock.now() }).where(eq(campaigns.id, campaignId)).run();
  });
}

/** Clears the flag, unless a Lookalike job began filling the campaign meanwhile (it clears it when done). */
export function endImport(ctx: Ctx, campaignId: string): void {
  transaction(ctx.db, () => {
    if (countRows(ctx.db, lookalikeJobs, and(eq(lookalikeJobs.campaignId, campaignId), eq(lookalikeJobs.state, 'pending')))) return;
    ctx.db.update(campaigns).set({ importing: false, updatedAt: ctx.clock.now() }).where(eq(campaigns.id, campaignId)).run();
  });
}
