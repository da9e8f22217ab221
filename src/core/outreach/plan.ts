import type { leads } from '../../db/schema.js';

type LeadRow = typeof leads.$inferSelect;

export interface SequenceMessage {
  text: string;
  delayHours: number;
}

/** What the engine does next for a lead. Kinds that talk to the network need a send slot. */
export type LeadAction =
  | { kind: 'connect' }
  | { kind: 'message'; step: number }
  | { kind: 'agent_send' }
  | { kind: 'polite_close' }
  /** Withdraw an invitation left pending past the invitation timeout. */
  | { kind: 'withdraw' }
  /** Ask the agent about a pending inbound message (no network traffic by itself). */
  | { kind: 'decide' }
  /** The lead cannot be contacted at all (no profile to address). */
  | { kind: 'fail'; reason: string }
  /** A wait ran out (invitation timeout, reply window): nothing more to do. */
  | { kind: 'finish' };

export type SendKind = 'connect' | 'message' | 'agent_send' | 'polite_close' | 'withdraw';
export const isSend = (a: LeadAction): a is Extract<LeadAction, { kind: SendKind }> =>
  a.kind === 'connect' || a.kind === 'message' || a.kind === 'agent_send' || a.kind === 'polite_close' || a.kind === 'withdraw';

export interface Plan {
  /** Sim-clock ms when the action is due; 0 means as soon as possible. */
  at: number;
  action: LeadAction;
}

export interface PlanContext {
  sequence: readonly SequenceMessage[];
  /** The lead's profile URL is on the workspace exclusion list. */
  onExclusionList: boolean;
  invitationTimeoutMs: number;
  replyWaitMs: number;
  /** Withdraw an invitation still pending at the timeout, rather than only stop waiting for it. */
  withdrawStale?: boolean;
}

const HOUR = 3_600_000;
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
  if (lead.agentSendKind !== null) return { at: 0, action: { kind: 'agent_send' } };
  if (lead.pendingReplyText !== null) return { at: 0, action: { kind: 'decide' } };
  // Any reply ends the sequence; the agent and people take it from there.
  if (lead.replied || lead.stage === 'replied') return null;

  const accepted = lead.connectionRequestAccepted || lead.stage === 'connected' || lead.stage === 'messaged';
  if (!accepted) {
    if (lead.stage === 'new' && lead.invitedAt === null) {
      if (lead.networkUrl === null && lead.providerId === null) return { at: 0, action: { kind: 'fail', reason: 'no profile URL' } };
      return { at: 0, action: { kind: 'connect' } };
    }
    // A withdrawn invitation cannot be accepted any more: nothing is left to do.
    if (lead.invitationWithdrawnAt !== null) return null;
    // Only an invitation we sent (invitedAt) is ours to withdraw; a lead loaded as connection_sent just times out.
    const withdraw = ctx.withdrawStale === true && lead.invitedAt !== null;
    return { at: (lead.invitedAt ?? lead.updatedAt) + ctx.invitationTimeoutMs, action: { kind: withdraw ? 'withdraw' : 'finish' } };
  }

  const step = stepsDone(lead);
  const next = ctx.sequence[step];
  if (next !== undefined) {
    const base = step === 0 ? (lead.connectedAt ?? lead.updatedAt) : (lead.lastSequenceSentAt ?? lead.updatedAt);
    return { at: base + Math.round(next.delayHours * HOUR), action: { kind: 'message', step } };
  }
  if (step === 0) return null;
  return { at: (lead.lastSequenceSentAt ?? lead.updatedAt) + ctx.replyWaitMs, action: { kind: 'finish' } };
}
