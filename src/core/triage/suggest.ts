import { reachesCampaign } from '../auth/scope.js';
import { z } from 'zod';
import { leadStatements, type LeadRow } from '../../db/sql/leads.js';
import { transaction } from '../../db/tx.js';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import {
  claimTriagePending,
  dropTriagePending,
  lastInboundAtOf,
  markTriagePending,
  newestMessages,
  readSuggestion,
  stillPending,
  writeSuggestion,
  type StoredSuggestion,
} from '../conversations/store.js';
import { DrafterFailure } from '../drafts/drafter.js';
import { ApiError } from '../errors.js';
import { LeadTag } from '../leads/enums.js';
import { clean, composeFullName } from '../text.js';
import { SUGGESTED_BY } from '../webhooks/payloads.js';
import { recordLeadEvent } from '../webhooks/outbox.js';
import { ruleFor, triageByRules, type RuleReason } from './rules.js';
import { parseTagAnswer, REASON_MAX, type TagRequest } from './triager.js';

export { SUGGESTED_BY };
export type SuggestedBy = (typeof SUGGESTED_BY)[number];

/** A thread's suggestion as every face shows it. */
export const TagSuggestion = z.object({
  tag: LeadTag,
  suggestedBy: z.enum(SUGGESTED_BY),
  confidence: z.number().min(0).max(1),
  reason: z.string().nullable(),
  suggestedAt: IsoTimestamp,
});
export type TagSuggestion = z.infer<typeof TagSuggestion>;

/** The stored row's suggestion in its public shape, or null. */
export function suggestionView(s: Pick<StoredSuggestion, 'tag' | 'suggestedBy' | 'confidence' | 'reason' | 'at'> | null): TagSuggestion | null {
  if (!s) return null;
  const tag = LeadTag.safeParse(s.tag);
  const by = z.enum(SUGGESTED_BY).safeParse(s.suggestedBy);
  if (!tag.success || !by.success) return null;
  return { tag: tag.data, suggestedBy: by.data, confidence: s.confidence, reason: s.reason, suggestedAt: iso(s.at) };
}

interface NewSuggestion {
  tag: LeadTag;
  suggestedBy: SuggestedBy;
  confidence: number;
  reason: string | null;
}

/**
 * Stores a suggestion with the lead's thread and raises `lead.tag_suggested`, in the caller's
 * transaction. It tags nothing: confirming is setting the tag (update_lead), with its rules.
 */
function recordSuggestion(ctx: Ctx, lead: LeadRow, s: NewSuggestion): boolean {
  if (!writeSuggestion(ctx, lead.id, { ...s, at: ctx.simClock.now() })) return false;
  recordLeadEvent(ctx, 'lead.tag_suggested', lead, { suggestion: s });
  return true;
}

/**
 * Triage of a reply as it is recorded, in the reply's transaction (call it after the message):
 * the rules first (out-of-office, bounce, unsubscribe); when none applies and a model is
 * configured, the reply waits for the model (the triage worker asks it, outside any
 * transaction). Without a model, nothing more happens.
 */
export function triageReply(ctx: Ctx, lead: LeadRow, text: string, at: number): void {
  const rule = triageByRules(text);
  if (rule) {
    recordSuggestion(ctx, lead, { tag: rule.tag, suggestedBy: 'rule', confidence: rule.confidence, reason: rule.reason });
    return;
  }
  if (ctx.triager) markTriagePending(ctx, lead.id, at);
}

/**
 * A rule's suggestion for what the mail stack recognised without reading words: a bounce
 * report (`Wrong person`) or a one-click unsubscribe (`Not interested`). In the caller's
 * transaction; a lead with no conversation gets none.
 */
export function suggestByRule(ctx: Ctx, lead: LeadRow, reason: RuleReason): void {
  const rule = ruleFor(reason);
  recordSuggestion(ctx, lead, { tag: rule.tag, suggestedBy: 'rule', confidence: rule.confidence, reason: rule.reason });
}

export const SuggestTagInput = z.strictObject({
  leadId: z.string(),
  tag: LeadTag.describe('The tag suggested for the newest reply.'),
  confidence: z.number().min(0).max(1).describe('How sure, 0..1.'),
  reason: z.string().trim().min(1).max(REASON_MAX).optional().describe('A few words on why, shown beside the suggestion.'),
});

export const SuggestTagResult = z.object({ leadId: z.string(), suggestion: TagSuggestion });

/**
 * The assistant's suggestion for a thread (tool suggest_tag): stored like the rules' and the
 * model's, and confirmed the same way. A lead with no thread, or one that never replied, has
 * nothing to triage.
 */
export function suggestTagByAssistant(ctx: Ctx, input: z.output<typeof SuggestTagInput>): z.infer<typeof SuggestTagResult> {
  return transaction(ctx.db, () => {
    const lead = leadStatements(ctx.db).byId.get(input.leadId);
    // A key held to campaigns finds no lead of another campaign, as if absent.
    if (!lead || !reachesCampaign(ctx, lead.campaignId))
      throw new ApiError('not_found', `No lead ${input.leadId}. Pick a thread from list_conversations.`, { fields: ['leadId'] });
    // A tag is suggested for a reply: a thread of our own messages only has nothing to triage.
    const repliedAt = lastInboundAtOf(ctx, lead.id);
    if (repliedAt === null) throw new ApiError('not_found', `Lead ${input.leadId} has no conversation to triage yet.`, { fields: ['leadId'] });
    if (repliedAt === 0)
      throw new ApiError('not_found', `Lead ${input.leadId} has not replied yet: its thread holds only messages sent to it, so there is no reply to triage.`, {
        fields: ['leadId'],
      });
    recordSuggestion(ctx, lead, { tag: input.tag, suggestedBy: 'assistant', confidence: input.confidence, reason: input.reason ?? null });
    const suggestion = suggestionView(readSuggestion(ctx, lead.id));
    if (!suggestion) throw new Error('the suggestion just stored could not be read back');
    return { leadId: lead.id, suggestion };
  });
}

/** How many of a thread's newest messages the model reads, and how much of each. */
export const MODEL_THREAD_MESSAGES = 10;
export const MODEL_MESSAGE_CHARS = 2000;

function tagRequest(ctx: Ctx, lead: LeadRow): TagRequest {
  const rows = newestMessages(ctx, lead.id, MODEL_THREAD_MESSAGES);
  return {
    lead: { name: composeFullName(lead.fullName, lead.firstName, lead.lastName), jobTitle: clean(lead.jobTitle), companyName: clean(lead.companyName) },
    // What people wrote: a mail server's bounce notice is no words of the lead's.
    messages: rows
      .filter((m) => m.sender !== 'mail_server')
      .map((m) => ({ from: m.direction === 'inbound' ? 'lead' : 'us', text: Array.from(m.text).slice(0, MODEL_MESSAGE_CHARS).join('') })),
  };
}

export interface ModelTriageOutcome {
  suggested: number;
  /** Threads the model failed on, or answered outside the contract; they are not asked again. */
  failed: number;
}

/** Longer than a model call may take (the drafter's timeout is at most 600 s). */
export const TRIAGE_LEASE_MS = 11 * 60_000;

/**
 * Asks the model about up to `limit` replies waiting for it, one at a time and outside any
 * transaction; each answer is stored in its own transaction unless a newer reply came meanwhile
 * (that one is waiting its turn). A failure or an answer outside the contract is logged and the
 * reply is not asked about again: it stays in the inbox, untagged, as it would without a model.
 */
export async function triagePendingByModel(ctx: Ctx, limit = 20): Promise<ModelTriageOutcome> {
  const triager = ctx.triager;
  const outcome: ModelTriageOutcome = { suggested: 0, failed: 0 };
  if (!triager) return outcome;
  const now = ctx.clock.now();
  const claims = transaction(ctx.db, () => claimTriagePending(ctx, now, now + TRIAGE_LEASE_MS, limit));
  for (const claim of claims) {
    const lead = leadStatements(ctx.db).byId.get(claim.leadId);
    if (!lead) continue;
    let answer: ReturnType<typeof parseTagAnswer> = null;
    let problem: string | null = null;
    try {
      answer = parseTagAnswer(await triager.suggestTag(tagRequest(ctx, lead)));
      if (!answer) problem = 'The model answered outside the contract (a JSON object with a lead tag and a confidence 0..1).';
    } catch (err) {
      problem = err instanceof DrafterFailure ? err.message : 'The model call failed.';
    }
    transaction(ctx.db, () => {
      if (!stillPending(ctx, claim.leadId, claim.pendingAt)) return;
      if (answer) {
        const current = leadStatements(ctx.db).byId.get(claim.leadId);
        if (current && recordSuggestion(ctx, current, { tag: answer.tag, suggestedBy: 'model', confidence: answer.confidence, reason: answer.reason })) {
          outcome.suggested++;
          return;
        }
      }
      dropTriagePending(ctx, claim.leadId, claim.pendingAt);
      outcome.failed++;
      ctx.log.warn({ leadId: claim.leadId, problem }, 'triage: the model suggested no tag for a reply');
    });
  }
  return outcome;
}
