import { inTransaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { findLeadRow } from '../leads/lead.js';
import { clean } from '../text.js';
import { DrafterFailure } from './drafter.js';
import { DRAFT_LIMITS, draftFieldProblem, fitRendered, hasSubject, type DraftKind } from './rules.js';
import { draftRowAt, insertDraft } from './store.js';
import { type Draft, toDraft, toDraftLead } from './view.js';

/**
 * How the engine asks for a draft: a lead that reached a note, message or InMail step of a
 * campaign with approval required (or an agent reply to draft). The text comes rendered for
 * the lead; it is made fit for a draft (no `{{`, within the kind's length) and kept as the
 * draft's `renderedText` beside whatever a model or a person writes later.
 */
export interface DraftInput {
  campaignId: string;
  leadId: string;
  /** The step (`stp_…`); null for an agent's reply, which gives `replyTurn` instead. */
  stepId: string | null;
  /** For an agent reply: which of the conversation's automatic replies this is (0, 1, …). */
  replyTurn?: number | undefined;
  variant: string | null;
  kind: DraftKind;
  /** The sender fixed for the lead, when known. */
  accountId?: string | null | undefined;
  /** The step's text rendered for the lead (an invitation's note, a message, an InMail's body). */
  text: string;
  /** An InMail's subject, rendered; null for the other kinds. */
  subject?: string | null | undefined;
  /** The step's text as written, placeholders included: context for the model. */
  template?: string | null | undefined;
}

/** What makes a draft unique for its lead: one per step, one per agent reply turn. */
export function draftSlot(input: Pick<DraftInput, 'stepId' | 'replyTurn'>): string {
  if (input.stepId !== null) return `step:${input.stepId}`;
  if (input.replyTurn === undefined || !Number.isInteger(input.replyTurn) || input.replyTurn < 0) {
    throw new TypeError('a draft needs a stepId, or a replyTurn (integer ≥ 0) for an agent reply');
  }
  return `reply:${input.replyTurn}`;
}

function rendered(input: DraftInput): { text: string; subject: string | null } {
  const text = fitRendered(input.kind, 'text', input.text);
  if (text === '') throw new TypeError(`draft for lead ${input.leadId}: the rendered text is empty; a step with nothing to say needs no draft`);
  const subject = hasSubject(input.kind) ? fitRendered(input.kind, 'subject', input.subject ?? '') || null : null;
  return { text, subject };
}

/**
 * The lead's draft for this step (or reply turn): created `pending` with the rendered text, or
 * the one it already has, whatever its status: the engine asks again on every pass and reads
 * the status (pending: wait; approved: send it; rejected: end the sequence; sent: go on).
 * Synchronous, so it may run inside the engine's transaction; it never calls a model.
 */
export function draftFor(ctx: Ctx, input: DraftInput): Draft {
  const slot = draftSlot(input);
  const existing = draftRowAt(ctx, input.leadId, slot);
  if (existing) return toDraft(existing);
  const { text, subject } = rendered(input);
  return toDraft(insertDraft(ctx, newDraft(input, slot, text, subject, text, null)).row);
}

function newDraft(input: DraftInput, slot: string, renderedText: string, subject: string | null, text: string, drafterError: string | null) {
  return {
    campaignId: input.campaignId,
    leadId: input.leadId,
    stepId: input.stepId,
    slot,
    variant: input.variant,
    kind: input.kind,
    accountId: input.accountId ?? null,
    subject,
    text,
    renderedSubject: subject,
    renderedText,
    drafterError,
  };
}

/**
 * `draftFor` with the optional model: a new draft is first rewritten by the configured model,
 * and only then enters the queue, so nobody approves words that are about to change. The model
 * is called outside any transaction (it refuses to run inside one). Its answer is untrusted:
 * it must pass the rules a person's edit passes; a failure, a timeout or an answer that breaks
 * a rule leaves the rendered text and records why in `drafterError`. Without a configured model
 * this is `draftFor`.
 */
export async function prepareDraft(ctx: Ctx, input: DraftInput): Promise<Draft> {
  if (inTransaction(ctx.db)) throw new Error('prepareDraft may call a model: run it outside any transaction');
  const slot = draftSlot(input);
  const existing = draftRowAt(ctx, input.leadId, slot);
  if (existing) return toDraft(existing);
  const drafter = ctx.drafter;
  if (!drafter) return draftFor(ctx, input);
  const { text: renderedText, subject } = rendered(input);
  let text = renderedText;
  let drafterError: string | null = null;
  const lead = findLeadRow(ctx, input.campaignId, input.leadId);
  try {
    const answer = (
      await drafter.rewrite({
        kind: input.kind,
        template: input.template ?? null,
        rendered: renderedText,
        subject,
        maxLength: DRAFT_LIMITS[input.kind].text,
        lead: lead
          ? { ...toDraftLead(lead), firstName: clean(lead.firstName) }
          : { fullName: null, firstName: null, jobTitle: null, companyName: null, headline: null, location: null, personalization: null, networkUrl: null },
      })
    ).trim();
    const problem = draftFieldProblem(input.kind, 'text', answer);
    if (problem) drafterError = `The model's text ${problem === 'must not be blank.' ? 'was empty.' : problem}`;
    else text = answer;
  } catch (err) {
    drafterError = err instanceof DrafterFailure ? err.message : 'The model call failed.';
  }
  if (drafterError) ctx.log.warn({ campaignId: input.campaignId, leadId: input.leadId, drafterError }, 'the drafter left the rendered text');
  return toDraft(insertDraft(ctx, newDraft(input, slot, renderedText, subject, text, drafterError)).row);
}
