import type { Ctx } from '../context.js';
import type { AgentDecision, AgentInput } from './agent.js';
import type { PendingSend } from './deferral.js';
import { needsEnrichment, type EnrichInput, type EnrichOutcome } from './enrich.js';
import { ACCOUNT_RETRY_MS, retryAfterError } from './failures.js';
import { placeholders } from './personalize.js';
import { kindOfSend } from '../steps/registry.js';
import { isAccepted, isStepSend, type LeadAction, type SendKind } from './plan.js';
import { touchWait } from './readiness.js';
import { excludeNow, failLead, moveDue, recordAgentDecision } from './queue.js';
import type { EngineSettings } from './settings.js';
import { wordsProblem } from '../validation.js';
import type { DraftInput } from '../drafts/prepare.js';
import { draftInputFor, recordSequenceAt, senderFor, type SenderPins } from './runner.js';
import type { WalkStart } from './sequence.js';
import { mailboxFor } from '../email/lead.js';
import { effectiveAccountId, getLead, planFor, sendersOf, type CampaignInfo, type LeadRow } from './state.js';

/**
 * What the engine does with a lead that came due, decided from its stored state alone:
 * - `recorded`: nothing to send now; what changed (a later due time, the end of its work, a
 *   failure, an exclusion) is already written;
 * - `send`: a provider call from an account, to queue in that account's lane;
 * - `ask_agent`: a reply waits for the agent's decision (the engine asks, then calls `afterAgent`);
 * - `draft`: a step's words (or the agent's answer) wait for a person: the engine writes the
 *   draft, outside any transaction since a model may write it first (`prepareDraft`), then calls
 *   `afterDraft`;
 * - `enrich`: a lead known only by its URL is looked up through its sender before its words
 *   render (`enrichLead`, which records what came of it), then the engine calls `afterEnrich`.
 */
export type LeadWork =
  | { kind: 'recorded' }
  | { kind: 'send'; send: PendingSend }
  | { kind: 'ask_agent'; input: AgentInput }
  | { kind: 'draft'; input: DraftInput }
  | { kind: 'enrich'; input: EnrichInput };

const RECORDED: LeadWork = { kind: 'recorded' };

/** A lead with an open conversation: a polite close has someone to thank. */
const hasConversation = (lead: LeadRow): boolean => lead.chatId !== null || lead.messageSent || lead.replied || lead.sequenceStep > 0;

/**
 * A send from the lead's account, or, without one, a wait for an account to be assigned. A lead
 * of a campaign with senders gets its sender at its first step (the step runner's senderFor).
 * The campaign follows the account (waits while it is idle) when it is its only sender.
 */
function sendOrWait(ctx: Ctx, lead: LeadRow, info: CampaignInfo, kind: SendKind, due: number | null, now: number, pins?: SenderPins): LeadWork {
  // An email goes from the lead's mailbox (pinned at its first email step), in that mailbox's lane.
  const email = isStepSend(kind) && kindOfSend(kind)?.channel === 'email';
  const accountId = email ? mailboxFor(ctx, lead, info, now, pins) : isStepSend(kind) ? senderFor(ctx, lead, info, now, pins) : effectiveAccountId(lead, info);
  if (accountId === null) {
    moveDue(ctx, lead.id, due, now + ACCOUNT_RETRY_MS);
    return RECORDED;
  }
  const senders = sendersOf(info);
  return { kind: 'send', send: { leadId: lead.id, kind, accountId, due, followsSender: !email && senders.length === 1 && accountId === senders[0] } };
}

/**
 * A nameless lead about to have words rendered for it is looked up first, through the account
 * that will send them (its sender is fixed now, as its send would fix it). Null: no lookup is
 * needed. A lead whose sender cannot be chosen now waits, as for a send.
 */
function enrichFirst(ctx: Ctx, lead: LeadRow, info: CampaignInfo, kind: LeadAction['kind'], now: number, pins?: SenderPins): LeadWork | null {
  if (lead.networkUrl === null || !needsEnrichment(ctx, lead, info, kind)) return null;
  const accountId = lead.agentSendKind !== null ? effectiveAccountId(lead, info) : senderFor(ctx, lead, info, now, pins);
  if (accountId === null) {
    moveDue(ctx, lead.id, lead.nextActionAt, now + ACCOUNT_RETRY_MS);
    return RECORDED;
  }
  return { kind: 'enrich', input: { leadId: lead.id, accountId, networkUrl: lead.networkUrl, due: lead.nextActionAt } };
}

/**
 * The one verb that decides a lead's next action (src/core/outreach/plan.ts gives it, from the
 * lead's stored state), and records whatever needs no provider call: the worker only queues
 * what this returns. `now` is the tick's time. `position` is the lead's stored position when
 * the step runner has just written it (see planFor), so it is not read back.
 */
export function workLead(
  ctx: Ctx,
  lead: LeadRow,
  info: CampaignInfo,
  settings: EngineSettings,
  now: number,
  pins?: SenderPins,
  again = true,
  position?: WalkStart | 'ended' | null,
): LeadWork {
  const plan = planFor(ctx, lead, info, settings, position);
  if (plan === null || plan.at > now) {
    moveDue(ctx, lead.id, lead.nextActionAt, plan?.at ?? null);
    return RECORDED;
  }
  const action = plan.action;
  switch (action.kind) {
    case 'finish':
    case 'step': {
      // The step runner records what it passed (a start, skipped steps, the end); a step due at
      // once is then worked in this same turn.
      const { lead: after, position: at } = recordSequenceAt(ctx, lead, info, settings, now);
      if (again && after.nextActionAt !== null && after.nextActionAt <= now) return workLead(ctx, after, info, settings, now, pins, false, at);
      return RECORDED;
    }
    case 'draft': {
      const enrich = enrichFirst(ctx, lead, info, 'draft', now, pins);
      if (enrich) return enrich;
      const input = draftInputFor(ctx, lead, info, settings, now, pins);
      if (input === 'no_sender') {
        moveDue(ctx, lead.id, lead.nextActionAt, now + ACCOUNT_RETRY_MS);
        return RECORDED;
      }
      if (input !== null) return { kind: 'draft', input };
      // Nothing to write after all (a rejected answer handed to a person, a note empty for the lead).
      const { lead: after, position: at } = recordSequenceAt(ctx, lead, info, settings, now);
      if (again && after.nextActionAt !== null && after.nextActionAt <= now) return workLead(ctx, after, info, settings, now, pins, false, at);
      return RECORDED;
    }
    case 'fail':
      failLead(ctx, lead.id, info, settings);
      return RECORDED;
    case 'decide':
      return { kind: 'ask_agent', input: agentInput(lead) };
    case 'polite_close':
      if (lead.excluded || info.status !== 'CAMPAIGN_IN_PROGRESS' || !hasConversation(lead) || effectiveAccountId(lead, info) === null) {
        // Nothing to close politely (or no traffic allowed): exclude at once, silently.
        excludeNow(ctx, lead);
        return RECORDED;
      }
      return sendOrWait(ctx, lead, info, 'polite_close', lead.nextActionAt, now);
    default:
      // A touch ahead of the invitation (a visit, a like: as its kind says) keeps pace with the invitations.
      if (kindOfSend(action.kind)?.touch === true)
        return enrichFirst(ctx, lead, info, action.kind, now, pins) ?? touchOrWait(ctx, lead, info, settings, action.kind, now, pins);
      return enrichFirst(ctx, lead, info, action.kind, now, pins) ?? sendOrWait(ctx, lead, info, action.kind, lead.nextActionAt, now, pins);
  }
}

/**
 * A visit or a like before the lead's invitation (its agent invites; it is not invited yet) waits
 * while its sender has touched as many leads ahead of their invitations as it may still invite
 * this week (readiness: touchWait), so visits keep pace with invitations.
 */
function touchOrWait(ctx: Ctx, lead: LeadRow, info: CampaignInfo, settings: EngineSettings, kind: SendKind, now: number, pins?: SenderPins): LeadWork {
  if (lead.invitedAt !== null || isAccepted(lead) || !invites(info)) return sendOrWait(ctx, lead, info, kind, lead.nextActionAt, now, pins);
  const accountId = senderFor(ctx, lead, info, now, pins);
  if (accountId === null) {
    moveDue(ctx, lead.id, lead.nextActionAt, now + ACCOUNT_RETRY_MS);
    return RECORDED;
  }
  const until = touchWait(ctx, settings.safety, accountId, lead.id, now, pins?.touches, pins?.counters);
  if (until !== null) {
    moveDue(ctx, lead.id, lead.nextActionAt, until);
    return RECORDED;
  }
  return sendOrWait(ctx, { ...lead, accountId }, info, kind, lead.nextActionAt, now, pins);
}

/** Whether the agent's steps hold an invitation. */
const invitesOf = new WeakMap<CampaignInfo['steps'], boolean>();
function invites(info: CampaignInfo): boolean {
  let known = invitesOf.get(info.steps);
  if (known === undefined) {
    known = [...info.steps.byId.values()].some((s) => s.step.kind === 'invite');
    invitesOf.set(info.steps, known);
  }
  return known;
}

/**
 * After a lookup (`enrichLead` recorded what came of it): a lead filled in is planned again at
 * once, and its words now name the person; one that waits or failed is due later, or ended.
 */
export function afterEnrich(
  ctx: Ctx,
  leadId: string,
  info: CampaignInfo,
  settings: EngineSettings,
  outcome: EnrichOutcome,
  now: number,
  pins?: SenderPins,
): LeadWork {
  if (outcome.kind !== 'enriched') return RECORDED;
  const lead = getLead(ctx, leadId);
  return lead ? workLead(ctx, lead, info, settings, now, pins) : RECORDED;
}

/** What the agent is asked about a lead's pending reply. */
export function agentInput(lead: LeadRow): AgentInput {
  return {
    text: lead.pendingReplyText ?? '',
    lead: { firstName: placeholders(lead).firstname ?? 'there', fullName: lead.fullName, companyName: lead.companyName, jobTitle: lead.jobTitle },
    turns: lead.agentTurns,
  };
}

/** The decision when the agent itself failed: a person reads the reply. */
export const AGENT_FAILED: AgentDecision = { kind: 'handoff', reason: 'The agent could not process the reply; a person should read it.' };

/**
 * Records the agent's decision on `input` (unless a newer reply superseded it meanwhile) and
 * says what follows: the agent's message to send, or nothing.
 */
export function afterAgent(
  ctx: Ctx,
  leadId: string,
  info: CampaignInfo,
  settings: EngineSettings,
  input: AgentInput,
  decision: AgentDecision,
  now: number,
): LeadWork {
  // Words the agent (a model, perhaps) gave that cannot be stored as given are not sent: a person reads the reply.
  const sendable = (decision.kind === 'reply' || decision.kind === 'cta') && wordsProblem(decision.text) ? AGENT_FAILED : decision;
  const after = recordAgentDecision(ctx, leadId, input.text, sendable, info, settings);
  if (!after?.agentSendKind) return RECORDED;
  // The answer goes as the lead's plan says: at once, or as a draft for a person first.
  return workLead(ctx, after, info, settings, now, undefined, false);
}

/** After the engine wrote a lead's draft (or found none to write): the lead is planned again; it waits for a person, or goes on. */
export function afterDraft(ctx: Ctx, lead: LeadRow, info: CampaignInfo, settings: EngineSettings, now: number, pins?: SenderPins): LeadWork {
  const { lead: after, position } = recordSequenceAt(ctx, lead, info, settings, now);
  if (after.nextActionAt !== null && after.nextActionAt <= now) return workLead(ctx, after, info, settings, now, pins, false, position);
  return RECORDED;
}

/** The order of an account's sends in a tick: conversations first, then the sequence; withdrawals free pending invitations before new ones. */
const ORDER: Readonly<Record<string, number>> = { polite_close: 0, agent_send: 1 };
const orderOf = (kind: SendKind): number => ORDER[kind] ?? kindOfSend(kind)?.order ?? 5;
export const bySendOrder = (a: PendingSend, b: PendingSend): number => orderOf(a.kind) - orderOf(b.kind);

/**
 * A lead the engine could not work (an unexpected error, not a provider's answer): it is looked
 * at again later, its polite close too. Returns when, for a pending close (found by its pending
 * close, not by a due time), or null.
 */
export function leadFailed(ctx: Ctx, lead: LeadRow, err: unknown): number | null {
  ctx.log.error({ err, leadId: lead.id }, 'engine could not process lead; will retry');
  const retryAt = retryAfterError(ctx.simClock.now());
  moveDue(ctx, lead.id, lead.nextActionAt, retryAt);
  return lead.politeClosePendingAt !== null ? retryAt : null;
}
