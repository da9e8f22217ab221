import type { Ctx } from '../context.js';
import type { LeadRow } from '../../db/sql/leads.js';
import { draftSlot } from './prepare.js';
import {
  claimDraftRow,
  draftRowAt,
  markDraftRowSent,
  openStepDraftsOf,
  type OpenStepDraft,
  releaseDraftRowClaim,
  skipClaimedDraftRow,
  skipDraftRow,
} from './store.js';
import { type Draft, toDraft } from './view.js';

/**
 * The engine's side of a draft, in the order of a send:
 *
 * 1. `draftAt`: the lead's draft for the step, to decide (pending: wait; approved: send;
 *    rejected: end the sequence; sent: go on).
 * 2. `claimDraftForSend`, in the transaction that records the send's intent: from then on the
 *    draft cannot change, so the words the provider gets are the words approved.
 * 3. `markDraftSent`, in the transaction that records the result; or `releaseDraftClaim` when the
 *    send did not go out (the draft stays approved and may be sent again, edited or rejected).
 */

/** The lead's draft for a step (or an agent reply turn), whatever its status; null when it has none. */
export function draftAt(ctx: Ctx, leadId: string, at: { stepId: string } | { replyTurn: number }): Draft | null {
  const slot = 'stepId' in at ? draftSlot({ stepId: at.stepId }) : draftSlot({ stepId: null, replyTurn: at.replyTurn });
  const row = draftRowAt(ctx, leadId, slot);
  return row ? toDraft(row) : null;
}

/** The words to send, exactly as approved. */
export interface ClaimedDraft {
  draftId: string;
  text: string;
  subject: string | null;
  accountId: string | null;
}

/**
 * Takes an approved draft for the send of `intentId`. Null when the draft is not approved (any
 * more), or is held by another send: then nothing may be sent for it.
 */
export function claimDraftForSend(ctx: Ctx, draftId: string, intentId: string): ClaimedDraft | null {
  const row = claimDraftRow(ctx, draftId, intentId);
  return row ? { draftId: row.id, text: row.text, subject: row.subject, accountId: row.accountId } : null;
}

/**
 * The claimed draft went out: `sent`, once (a second call, or another intent, changes nothing and
 * answers false). `leadAfter` is the lead as the send leaves it, for the `draft.sent` event.
 */
export const markDraftSent = (ctx: Ctx, draftId: string, intentId: string, leadAfter?: LeadRow, at: number = ctx.clock.now()): boolean =>
  markDraftRowSent(ctx, draftId, intentId, at, leadAfter);

/** The claimed draft did not go out: free again, still approved. */
export const releaseDraftClaim = (ctx: Ctx, draftId: string, intentId: string): boolean => releaseDraftRowClaim(ctx, draftId, intentId);

/**
 * The draft's step can no longer be sent (the lead replied, the step was removed or skipped,
 * the sender lost Sales Navigator, the campaign's agent changed): it ends `skipped` with why.
 * False when it is not pending or approved, or is on the wire (its send settles it).
 */
export const skipDraft = (ctx: Ctx, draftId: string, reason: string): boolean => skipDraftRow(ctx, draftId, reason);

/** A claimed draft whose send went nowhere (the provider refused the step): `skipped` with why, once. */
export const skipClaimedDraft = (ctx: Ctx, draftId: string, intentId: string, reason: string): boolean => skipClaimedDraftRow(ctx, draftId, intentId, reason);

/** The lead's pending or approved step drafts not on the wire, each with its step. */
export const openStepDrafts = (ctx: Ctx, leadId: string): OpenStepDraft[] => openStepDraftsOf(ctx, leadId);
