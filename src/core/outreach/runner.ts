import { transaction } from '../../db/tx.js';
import { fitTo, renderMessage, renderNote, renderTemplate } from '../agents/render.js';
import { variantCount, variantText, type Step, type VariantLetter } from '../agents/steps.js';
import type { Ctx } from '../context.js';
import { bestSender } from '../sequences/senders.js';
import { drawVariant, endSequence, getPosition, placeLead, recordStep, variantOf, type EndReason } from '../sequences/store.js';
import { leadFacts, type StepSendKind } from './plan.js';
import { decide, derivedStart, STEP_OF_INTENT, type PerformStep, type SequenceDecision, type WalkStart } from './sequence.js';
import type { EngineSettings } from './settings.js';
import { planFor, storedStart, updateLead, type CampaignInfo, type LeadRow } from './state.js';

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

const SEND_OF_STEP: Record<PerformStep['kind'], StepSendKind> = {
  invite: 'connect',
  message: 'message',
  withdraw: 'withdraw',
  visit: 'visit',
  like_post: 'like',
  inmail: 'inmail',
};
export const sendKindOfStep = (step: PerformStep): StepSendKind => SEND_OF_STEP[step.kind];

const rulesOf = (settings: EngineSettings) => ({
  invitationTimeoutMs: settings.invitationTimeoutMs,
  replyWaitMs: settings.replyWaitMs,
  withdrawStale: settings.safety.withdrawStaleInvitations,
});

export interface Advanced {
  decision: SequenceDecision;
  /** Whether the decision's step (or end) is due at `now`: the lead is there now. */
  due: boolean;
}

/** The variant of a step for the lead: drawn (and stored) the first time, the same ever after. */
function variantFor(ctx: Ctx, leadId: string, step: Step, now: number): VariantLetter {
  const count = variantCount(step);
  if (count <= 1) return variantOf(ctx, leadId, step.id) ?? 'A';
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
  opts: { from?: WalkStart; salesNavigator?: boolean | null } = {},
): Advanced | null {
  const agent = info.agent;
  if (agent === null) return null;
  return transaction(ctx.db, () => {
    const stored = storedStart(ctx, lead.id, info);
    if (stored === 'ended' && opts.from === undefined) return null;
    const seq = info.steps;
    const facts = leadFacts(lead, opts.salesNavigator ?? null);
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
    for (const p of decision.passed) {
      const at = when(p.at);
      if (at > now) break;
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
      if (decision.kind === 'perform') here = { stepId: decision.step.id, at: decisionAt };
      else if (decision.kind === 'fail') here = { stepId: null, at: decisionAt, end: 'failed' };
      else if (decision.kind === 'end') here = { stepId: null, at: decisionAt, end: decision.reason };
    }
    if (here === null) {
      // Nothing reached yet: a lead with no stored position is placed where its walk starts.
      if (stored === null && start.stepId !== null) here = { stepId: start.stepId, at: when(start.enteredAt) };
    }
    if (here !== null) {
      const same = stored !== null && stored !== 'ended' && stored.stepId === here.stepId && stored.enteredAt === here.at && here.end === undefined;
      if (!same) placeLead(ctx, { ...ids, stepId: here.stepId, at: here.at, endReason: here.end ?? null });
    }
    return { decision, due };
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
}

/**
 * The first half of a step's send, inside the transaction that records its intent: brings the
 * lead's position up to `now` and, when the step due there is one of `kind`, draws its variant
 * and renders its text for the lead. Null when no such step is due (the caller plans the lead
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
  switch (step.kind) {
    case 'invite':
      return { step, kind, variant, text: renderNote(variantText(step, variant), lead), subject: null, messageIndex };
    case 'message':
      return { step, kind, variant, text: renderMessage(variantText(step, variant) ?? '', lead), subject: null, messageIndex };
    case 'inmail':
      return { step, kind, variant, text: renderMessage(step.text, lead), subject: fitTo(renderTemplate(step.subject, lead), 200), messageIndex };
    default:
      return { step, kind, variant, text: null, subject: null, messageIndex };
  }
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
  intent: { stepId: string | null; kind: string; accountId: string },
  result: StepResult,
  now: number,
): void {
  const agent = info.agent;
  const stepId = intent.stepId;
  const kind = STEP_OF_INTENT[intent.kind];
  if (agent === null || stepId === null || kind === undefined) return;
  transaction(ctx.db, () => {
    const ids = { leadId: lead.id, campaignId: lead.campaignId, agentId: agent.id, stepId, kind, variant: variantOf(ctx, lead.id, stepId) ?? 'A', at: now };
    recordStep(ctx, result.event === 'sent' ? { ...ids, event: 'sent' } : { ...ids, event: 'skipped', reason: result.reason });
    const pos = getPosition(ctx, lead.id);
    if (!pos || pos.endedAt !== null || pos.stepId !== stepId || pos.agentId !== agent.id) return;
    const node = info.steps.byId.get(stepId);
    // A step removed while its send was on the wire: the older shape places the lead from its
    // counters, as always; steps end the sequence (the walk from a missing step ends it).
    const from: WalkStart = node
      ? { stepId: node.next, enteredAt: now, recorded: false, virtual: false }
      : info.steps.legacy
        ? derivedStart(info.steps, leadFacts(lead))
        : { stepId, enteredAt: now, recorded: false, virtual: false };
    advanceSequence(ctx, lead, info, settings, now, { from });
  });
}

/** Ends the lead's sequence (it failed, replied, or its draft was rejected), if it has one running. */
export function endLeadSequence(ctx: Ctx, leadId: string, reason: EndReason, now: number): void {
  endSequence(ctx, { leadId, reason, at: now });
}

/**
 * The account that sends the lead's steps. A lead of a campaign with senders gets one at its
 * first step, kept ever after (the lead's `accountId` then shows it): the sender with the most
 * invitations left today, the lowest id on a tie. `promised` counts the leads given a sender in
 * this round that have not been sent to yet, so a round spreads them. Without senders, the
 * lead's own account or the agent's, as before senders. Null: no sender can send now; the lead waits.
 */
export function senderFor(ctx: Ctx, lead: LeadRow, info: CampaignInfo, now: number, promised?: Map<string, number>): string | null {
  if (lead.accountId !== null) return lead.accountId;
  if (info.senderIds.length === 0) return info.agent?.accountId ?? null;
  const chosen = bestSender(ctx, info.senderIds, now, promised);
  if (chosen === null) return null;
  updateLead(ctx.db, lead.id, { accountId: chosen });
  promised?.set(chosen, (promised.get(chosen) ?? 0) + 1);
  return chosen;
}

/**
 * A due lead whose plan needs no provider call from the sequence (`step`: a start to record;
 * `finish`: the end of its sequence, or of the reply window after it): records what the step
 * runner has to, then stores when the lead is next due (null: no work left). Returns the lead after.
 */
export function recordSequence(ctx: Ctx, lead: LeadRow, info: CampaignInfo, settings: EngineSettings, now: number): LeadRow {
  return transaction(ctx.db, () => {
    advanceSequence(ctx, lead, info, settings, now);
    const plan = planFor(ctx, lead, info, settings);
    const done = plan === null || (plan.action.kind === 'finish' && plan.at <= now);
    const nextActionAt = done ? null : plan.at === 0 ? Math.max(1, now) : plan.at;
    if (nextActionAt !== lead.nextActionAt) updateLead(ctx.db, lead.id, { nextActionAt });
    return { ...lead, nextActionAt };
  });
}
