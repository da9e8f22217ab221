import { completeByIdOrName, type Completion } from '../completion/match.js';
import type { Ctx } from '../context.js';
import { campaignReach } from '../auth/scope.js';
import { campaignCompletable } from './store.js';

export interface CompleteCampaignsOptions {
  /** Only campaigns with drafts waiting for a person (the drafts' campaigns). */
  withPendingDrafts?: boolean;
}

/** Campaign ids for a partly typed campaignId: by id prefix or by name, within the workspace. */
export function completeCampaignIds(ctx: Ctx, typed: string, opts: CompleteCampaignsOptions = {}): Completion {
  // A key held to campaigns completes only those.
  return completeByIdOrName(
    ctx,
    campaignCompletable(ctx, (id) => campaignReach(ctx, id), opts.withPendingDrafts === true),
    typed,
  );
}
