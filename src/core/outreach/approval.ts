import type { RenderLead } from '../agents/render.js';
import { variantCount, type VariantLetter } from '../agents/steps.js';
import type { StepWords } from '../steps/kind.js';
import { kindOf } from '../steps/registry.js';
import type { Ctx } from '../context.js';
import { draftAt } from '../drafts/send.js';
import { variantOf } from '../sequences/store.js';
import { carriesWords, type DraftState, type PerformStep } from './sequence.js';

/**
 * The step runner's side of drafts and approval (docs/drafts.md, "How the engine uses drafts"):
 * what a step says for a lead, and where the lead's draft for it stands. The drafts themselves
 * are written only by src/core/drafts/.
 */

/** A step's words for the lead, in the variant drawn, as its kind renders them: an invitation's note (null: none), a message, an InMail's subject and text. */
export function wordsFor(step: PerformStep, lead: RenderLead, variant: VariantLetter): StepWords {
  return kindOf(step).words?.(step, lead, variant) ?? { text: null, subject: null, template: null };
}

/**
 * Where the lead's draft for a step stands (LeadFacts.draftOf): its status; null when it has none
 * yet; `not_needed` when the step has no words for this lead (an invitation whose drawn note is
 * empty, a text that renders to nothing): such a step is sent as it is, with no draft.
 */
export function draftLookup(ctx: Ctx, lead: RenderLead & { id: string }, approval: boolean): (step: PerformStep) => DraftState | 'not_needed' | null {
  return (step) => {
    if (!carriesWords(step)) return 'not_needed';
    const draft = draftAt(ctx, lead.id, { stepId: step.id });
    // An exclusion counted the step skipped when it closed the draft (leads/exclude.ts).
    if (draft?.status === 'skipped' && draft.skipReason === 'excluded') return 'skipped_counted';
    if (draft) return draft.status as DraftState;
    // Without approval a step with no draft goes as it is (a draft left from before is still used).
    if (!approval) return 'not_needed';
    const drawn = variantOf(ctx, lead.id, step.id) ?? (variantCount(step) <= 1 ? 'A' : undefined);
    // Not drawn yet: the draft's writer draws it, and then knows.
    if (drawn === undefined) return null;
    const text = wordsFor(step, lead, drawn).text;
    return text === null || text.trim() === '' ? 'not_needed' : null;
  };
}

/** Where the draft of the agent's reply waiting to be sent stands: one draft per reply turn. */
export function replyDraftOf(ctx: Ctx, lead: { id: string; agentTurns: number }): DraftState | null {
  return (draftAt(ctx, lead.id, { replyTurn: lead.agentTurns })?.status as DraftState | undefined) ?? null;
}
