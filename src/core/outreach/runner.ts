import { transaction } from '../../db/tx.js';
import { variantCount, type Step, type VariantLetter } from '../agents/steps.js';
import type { Ctx } from '../context.js';
import type { Allowance } from '../safety/rules.js';
import { handOffLead } from '../leads/handoff.js';
import type { DraftInput } from '../drafts/prepare.js';
import {
  claimDraftForSend,
  draftAt,
  markDraftSent,
  releaseDraftClaim,
  skipClaimedDraft,
  skipDraft,
  openStepDrafts,
  type ClaimedDraft,
} from '../drafts/send.js';
import { findAccount } from '../accounts/resolve.js';
import { emailFactsOf, mailboxFor } from '../email/lead.js';
import { kindOf } from '../steps/registry.js';
import { bestSender } from '../sequences/senders.js';
import { drawVariant, endSequence, getPosition, placeLead, recordStep, variantOf, type EndReason } from '../sequences/store.js';
import { draftLookup, wordsFor } from './approval.js';
import { leadFacts, type StepSendKind } from './plan.js';
import { carriesWords, decide, derivedStart, stepOfIntent, type LeadFacts, type PerformStep, type SequenceDecision, type WalkStart } from './sequence.js';
import type { EngineSettings } from './settings.js';
import { effectiveAccountId, getLead, planFor, startFrom, updateLead, type CampaignInfo, type LeadRow } from './state.js';

/**
 * The step runner: the one place that moves a lead through its agent's steps. It decides from
 * the lead's stored position (./sequence.ts) and records, in one synchronous transaction, every
 * step passed on the way (a wait or an if entered, a step skipped and why), the lead's new
 * position, and the variant drawn for a step about to be sent. Provider calls happen outside:
 * the engine begins a step's send with `beginStep` (in the transaction that records the send's
 * intent), calls the provider, then settles it with `settleStep` (in the transaction that records
 * the result). A restart finds the lead where the last commit left it, so no step runs twice and
 * none is passed without a record.
 */

/** The engine's send that carries out a step, as its kind names it. */
export const sendKindOfStep = (step: PerformStep): StepSendKind => kindOf(step).send as StepSendKind;

const rulesOf = (settings: EngineSettings) => ({
  invitationTimeoutMs: settings.invitationTimeoutMs,
  replyWaitMs: settings.replyWaitMs,
  withdrawStale: settings.safety.withdrawStaleInvitations,
});

export interface Advanced {
  decision: SequenceDecision;
  /** Whether the decision's step (or end) is due at `now`: the lead is there now. */
  due: boolean;
  /** The lead's stored position after this (see storedStart). */
  position: WalkStart | 'ended' | null;
}

/**
 * What the runner knows of the lead: its row, its sender's Sales Navigator (given, else read from
 * the sender fixed for the lead, when there is one), and its drafts. Knowing Sales Navigator on
 * every walk is what keeps an InMail the sender cannot send from waiting as a draft.
 */
function factsFor(ctx: Ctx, lead: LeadRow, info: CampaignInfo, salesNavigator: boolean | null): LeadFacts {
  const approval = info.approval === 'required';
  return leadFacts(
    lead,
    salesNavigator ?? knownSalesNavigator(ctx, lead, info),
    approval,
    info.draftsInUse ? draftLookup(ctx, lead, approval) : undefined,
    info.readsEmail ? emailFactsOf(ctx, lead, info.readsEmailEvents) : undefined,
  );
}

/** Whether the lead's fixed sender has Sales Navigator; null while no sender is fixed (a campaign with senders picks one at the first step). */
function knownSalesNavigator(ctx: Ctx, lead: LeadRow, info: CampaignInfo): boolean | null {
  const sender = lead.accountId ?? (info.senderIds.length === 0 ? (info.agent?.accountId ?? null) : null);
  if (sender === null) return null;
  return findAccount(ctx, sender)?.hasSalesNavigator ?? null;
}

/**
 * No draft waits at a step the lead is no longer at. After the walk stored where the lead is,
 * every open draft (pending or approved, not on the wire) of another step ends `skipped`: with
 * the reason its step was skipped for on this walk (the sender lost Sales Navigator, the lead is
 * no longer a connection), the reason the sequence ended (the lead replied, the step was
 * removed, it failed), or because the campaign's agent changed (`priorAgentId`: the agent whose
 * sequence the lead was in). Each is recorded as a skipped step of the agent it belongs to, so
 * get_agent_stats counts the draft that was never sent.
 */
function closeStaleDrafts(
  ctx: Ctx,
  leadId: string,
  info: CampaignInfo,
  at: WalkStart | 'ended' | null,
  skippedNow: ReadonlyMap<string, string>,
  end: EndReason | undefined,
  priorAgentId: string | null,
  now: number,
): void {
  const open = openStepDrafts(ctx, leadId);
  if (open.length === 0) return;
  const current = at !== null && at !== 'ended' ? at.stepId : null;
  for (const draft of open) {
    if (draft.stepId === current) continue;
    // A lead not placed yet (no position stored) keeps a draft of a step its agent still has.
    const node = info.steps.byId.get(draft.stepId);
    if (at === null && node) continue;
    const walked = skippedNow.get(draft.stepId);
    const reason = walked ?? (!node ? (priorAgentId !== null ? 'agent_changed' : 'step_removed') : (end ?? 'step_passed'));
    if (!skipDraft(ctx, draft.id, reason) || walked !== undefined) continue;
    // The walk did not record this step (the sequence ended around it, or the step is the
    // former agent's): it is recorded skipped here, under the agent whose step it is.
    const owner = node ? (info.agent?.id ?? null) : priorAgentId;
    if (owner === null) continue;
    recordStep(ctx, {
      leadId,
      campaignId: info.id,
      agentId: owner,
      stepId: draft.stepId,
      kind: node ? node.step.kind : draft.kind,
      variant: variantOf(ctx, leadId, draft.stepId) ?? 'A',
      event: 'skipped',
      reason,
      at: now,
    });
  }
}

/**
 * A lead's sequence ended outside a walk (a reply came, the lead failed): its open step drafts
 * end `skipped` with that reason, each counted as a skipped step.
 */
export function closeDraftsOfEndedSequence(ctx: Ctx, leadId: string, info: CampaignInfo, reason: EndReason, now: number): void {
  if (!info.draftsInUse) return;
  transaction(ctx.db, () => closeStaleDrafts(ctx, leadId, info, 'ended', new Map(), reason, null, now));
}

/** The variant of a step for the lead: drawn (and stored) the first time, the same ever after. */
function variantFor(ctx: Ctx, leadId: string, step: Step, now: number): VariantLetter {
  const count = variantCount(step);
  // One version: A (a letter drawn before the step lost its versions counts when the step is settled).
  if (count <= 1) return 'A';
  return drawVariant(ctx, { leadId, stepId: step.id, count, at: now });
}

/**
 * Records what of the runner's walk lies at or before `now` and stores where that leaves the
 * lead: every wait and if it entered, every step it skipped, and its position (a wait or an if
 * it waits at, the step it is to carry out now, or the end of its sequence). `from` walks from a
 * given point instead of the stored position (a settled step goes on from the step after it).
 * Returns the decision; null when the lead's sequence ended before, or its campaign has no agent.
 */
export function advanceSequence(
  ctx: Ctx,
  lead: LeadRow,
  info: CampaignInfo,
  settings: EngineSettings,
  now: number,
  opts: { from?: WalkStart; salesNavigator?: boolean | null; stored?: WalkStart | 'ended' | null } = {},
): Advanced | null {
  const agent = info.agent;
  if (agent === null) return null;
  return transaction(ctx.db, () => {
    const prior = opts.stored === undefined ? getPosition(ctx, lead.id) : undefined;
    const stored = opts.stored !== undefined ? opts.stored : startFrom(prior, info);
    if (stored === 'ended' && opts.from === undefined) {
      // A lead whose sequence ended keeps no draft open (one left from before this rule).
      if (info.draftsInUse) closeStaleDrafts(ctx, lead.id, info, 'ended', new Map(), (prior?.endReason ?? undefined) as EndReason | undefined, null, now);
      return null;
    }
    const seq = info.steps;
    const facts = factsFor(ctx, lead, info, opts.salesNavigator ?? null);
    const rules = rulesOf(settings);
    let start = opts.from ?? (stored === 'ended' ? null : stored) ?? derivedStart(seq, facts);
    let decision = decide(seq, facts, start, rules);
    if (decision.kind === 'start') {
      // A sequence whose first steps count time starts now.
      start = { stepId: seq.first, enteredAt: now, recorded: false, virtual: false };
      decision = decide(seq, facts, start, rules);
      if (decision.kind === 'start') return null;
    }
    // Times left at 0 belong to a start not stored before: it is now.
    const when = (at: number) => (at === 0 ? now : at);
    const ids = { leadId: lead.id, campaignId: lead.campaignId, agentId: agent.id };
    let here: { stepId: string | null; at: number; end?: EndReason } | null = null;
    const skippedNow = new Map<string, string>();
    for (const p of decision.passed) {
      const at = when(p.at);
      if (at > now) break;
      if (p.event === 'skipped') skippedNow.set(p.step.id, p.reason ?? 'skipped');
      if (!p.recorded) {
        const variant = p.event === 'skipped' ? variantFor(ctx, lead.id, p.step, at) : 'A';
        recordStep(ctx, {
          ...ids,
          stepId: p.step.id,
          kind: p.step.kind,
          variant,
          ...(p.event === 'sent' ? { event: 'sent' as const } : { event: 'skipped' as const, reason: p.reason ?? 'skipped' }),
          at,
        });
      }
      // A lead waits at a wait or an if; it passes a skipped step at once.
      if (p.event === 'sent') here = { stepId: p.step.id, at };
    }
    const decisionAt = when(decision.at);
    const due = decisionAt <= now && decision.passed.every((p) => when(p.at) <= now);
    if (due) {
      // A lead about to carry out a step, or waiting at it for its draft, is at that step.
      if (decision.kind === 'perform' || decision.kind === 'draft' || decision.kind === 'await') here = { stepId: decision.step.id, at: decisionAt };
      else if (decision.kind === 'fail') here = { stepId: null, at: decisionAt, end: 'failed' };
      else if (decision.kind === 'end') here = { stepId: null, at: decisionAt, end: decision.reason };
    }
    if (here === null) {
      // Nothing reached yet: a lead with no stored position is placed where its walk starts.
      if (stored === null && start.stepId !== null) here = { stepId: start.stepId, at: when(start.enteredAt) };
    }
    let position = stored;
    if (here !== null) {
      const same = stored !== null && stored !== 'ended' && stored.stepId === here.stepId && stored.enteredAt === here.at && here.end === undefined;
      if (!same) placeLead(ctx, { ...ids, stepId: here.stepId, at: here.at, endReason: here.end ?? null });
      position = here.end !== undefined || here.stepId === null ? 'ended' : { stepId: here.stepId, enteredAt: here.at, recorded: true, virtual: false };
    }
    if (info.draftsInUse) {
      const priorAgentId = prior !== undefined && prior.agentId !== agent.id ? prior.agentId : null;
      closeStaleDrafts(ctx, lead.id, info, position, skippedNow, here?.end, priorAgentId, now);
    }
    return { decision, due, position };
  });
}

/** What a step's send carries: its text (an invitation's note may be null), an InMail's subject, and the variant drawn. */
export interface BegunStep {
  step: PerformStep;
  kind: StepSendKind;
  variant: VariantLetter;
  text: string | null;
  subject: string | null;
  /** For a message step: its place among the agent's message steps (the intent's `step`). */
  messageIndex: number | null;
  /** The approved draft whose words these are, to be claimed with the send's intent (see claimStepDraft). */
  draftId: string | null;
}

/**
 * The first half of a step's send, inside the transaction that records its intent: brings the
 * lead's position up to `now` and, when the step due there is one of `kind`, draws its variant
 * and gives its words: the approved draft's, exactly, when the lead has one for the step, else
 * the step's text rendered for the lead. Null when no such step is due (the caller plans the lead
 * again). `salesNavigator` is the sending account's: an InMail step is skipped without it.
 */
export function beginStep(
  ctx: Ctx,
  lead: LeadRow,
  info: CampaignInfo,
  settings: EngineSettings,
  kind: StepSendKind,
  salesNavigator: boolean,
  now: number,
): BegunStep | null {
  const advanced = advanceSequence(ctx, lead, info, settings, now, { salesNavigator });
  if (!advanced?.due || advanced.decision.kind !== 'perform') return null;
  const step = advanced.decision.step;
  if (sendKindOfStep(step) !== kind) return null;
  const variant = variantFor(ctx, lead.id, step, now);
  const messageIndex = info.steps.byId.get(step.id)?.messageIndex ?? null;
  const draft = info.draftsInUse && carriesWords(step) ? draftAt(ctx, lead.id, { stepId: step.id }) : null;
  if (draft?.status === 'approved') return { step, kind, variant, text: draft.text, subject: draft.subject, messageIndex, draftId: draft.id };
  const { text, subject } = wordsFor(step, lead, variant);
  return { step, kind, variant, text, subject, messageIndex, draftId: null };
}

/**
 * Takes the approved draft of a step's send for its intent, in the transaction that records the
 * intent: from then on nobody can change it, and the words sent are these. Null: the draft is no
 * longer approved (a person rejected or edited it meanwhile), or another send holds it; nothing
 * may be sent then.
 */
export const claimStepDraft = (ctx: Ctx, draftId: string, intentId: string): ClaimedDraft | null => claimDraftForSend(ctx, draftId, intentId);

/** Why the engine stops answering when a person rejects the agent's reply. */
export const REPLY_REJECTED_REASON = "A person rejected the agent's reply; a person should answer.";

/**
 * The agent's reply waiting to be sent, as a draft of its reply turn (one per automatic reply of
 * the conversation). A reply whose draft a person rejected is not sent: the conversation is
 * handed to a person, and there is no draft to write.
 */
function replyDraftInput(ctx: Ctx, lead: LeadRow, info: CampaignInfo, now: number): DraftInput | null {
  const existing = draftAt(ctx, lead.id, { replyTurn: lead.agentTurns });
  if (existing?.status === 'rejected') {
    handOffLead(ctx, lead, REPLY_REJECTED_REASON, now, effectiveAccountId(lead, info));
    return null;
  }
  if (existing || lead.agentSendText === null || lead.agentSendText.trim() === '') return null;
  return {
    campaignId: lead.campaignId,
    leadId: lead.id,
    stepId: null,
    replyTurn: lead.agentTurns,
    variant: null,
    kind: 'message',
    accountId: effectiveAccountId(lead, info),
    text: lead.agentSendText,
    subject: null,
    template: null,
  };
}

/** The approved draft of the agent's reply waiting to be sent, if it has one (its words are sent instead). */
export function approvedReplyDraft(ctx: Ctx, lead: LeadRow, info: CampaignInfo): string | null {
  if (!info.draftsInUse) return null;
  const draft = draftAt(ctx, lead.id, { replyTurn: lead.agentTurns });
  return draft?.status === 'approved' ? draft.id : null;
}

/** The agent's reply went out (or will not): its draft, if it had one, is sent, or free again. */
export function settleReplyDraft(ctx: Ctx, lead: LeadRow, info: CampaignInfo, intentId: string, sent: boolean, leadAfter?: LeadRow): void {
  if (!info.draftsInUse) return;
  const draft = draftAt(ctx, lead.id, { replyTurn: lead.agentTurns });
  if (draft?.status !== 'approved') return;
  if (sent) markDraftSent(ctx, draft.id, intentId, leadAfter);
  else releaseDraftClaim(ctx, draft.id, intentId);
}

/**
 * What the lead's draft for the step it reached says, in a transaction: the lead is brought up to
 * `now`, the step's variant drawn and its words rendered. Null when no draft is to be written now
 * (the step changed, or it has no words for this lead). The caller writes the draft outside any
 * transaction (prepareDraft may ask a model first), then plans the lead again.
 *
 * A step's draft names the account that will send it: a lead of a campaign with senders that has
 * none yet gets its sender now (`senderFor`, as its send would), so the draft, the confirmation
 * and the send agree. `no_sender`: none of the senders can send now; the lead waits, undrafted.
 */
export function draftInputFor(
  ctx: Ctx,
  given: LeadRow,
  info: CampaignInfo,
  settings: EngineSettings,
  now: number,
  pins?: SenderPins,
): DraftInput | 'no_sender' | null {
  return transaction(ctx.db, () => {
    const lead = getLead(ctx, given.id);
    if (!lead) return null;
    if (lead.agentSendKind !== null) return replyDraftInput(ctx, lead, info, now);
    const advanced = advanceSequence(ctx, lead, info, settings, now);
    if (!advanced?.due || advanced.decision.kind !== 'draft') return null;
    const step = advanced.decision.step;
    if (!carriesWords(step)) return null;
    const variant = variantFor(ctx, lead.id, step, now);
    const words = wordsFor(step, lead, variant);
    if (words.text === null || words.text.trim() === '') return null;
    // An email's draft names the mailbox that will send it, pinned now as its send would pin it.
    const accountId = kindOf(step).channel === 'email' ? mailboxFor(ctx, lead, info, now, pins) : senderFor(ctx, lead, info, now, pins);
    if (accountId === null) return 'no_sender';
    if (kindOf(step).salesNavigator === true && findAccount(ctx, accountId)?.hasSalesNavigator !== true) {
      // An InMail the sender cannot send gets no draft: the step is skipped, as without approval.
      advanceSequence(ctx, { ...lead, accountId }, info, settings, now, { salesNavigator: false });
      return null;
    }
    return {
      campaignId: lead.campaignId,
      leadId: lead.id,
      stepId: step.id,
      variant,
      kind: step.kind as DraftInput['kind'],
      accountId,
      text: words.text,
      subject: words.subject,
      template: words.template,
    };
  });
}

/** How a step's send ended: carried out, or skipped for what the network answered (no post to like, InMail refused). */
export type StepResult = { event: 'sent' } | { event: 'skipped'; reason: string };

/**
 * The second half of a step's send, inside the transaction that records its result: the step is
 * recorded (sent, or skipped with why) for its variant, and a lead still at that step goes on
 * from the step after it, as far as `now` allows. `lead` is the row with the send's effects
 * applied (invited, messaged). A lead whose sequence ended meanwhile (a reply came) stays ended;
 * the step still counts.
 */
export function settleStep(
  ctx: Ctx,
  lead: LeadRow,
  info: CampaignInfo,
  settings: EngineSettings,
  intent: { id: string; stepId: string | null; kind: string; accountId: string },
  result: StepResult,
  now: number,
): WalkStart | 'ended' | null | undefined {
  const agent = info.agent;
  const stepId = intent.stepId;
  const kind = stepOfIntent(intent.kind);
  if (agent === null || stepId === null || kind === undefined) return undefined;
  return transaction(ctx.db, () => {
    const ids = { leadId: lead.id, campaignId: lead.campaignId, agentId: agent.id, stepId, kind, variant: variantOf(ctx, lead.id, stepId) ?? 'A', at: now };
    recordStep(ctx, result.event === 'sent' ? { ...ids, event: 'sent' } : { ...ids, event: 'skipped', reason: result.reason });
    // The draft it carried is sent now; one whose words went nowhere (an InMail refused) is
    // skipped with the step, for the same reason: the lead goes on without it.
    const draft = info.draftsInUse ? draftAt(ctx, lead.id, { stepId }) : null;
    if (draft?.status === 'approved') {
      if (result.event === 'sent') markDraftSent(ctx, draft.id, intent.id, lead);
      else if (!skipClaimedDraft(ctx, draft.id, intent.id, result.reason)) skipDraft(ctx, draft.id, result.reason);
    }
    const pos = getPosition(ctx, lead.id);
    if (!pos || pos.endedAt !== null || pos.stepId !== stepId || pos.agentId !== agent.id) return startFrom(pos, info);
    const node = info.steps.byId.get(stepId);
    // A step removed while its send was on the wire: the older shape places the lead from its
    // counters, as always; steps end the sequence (the walk from a missing step ends it).
    const from: WalkStart = node
      ? { stepId: node.next, enteredAt: now, recorded: false, virtual: false }
      : info.steps.legacy
        ? derivedStart(info.steps, leadFacts(lead))
        : { stepId, enteredAt: now, recorded: false, virtual: false };
    return advanceSequence(ctx, lead, info, settings, now, { from, stored: startFrom(pos, info) })?.position;
  });
}

/**
 * A step's send failed for good: the lead's sequence ends (the lead failed), and a draft it
 * carried is freed (still approved) for a person to see.
 */
export function failStepSend(ctx: Ctx, leadId: string, info: CampaignInfo, intent: { id: string; stepId: string | null }, now: number): void {
  if (intent.stepId === null) return;
  endSequence(ctx, { leadId, reason: 'failed', at: now });
  releaseStepDraft(ctx, leadId, info, intent);
}

/** A step's send that did not go out (it will be tried again, or never): its draft, if any, is free again. */
export function releaseStepDraft(ctx: Ctx, leadId: string, info: CampaignInfo, intent: { id: string; stepId: string | null }): void {
  if (intent.stepId === null || !info.draftsInUse) return;
  const draft = draftAt(ctx, leadId, { stepId: intent.stepId });
  if (draft) releaseDraftClaim(ctx, draft.id, intent.id);
}

/**
 * What touchWait (readiness.ts) reads of an account at one instant: the invitations it may still send this
 * week, and the leads it touched ahead of their invitations (at most one more than those left,
 * which is all the rule needs to know).
 */
export interface TouchCount {
  weekLeft: number;
  ahead: ReadonlySet<string>;
}

/**
 * Where the engine keeps the touch counts it read in a tick (its memory): every lead of an
 * account due for a visit in that tick asks the same question, and the answer moves only when
 * the account sends or the tick ends (the engine forgets the count then).
 */
export interface TouchMemo {
  get(accountId: string): TouchCount | undefined;
  set(accountId: string, count: TouchCount): void;
}

/**
 * Senders' counters read at `at`, with the stamp of what they were read from (readiness:
 * countersStamp): while the stamp and the UTC day stand, reading them again gives the same.
 */
export interface TickCounters {
  at: number;
  stamp: string;
  byAccount: ReadonlyMap<string, Allowance>;
}

/**
 * What the engine remembers of the leads it gave a sender today and has not invited yet, the
 * senders' counters it read this tick, and the touch counts (touchWait) it read this tick.
 */
export interface SenderPins {
  count(accountId: string): number;
  add(accountId: string, leadId: string): void;
  /** The senders' counters read in this tick (readDue), undefined before. */
  counters?: TickCounters;
  touches?: TouchMemo;
}

/**
 * The account that sends the lead's steps. A lead of a campaign with senders gets one at its
 * first step, kept ever after (the lead's `accountId` then shows it): the sender with the most
 * invitations left today, the lowest id on a tie. `pins` counts the leads given each sender today
 * that it has not invited yet as spent, so the leads spread by what each sender can still invite.
 * Without senders, the lead's own account or the agent's, as before senders. Null: no sender can
 * send now; the lead waits.
 */
export function senderFor(ctx: Ctx, lead: LeadRow, info: CampaignInfo, now: number, pins?: SenderPins): string | null {
  if (lead.accountId !== null) return lead.accountId;
  if (info.senderIds.length === 0) return info.agent?.accountId ?? null;
  const promised = new Map(info.senderIds.map((id) => [id, pins?.count(id) ?? 0]));
  const chosen = bestSender(ctx, info.senderIds, now, promised, pins?.counters?.byAccount);
  if (chosen === null) return null;
  updateLead(ctx.db, lead.id, { accountId: chosen });
  pins?.add(chosen, lead.id);
  return chosen;
}

/**
 * A due lead whose plan needs no provider call from the sequence (`step`: a start to record;
 * `finish`: the end of its sequence, or of the reply window after it): records what the step
 * runner has to, then stores when the lead is next due (null: no work left). Returns the lead after.
 */
export const recordSequence = (ctx: Ctx, given: LeadRow, info: CampaignInfo, settings: EngineSettings, now: number): LeadRow =>
  recordSequenceAt(ctx, given, info, settings, now).lead;

/**
 * `recordSequence`, also giving where the runner left the lead (`position`, undefined when it did
 * not walk), so a caller that plans the lead again at once does not read the position back.
 */
export function recordSequenceAt(
  ctx: Ctx,
  given: LeadRow,
  info: CampaignInfo,
  settings: EngineSettings,
  now: number,
): { lead: LeadRow; position: WalkStart | 'ended' | null | undefined } {
  return transaction(ctx.db, () => {
    // Read again: the caller may hold the row from before an await (a draft being written).
    const lead = getLead(ctx, given.id) ?? given;
    const advanced = advanceSequence(ctx, lead, info, settings, now);
    const plan = planFor(ctx, lead, info, settings, advanced?.position);
    const done = plan === null || (plan.action.kind === 'finish' && plan.at <= now);
    const nextActionAt = done ? null : plan.at === 0 ? Math.max(1, now) : plan.at;
    if (nextActionAt !== lead.nextActionAt) updateLead(ctx.db, lead.id, { nextActionAt });
    return { lead: { ...lead, nextActionAt }, position: advanced?.position };
  });
}
