import { cached } from '../../db/cache.js';
import { exclusionStatements } from '../../db/sql/exclusions.js';
import { transaction } from '../../db/tx.js';
import type { StepKind } from '../agents/steps.js';
import type { Ctx } from '../context.js';
import { openDraftsOfProfile, skipDraftRow } from '../drafts/store.js';
import { ApiError } from '../errors.js';
import { addExclusionUrl, deleteExclusionUrl, exclusionUrlsUpTo } from '../exclusions/store.js';
import { getPosition, recordStep, variantOf } from '../sequences/store.js';
import { updateLeadById } from '../../db/sql/leads.js';
import { type LeadExclusionChange, writeExclusionByUrl } from './store.js';

type LeadRef = { id: string; networkUrl: string | null };

/** Why a draft of an excluded lead ends `skipped`: the reason a sequence ended by an exclusion gives. */
const EXCLUDED = 'excluded';

/**
 * Excludes a lead workspace-wide: its profile URL joins the exclusion list (so later adds
 * are stored excluded) and one bulk UPDATE excludes every lead with that URL in every
 * campaign. A lead with no URL gets only its own flag. Excluded leads get no outreach, so a
 * pending polite close or agent's answer is dropped with it, and the open drafts (steps' and
 * the agent's reply) of every lead it reaches end `skipped` (`excluded`): the engine no longer looks at an excluded lead, so a draft left
 * pending or approved would wait for ever. Runs in the caller's transaction (every path that
 * excludes opens one: update_lead, a batch, an auto-exclude tag, the exclusion list, the CRM, an
 * unsubscribe, a polite close), else in its own, so the drafts close with the exclusion or not
 * at all.
 */
export function excludeEverywhere(ctx: Ctx, lead: LeadRef): void {
  transaction(ctx.db, () => {
    const now = ctx.clock.now();
    // nextActionAt null takes the lead off the engine's due-work queue; an agent's answer still
    // waiting to be decided or sent is dropped, as its draft is below.
    const excluding: LeadExclusionChange = {
      excluded: true,
      politeClosePendingAt: null,
      pendingReplyText: null,
      agentSendKind: null,
      agentSendText: null,
      nextActionAt: null,
      updatedAt: now,
    };
    if (lead.networkUrl === null) {
      updateLeadById(ctx.db, lead.id, excluding);
    } else {
      addExclusionUrl(ctx, lead.networkUrl, now);
      writeExclusionByUrl(ctx.db, lead.networkUrl, excluding);
    }
    closeDraftsOfExcluded(ctx, lead);
  });
}

/**
 * Ends the open drafts (pending or approved, not on the wire) of the leads an exclusion
 * reaches, `skipped` with reason `excluded`, each step's counted as a skipped step of the lead's agent
 * on the engine's clock, so get_agent_stats counts the draft that was never sent. This is what
 * `closeDraftsOfEndedSequence` (outreach/runner.ts) does for a sequence ended `excluded` (the CRM
 * and the unsubscribe still call it after this, and find nothing left open); it is not called
 * from here because the runner reads the exclusion list through this module, and the import
 * would close a cycle. A draft on the wire is left to its send, which settles it. Each skip
 * notes its campaign's draft queue on the change feed (the drafts store does), so a live
 * dashboard's queue and its count of waiting drafts drop the draft at once.
 */
function closeDraftsOfExcluded(ctx: Ctx, lead: LeadRef): void {
  const open = openDraftsOfProfile(ctx, lead);
  if (open.length === 0) return;
  const at = ctx.simClock.now();
  for (const draft of open) {
    if (!skipDraftRow(ctx, draft.id, EXCLUDED)) continue;
    // The agent's reply is no step; a lead never placed in a sequence has no step to count the draft against.
    if (draft.stepId === null) continue;
    const position = getPosition(ctx, draft.leadId);
    if (!position) continue;
    recordStep(ctx, {
      leadId: draft.leadId,
      campaignId: draft.campaignId,
      agentId: position.agentId,
      stepId: draft.stepId,
      kind: draft.kind as StepKind,
      variant: variantOf(ctx, draft.leadId, draft.stepId) ?? 'A',
      event: 'skipped',
      reason: EXCLUDED,
      at,
    });
  }
}

/**
 * Takes a lead back into outreach: its own flag clears and its URL leaves the exclusion list,
 * so it can be added again without being excluded. Other leads with the same URL keep their
 * flags: each may have been excluded for its own reason (a tag in its own campaign).
 */
export function includeAgain(ctx: Ctx, lead: LeadRef): void {
  if (lead.networkUrl !== null) deleteExclusionUrl(ctx, lead.networkUrl);
  // nextActionAt 0 puts the lead back on the engine's queue, to pick up where it stopped.
  updateLeadById(ctx.db, lead.id, { excluded: false, politeClosePendingAt: null, nextActionAt: 0, updatedAt: ctx.clock.now() });
}

/** Past this many entries the list is not kept in memory, and each URL is looked up. */
const KEPT_EXCLUSIONS_MAX = 50_000;
/**
 * The whole exclusion list, kept while the `exclusions` counter stands still (the engine asks
 * about every lead it plans), or null when it is too long to keep.
 */
const keptList = cached('exclusions', (db): ReadonlySet<string> | null => {
  const rows = exclusionUrlsUpTo({ db }, KEPT_EXCLUSIONS_MAX + 1);
  return rows.length > KEPT_EXCLUSIONS_MAX ? null : new Set(rows.map((r) => r.networkUrl));
});

export function isOnExclusionList(ctx: Ctx, networkUrl: string | null): boolean {
  if (networkUrl === null) return false;
  const list = keptList(ctx.db);
  return list !== null ? list.has(networkUrl) : exclusionStatements(ctx.db).has.get(networkUrl) !== undefined;
}

/** Whether a lead is kept out of outreach: its own flag, or its profile URL on the workspace exclusion list. */
export function isExcludedLead(ctx: Ctx, lead: { excluded: boolean; networkUrl: string | null }): boolean {
  return lead.excluded || isOnExclusionList(ctx, lead.networkUrl);
}

/**
 * Refuses a person's message to an excluded lead (see isExcludedLead), on either channel, with
 * a `conflict` before anything is recorded: the LinkedIn send (send_message, reply_conversation)
 * and the email reply make this one check.
 */
export function refuseExcludedLead(ctx: Ctx, lead: { id: string; excluded: boolean; networkUrl: string | null }, channel: 'linkedin' | 'email'): void {
  if (!isExcludedLead(ctx, lead)) return;
  throw new ApiError(
    'conflict',
    `Lead ${lead.id} is excluded from outreach, so it is not ${channel === 'email' ? 'emailed' : 'messaged'}. Clear the exclusion first if this is intended.`,
  );
}
