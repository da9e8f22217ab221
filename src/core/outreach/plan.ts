import { legacySteps } from '../agents/steps.js';
import type { leads } from '../../db/schema.js';
import type { Allowance } from '../safety/rules.js';
import type { StepLimit } from '../steps/kind.js';
import { kindOf, kindOfSend, STEP_SEND_KINDS, type StepSendKind } from '../steps/registry.js';
import { decide, derivedStart, indexSequence, type DraftState, type LeadFacts, type PerformStep, type SequenceIndex, type WalkStart } from './sequence.js';
import { mailAddressOf } from '../email/address.js';

type LeadRow = typeof leads.$inferSelect;

export interface SequenceMessage {
  text: string;
  delayHours: number;
}

/** What the engine does next for a lead. Kinds that talk to the network need a send slot. */
export type LeadAction =
  /** A step's send, named as its kind names it (src/core/steps/): `connect` for an invitation. */
  | { kind: Exclude<StepSendKind, 'message'> }
  /** `step`: the message step's place among the agent's message steps (for the older shape, the message's index). */
  | { kind: 'message'; step: number }
  | { kind: 'agent_send' }
  | { kind: 'polite_close' }
  /** Withdraw an invitation left pending past the invitation timeout. */
  | { kind: 'withdraw' }
  /** Ask the agent about a pending inbound message (no network traffic by itself). */
  | { kind: 'decide' }
  /** The lead cannot be contacted at all (no profile to address). */
  | { kind: 'fail'; reason: string }
  /** A wait ran out (invitation timeout, reply window) or the sequence ended: what is left is recorded. */
  | { kind: 'finish' }
  /** The step runner has steps to record before it can tell the next one (a sequence to start). */
  | { kind: 'step' }
  /** A step's words need a person's approval: write the lead's draft (the engine may ask a model first). */
  | { kind: 'draft' };

/** The sends that carry out a sequence step (one per step kind, src/core/steps/), and the conversation's. */
export type SendKind = StepSendKind | 'agent_send' | 'polite_close';
export type { StepSendKind };
const STEP_SENDS: ReadonlySet<string> = new Set<string>(STEP_SEND_KINDS);
export const isStepSend = (kind: string): kind is StepSendKind => STEP_SENDS.has(kind);
/**
 * Whether today's limit for this kind of send is reached (warm-up and the rolling week applied):
 * the limit its step kind counts against (invitations, messages, profile visits, post likes, or
 * one of its own). A withdrawal has none: it frees an invitation. The conversation's sends are messages.
 */
export function capReached(kind: SendKind, a: Allowance): boolean {
  const limit = limitSpecOf(kind);
  if (limit === null) return false;
  if ('own' in limit) {
    const own = a.own?.[limit.own];
    return own !== undefined && own.today >= own.limit;
  }
  switch (limit.stored) {
    case 'invitations':
      return a.connectionRequestsSentToday >= a.connectionRequestLimit;
    case 'visits':
      return a.profileVisitsToday >= a.profileVisitLimit;
    case 'likes':
      return a.postReactionsToday >= a.postReactionLimit;
    case 'messages':
      return a.messagesSentToday >= a.messageLimit;
  }
}

const limitSpecOf = (kind: SendKind): StepLimit | null =>
  kind === 'agent_send' || kind === 'polite_close' ? { stored: 'messages' } : (kindOfSend(kind)?.limit ?? null);

/** The name of the daily limit a kind of send counts against, as its step kind says; null for a withdrawal, which has none. */
export function limitOf(kind: SendKind): string | null {
  const limit = limitSpecOf(kind);
  if (limit === null) return null;
  return 'own' in limit ? limit.own : limit.stored;
}

export const isSend = (a: LeadAction): a is Extract<LeadAction, { kind: SendKind }> =>
  a.kind === 'agent_send' || a.kind === 'polite_close' || STEP_SENDS.has(a.kind);

export interface Plan {
  /** Sim-clock ms when the action is due; 0 means as soon as possible. */
  at: number;
  action: LeadAction;
}

export interface PlanContext {
  /** The older shape's messages, read as steps when `steps` is not given. */
  sequence: readonly SequenceMessage[];
  /** The agent's steps, indexed (the engine keeps them with the campaign). */
  steps?: SequenceIndex;
  /**
   * The lead's stored position: where it is, `ended` once its sequence ended, or null (or absent)
   * for none yet, when it is derived from the lead (see derivedStart).
   */
  position?: WalkStart | 'ended' | null;
  /** Whether the lead's sender has Sales Navigator, when known (an `inmail` step is skipped without). */
  salesNavigator?: boolean | null;
  /** The campaign requires approval, and where the lead's drafts stand (see LeadFacts). */
  approval?: boolean;
  draftOf?: LeadFacts['draftOf'];
  /** Where the draft of the agent's reply waiting to be sent stands (null: none). */
  replyDraft?: DraftState | null;
  /** The engine's time now: a lead waiting for a person is looked at again a while after it. */
  now?: number;
  /** The lead's profile URL is on the workspace exclusion list. */
  onExclusionList: boolean;
  /** What the email channel knows of the lead, for a campaign whose steps use it (absent: nothing). */
  email?: LeadEmailFacts;
  invitationTimeoutMs: number;
  replyWaitMs: number;
  /** Withdraw an invitation still pending at the timeout, rather than only stop waiting for it. */
  withdrawStale?: boolean;
}

const HOUR = 3_600_000;
/** How often a lead waiting for a person's decision on its draft is looked at anyway. */
export const DRAFT_RECHECK_MS = 24 * HOUR;
const DONE_STAGES = new Set(['failed', 'handed_off', 'tagged', 'excluded']);

/** Sequence steps done: the counter, or 1 for a lead loaded as already messaged. */
export const stepsDone = (lead: LeadRow): number => Math.max(lead.sequenceStep, lead.messageSent ? 1 : 0);

/**
 * The lead's next engine action, from its stored state alone. The engine stores `at` in
 * `next_action_at` after every change and recomputes the plan when it comes due, so any
 * change made elsewhere (exclusion, tag, deletion) is honoured when the lead is next looked at.
 * Null means the lead has no work left.
 */
export function planLead(lead: LeadRow, ctx: PlanContext): Plan | null {
  if (lead.politeClosePendingAt !== null) return { at: 0, action: { kind: 'polite_close' } };
  if (lead.excluded || ctx.onExclusionList) return null;
  if (DONE_STAGES.has(lead.stage)) return null;
  if (lead.agentSendKind !== null) {
    // The agent's reply is drafted like a step's words: it waits for a person where approval is
    // required; a rejected one is the engine's to record (a person answers instead).
    const draft = ctx.replyDraft ?? null;
    if (draft === 'rejected' || (draft === null && ctx.approval === true)) return { at: 0, action: { kind: 'draft' } };
    if (draft === 'pending') return { at: (ctx.now ?? 0) + DRAFT_RECHECK_MS, action: { kind: 'step' } };
    return { at: 0, action: { kind: 'agent_send' } };
  }
  if (lead.pendingReplyText !== null) return { at: 0, action: { kind: 'decide' } };
  // Any reply ends the sequence; the agent and people take it from there.
  if (lead.replied || lead.stage === 'replied') return null;

  return sequencePlan(lead, ctx);
}

/** What the email channel knows of a lead: its address excluded (and why), its first reply to an email, its first bounce. */
export interface LeadEmailFacts {
  excluded: 'unsubscribed' | 'bounced' | null;
  repliedAt: number | null;
  bouncedAt: number | null;
}

/** The facts the step runner reads from a lead row (and, for a campaign that emails, from the email channel). */
export function leadFacts(
  lead: LeadRow,
  salesNavigator: boolean | null = null,
  approval = false,
  draftOf?: LeadFacts['draftOf'],
  email?: LeadEmailFacts,
): LeadFacts {
  const facts: LeadFacts = {
    accepted: isAccepted(lead),
    connectedAt: lead.connectedAt,
    invited: lead.invitedAt !== null || lead.stage === 'connection_sent',
    invitedAt: lead.invitedAt,
    withdrawn: lead.invitationWithdrawnAt !== null,
    replied: lead.replied || lead.stage === 'replied',
    repliedAt: lead.repliedAt,
    reachable: lead.networkUrl !== null || lead.providerId !== null,
    messagesDone: stepsDone(lead),
    lastSentAt: lead.lastSequenceSentAt,
    updatedAt: lead.updatedAt,
    salesNavigator,
    approval,
    hasEmail: mailAddressOf(lead.email) !== null,
    emailExcluded: email?.excluded ?? null,
    emailRepliedAt: email?.repliedAt ?? null,
    emailBouncedAt: email?.bouncedAt ?? null,
    tag: lead.tag,
    taggedAt: lead.taggedAt,
  };
  if (draftOf) facts.draftOf = draftOf;
  return facts;
}

/** The invitation was accepted, or the lead was loaded as a connection. */
export const isAccepted = (lead: LeadRow): boolean => lead.connectionRequestAccepted || lead.stage === 'connected' || lead.stage === 'messaged';

/** The older shape read as steps, indexed once per messages array (callers keep their arrays). */
const legacyIndexes = new WeakMap<readonly SequenceMessage[], SequenceIndex>();
function legacyIndex(sequence: readonly SequenceMessage[], timeoutMs: number): SequenceIndex {
  let index = legacyIndexes.get(sequence);
  if (!index) {
    index = indexSequence(legacySteps('plan', { connectionNote: null, messages: sequence }, timeoutMs / HOUR), true);
    legacyIndexes.set(sequence, index);
  }
  return index;
}

/** The engine action that carries out a step: its kind's send. */
export function actionOf(seq: SequenceIndex, step: PerformStep): LeadAction {
  const kind = kindOf(step).send;
  if (kind === 'message') return { kind, step: seq.byId.get(step.id)?.messageIndex ?? 0 };
  return { kind } as LeadAction;
}

/**
 * The sequence's part of a plan, from the step runner's decision (./sequence.ts): the next step
 * that reaches the network and when; a lead that fails; the end of the sequence, after which a lead
 * that was sent a message keeps work until the reply window closes; or a start to record.
 */
function sequencePlan(lead: LeadRow, ctx: PlanContext): Plan | null {
  const seq = ctx.steps ?? legacyIndex(ctx.sequence, ctx.invitationTimeoutMs);
  const facts = leadFacts(lead, ctx.salesNavigator ?? null, ctx.approval === true, ctx.draftOf, ctx.email);
  const rules = { invitationTimeoutMs: ctx.invitationTimeoutMs, replyWaitMs: ctx.replyWaitMs, withdrawStale: ctx.withdrawStale === true };
  const position = ctx.position ?? null;
  if (position === 'ended') return endPlan(facts, 0, false, ctx.replyWaitMs);
  const d = decide(seq, facts, position ?? derivedStart(seq, facts), rules);
  switch (d.kind) {
    case 'perform':
      return { at: d.at, action: actionOf(seq, d.step) };
    case 'fail':
      return { at: d.at, action: { kind: 'fail', reason: 'no profile URL' } };
    case 'start':
      return { at: 0, action: { kind: 'step' } };
    case 'draft':
      return { at: d.at, action: { kind: 'draft' } };
    case 'await':
      // A person's decision makes the lead due at once (wakeDecidedLeads, ./wake.ts); this is a net.
      return { at: Math.max(d.at, (ctx.now ?? 0) + DRAFT_RECHECK_MS), action: { kind: 'step' } };
    case 'end':
      // The end is not recorded yet (nor, maybe, steps skipped on the way): the engine records it then.
      return endPlan(facts, d.at, true, ctx.replyWaitMs);
  }
}

function endPlan(facts: LeadFacts, endAt: number, unrecorded: boolean, replyWaitMs: number): Plan | null {
  if (facts.messagesDone > 0) return { at: Math.max(endAt, (facts.lastSentAt ?? facts.updatedAt) + replyWaitMs), action: { kind: 'finish' } };
  return unrecorded ? { at: endAt, action: { kind: 'finish' } } : null;
}
