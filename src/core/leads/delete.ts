import { forgetConversation } from '../conversations/record.js';
import { forgetDrafts } from '../drafts/store.js';
import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import { isImporting } from '../campaigns/state-machine.js';
import { bookLeadDeleted, refreshCampaignTotals } from '../campaigns/totals.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { failpoint } from '../faults.js';
import { composeFullName } from '../text.js';
import { deleteLeadEnrichment, deleteLeadOfCampaign, leadNamesInCampaign } from './store.js';
import { BatchSummary, failedItem, ItemError, leadNotFound, readBatchLeadIds, summarize, writeBatch } from './batch.js';
import { noteAuditMissing } from '../audit/current.js';

export const DELETE_ITEM_STATUSES = ['deleted', 'not_found', 'validation_error', 'failed'] as const;

export const DeleteLeadsBatchResult = z.object({
  results: z.array(
    z.object({
      index: z.number().int(),
      leadId: z.string(),
      status: z.enum(DELETE_ITEM_STATUSES),
      error: ItemError.optional(),
    }),
  ),
  summary: BatchSummary(DELETE_ITEM_STATUSES),
  creditsCharged: z.number().int(),
  reconciliationFailed: z.boolean(),
});
export type DeleteLeadsBatchResult = z.infer<typeof DeleteLeadsBatchResult>;

/**
 * Deletes one lead of the campaign and books it on the campaign count; false when there is
 * none. Call it inside a transaction or savepoint, so the delete and the count move together.
 */
function deleteOne(ctx: Ctx, campaignId: string, leadId: string): boolean {
  if (deleteLeadOfCampaign(ctx.db, campaignId, leadId) === 0) return false;
  bookLeadDeleted(ctx, campaignId);
  forgetConversation(ctx, leadId);
  forgetDrafts(ctx, leadId);
  deleteLeadEnrichment(ctx.db, leadId);
  failpoint(ctx, 'leads.delete.item', leadId);
  return true;
}

/** How many lead names a deletion question lists before it says how many more. */
const NAMED = 3;

/**
 * The deletion as one question for the person to confirm: how many of the given leads exist in
 * the campaign, the first few by name, and that it cannot be undone. Null when none of them
 * exists or the delete would be refused anyway (deleteLeadsBatch answers those).
 */
export function deleteQuestion(ctx: Ctx, campaignId: string, leadIds: readonly string[]): string | null {
  let campaign: ReturnType<typeof requireCampaignRow>;
  try {
    campaign = requireCampaignRow(ctx, campaignId);
  } catch {
    return null;
  }
  if (campaign.importing) return null;
  const ids = readBatchLeadIds(leadIds, String)
    .filter((item) => item.error === null)
    .map((item) => item.leadId);
  if (ids.length === 0) return null;
  const found = leadNamesInCampaign(ctx.db, campaignId, ids);
  if (found.length === 0) return null;
  const names = found.slice(0, NAMED).map((l) => composeFullName(l.fullName, l.firstName, l.lastName) ?? l.networkUrl ?? l.id);
  const more = found.length > NAMED ? ` and ${found.length - NAMED} more` : '';
  const count = found.length === 1 ? '1 lead' : `${found.length} leads`;
  return `Delete ${count} from campaign "${campaign.name}" (${names.join(', ')}${more})? This cannot be undone, and their credits are not refunded.`;
}

/**
 * Deletes up to 100 leads permanently; their credits are not refunded. The deletes commit in
 * one transaction (`writeBatch`), so a retry of the same ids
 * answers `not_found` for those already gone. The campaign totals are recounted afterwards;
 * if that fails the deletes still stand and the answer says `reconciliationFailed: true`.
 */
export function deleteLeadsBatch(ctx: Ctx, campaignId: string, leadIds: readonly string[]): DeleteLeadsBatchResult {
  const campaign = requireCampaignRow(ctx, campaignId);
  if (isImporting(campaign, ctx.clock.now())) {
    throw new ApiError('conflict', `Campaign ${campaignId} is still finding or importing leads. Retry the delete once the import has finished.`);
  }
  type Item = DeleteLeadsBatchResult['results'][number];
  const results = writeBatch(
    ctx,
    { verb: 'delete', campaignId },
    readBatchLeadIds(leadIds, (i) => `leadIds[${i}]`),
    ({ leadId, error }, index): Item => {
      if (error) return { index, leadId, status: 'validation_error', error };
      if (deleteOne(ctx, campaignId, leadId)) return { index, leadId, status: 'deleted' };
      noteAuditMissing(leadId, leadIds[index]);
      return { index, leadId, status: 'not_found', error: leadNotFound(leadId, campaignId) };
    },
    ({ leadId }, index): Item => ({ index, leadId, status: 'failed', error: failedItem() }),
  );
  const summary = summarize(DELETE_ITEM_STATUSES, results);
  return { results, summary, creditsCharged: 0, reconciliationFailed: summary.deleted > 0 && !reconcile(ctx, campaignId) };
}

function reconcile(ctx: Ctx, campaignId: string): boolean {
  try {
    transaction(ctx.db, () => {
      refreshCampaignTotals(ctx, campaignId);
      failpoint(ctx, 'leads.delete.reconcile', campaignId);
    });
    return true;
  } catch (err) {
    ctx.log.error({ err, campaignId }, 'campaign totals could not be refreshed after a batch delete');
    return false;
  }
}
