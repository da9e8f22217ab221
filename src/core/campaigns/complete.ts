import { and, eq, exists, sql } from 'drizzle-orm';
import { campaigns, drafts } from '../../db/schema.js';
import { completeByIdOrName, type Completion } from '../completion/match.js';
import type { Ctx } from '../context.js';
import { campaignReach } from '../auth/scope.js';

export interface CompleteCampaignsOptions {
  /** Only campaigns with drafts waiting for a person (the drafts' campaigns). */
  withPendingDrafts?: boolean;
}

/** Campaign ids for a partly typed campaignId: by id prefix or by name, within the workspace. */
export function completeCampaignIds(ctx: Ctx, typed: string, opts: CompleteCampaignsOptions = {}): Completion {
  const pending = opts.withPendingDrafts
    ? exists(
        ctx.db
          .select({ one: sql`1` })
          .from(drafts)
          .where(and(eq(drafts.campaignId, campaigns.id), eq(drafts.status, 'pending'))),
      )
    : undefined;
  // A key held to campaigns completes only those.
  return completeByIdOrName(ctx, { table: campaigns, id: campaigns.id, name: campaigns.name, where: and(pending, campaignReach(ctx, campaigns.id)) }, typed);
}
