import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { failpoint } from '../faults.js';
import { recordLeadEvent } from '../webhooks/outbox.js';
import { crmOnTagged } from '../crm/enqueue.js';
import { BatchSummary, failedItem, ItemError, leadNotFound, readBatchLeadIds, summarize, writeBatch, type BatchLeadId } from './batch.js';
import { AUTO_EXCLUDE_TAGS, LeadTag } from './enums.js';
import { excludeEverywhere, includeAgain } from './exclude.js';
import { findLeadRow } from './lead.js';
import { leadStatements, updateLeadById } from '../../db/sql/leads.js';
import type { LeadRow } from './store.js';
import { wakeDecidedLeads } from '../outreach/wake.js';
import { noteAuditMissing } from '../audit/current.js';

export interface LeadChange {
  tag?: LeadTag | null | undefined;
  excluded?: boolean | undefined;
}

export const UpdateLeadResult = z.object({ leadId: z.string(), tag: LeadTag.nullable(), excluded: z.boolean() });
export type UpdateLeadResult = z.infer<typeof UpdateLeadResult>;

export const UPDATE_ITEM_STATUSES = ['updated', 'not_found', 'validation_error', 'failed'] as const;
export type UpdateItemStatus = (typeof UPDATE_ITEM_STATUSES)[number];

export const UpdateLeadsBatchResult = z.object({
  results: z.array(
    z.object({
      index: z.number().int(),
      leadId: z.string(),
      status: z.enum(UPDATE_ITEM_STATUSES),
      /** The stored values after the item was applied; null when it was not applied. */
      tag: LeadTag.nullable(),
      excluded: z.boolean().nullable(),
      error: ItemError.optional(),
    }),
  ),
  summary: BatchSummary(UPDATE_ITEM_STATUSES),
  creditsCharged: z.number().int(),
});
export type UpdateLeadsBatchResult = z.infer<typeof UpdateLeadsBatchResult>;

/** A change must name tag, excluded or both; the issue names both fields so either fix is clear. */
export function requireTagOrExcluded(change: LeadChange, ctx: z.RefinementCtx): void {
  if (change.tag !== undefined || change.excluded !== undefined) return;
  for (const field of ['tag', 'excluded']) ctx.addIssue({ code: 'custom', path: [field], message: 'give tag, excluded or both' });
}

const isAutoExclude = (tag: LeadTag | null | undefined): boolean => tag !== null && tag !== undefined && AUTO_EXCLUDE_TAGS.has(tag);

/** An auto-exclude tag with `excluded: false` asks for two opposite things. */
const contradicts = (change: LeadChange): boolean => isAutoExclude(change.tag) && change.excluded === false;

const CONTRADICTION = 'excludes the lead, so it cannot be combined with excluded: false. Send one or the other.';

/**
 * Whether exclusion waits behind a polite close: only on a single PATCH that gives a new
 * auto-exclude tag (and no explicit `excluded`) to a lead that is still included and waiting
 * on our reply (`needsReply`). Closing such a conversation with no answer would be rude; the
 * engine sends the close message and then excludes. Batch updates never defer.
 */
const defersExclusion = (lead: LeadRow, change: LeadChange, tagChanged: boolean, single: boolean): boolean =>
  single && tagChanged && isAutoExclude(change.tag) && change.excluded === undefined && lead.needsReply && !lead.excluded;

/**
 * Applies one change to one lead: the tag (taggedAt moves only when the tag changes; the same
 * tag again is a no-op), exclusion workspace-wide or deferred behind a polite close, and one
 * `lead.tagged` outbox event (and the CRM's pushes) when the tag changes to a non-null value. Call it inside a
 * transaction or savepoint, so the change and its event land together or not at all.
 */
function applyChange(ctx: Ctx, lead: LeadRow, change: LeadChange, single: boolean): LeadRow {
  const now = ctx.clock.now();
  const tagChanged = change.tag !== undefined && change.tag !== lead.tag;
  if (tagChanged) {
    const deferred = defersExclusion(lead, change, tagChanged, single);
    updateLeadById(ctx.db, lead.id, {
      tag: change.tag ?? null,
      taggedAt: change.tag === null ? null : now,
      // A new tag replaces whatever the previous one asked of the engine.
      politeClosePendingAt: deferred ? now : null,
      updatedAt: now,
    });
    if (!deferred && isAutoExclude(change.tag)) excludeEverywhere(ctx, lead);
    // A person's tag is a decision the engine may wait on (an `if tagged`): the lead is due now,
    // not at the if's deadline, as after a decision on its draft.
    wakeDecidedLeads(ctx, [lead.id]);
  }
  if (change.excluded === true) excludeEverywhere(ctx, lead);
  if (change.excluded === false) includeAgain(ctx, lead);

  const after = leadStatements(ctx.db).byId.get(lead.id) as LeadRow;
  if (tagChanged && after.tag !== null) {
    recordLeadEvent(ctx, 'lead.tagged', after, { tag: after.tag, previousTag: lead.tag });
    crmOnTagged(ctx, after, after.tag, lead.tag);
  }
  failpoint(ctx, 'leads.update.item', lead.id);
  return after;
}

/** PATCH one lead: tag and/or exclusion. */
export function updateLead(ctx: Ctx, campaignId: string, leadId: string, change: LeadChange): UpdateLeadResult {
  if (contradicts(change)) throw validationError(`tag "${change.tag}" ${CONTRADICTION}`, ['tag', 'excluded']);
  requireCampaignRow(ctx, campaignId);
  const lead = findLeadRow(ctx, campaignId, leadId);
  if (!lead) throw new ApiError('not_found', leadNotFound(leadId, campaignId).message);
  const after = transaction(ctx.db, () => applyChange(ctx, lead, change, true));
  return { leadId: after.id, tag: after.tag as LeadTag | null, excluded: after.excluded };
}

export type BatchLeadChange = LeadChange & { leadId: string };

/**
 * Updates up to 100 leads in one transaction (`writeBatch`), so
 * every applied item is durable once the answer is given. Bad ids, repeats and contradictions
 * fail only their item. An unexpected failure stops the batch: items already applied stay
 * `updated` and that item and every later one is `failed`.
 */
export function updateLeadsBatch(ctx: Ctx, campaignId: string, updates: readonly BatchLeadChange[]): UpdateLeadsBatchResult {
  requireCampaignRow(ctx, campaignId);
  const ids = readBatchLeadIds(
    updates.map((u) => u.leadId),
    (i) => `updates[${i}].leadId`,
  );
  type Item = UpdateLeadsBatchResult['results'][number];
  const notApplied = (index: number, status: Exclude<UpdateItemStatus, 'updated'>, why: ItemError): Item => {
    const { leadId } = ids[index] as BatchLeadId;
    return { index, leadId, status, tag: null, excluded: null, error: why };
  };
  const results = writeBatch(
    ctx,
    { verb: 'update', campaignId },
    updates,
    (update, index): Item => {
      const { leadId, error } = ids[index] as BatchLeadId;
      if (error) return notApplied(index, 'validation_error', error);
      if (contradicts(update)) {
        return notApplied(index, 'validation_error', { code: 'validation_error', message: `updates[${index}].tag "${update.tag}" ${CONTRADICTION}` });
      }
      const lead = findLeadRow(ctx, campaignId, leadId);
      if (!lead) {
        noteAuditMissing(leadId, update.leadId);
        return notApplied(index, 'not_found', leadNotFound(leadId, campaignId));
      }
      const after = applyChange(ctx, lead, update, false);
      return { index, leadId, status: 'updated', tag: after.tag as LeadTag | null, excluded: after.excluded };
    },
    (_update, index) => notApplied(index, 'failed', failedItem()),
  );
  return { results, summary: summarize(UPDATE_ITEM_STATUSES, results), creditsCharged: 0 };
}
