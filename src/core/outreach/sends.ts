import { insertIntent, intentStatements, type IntentRow } from '../../db/sql/intents.js';
import { transaction } from '../../db/tx.js';
import { countAccountDaily, countOutreach, recordActivity } from '../activity/record.js';
import type { Ctx } from '../context.js';
import { failpoint } from '../faults.js';
import { newSortableId } from '../ids.js';
import { excludeEverywhere } from '../leads/exclude.js';
import { handOffLead } from '../leads/handoff.js';
import { networkError, type AccountRef, type ProfileRef } from '../network/provider.js';
import { findAccount } from '../accounts/resolve.js';
import { classify } from './failures.js';
import { approvedReplyDraft, beginStep, claimStepDraft, failStepSend, releaseStepDraft, settleReplyDraft, settleStep } from './runner.js';
import { leaseHolder } from './lease.js';
import { insertIntentRow, pendingIntentRows } from './store.js';
import { lockStepWait, recordCallMinute } from './lockstep.js';
import { placeholders } from './personalize.js';
import { recordMessage } from '../conversations/record.js';
import { deliverEmail, planEmail, recordEmailSent, type EmailPlan, type SendEmailResult } from '../email/send.js';
import { findMailbox } from '../mailboxes/store.js';
import { isStepSend, type SendKind } from './plan.js';
import type { ActionKind, CallResult, SkippedOutcome } from '../steps/kind.js';
import { kindOfIntent, kindOfSend, type StepIntentKind } from '../steps/registry.js';
import type { EngineSettings } from './settings.js';
import { getLead, loadCampaignInfo, planFor, updateAndReplan, updateLead, type CampaignInfo, type LeadRow } from './state.js';

export type { IntentRow };
/**
 * A step's send records its kind's intent (src/core/steps/: `connection_request` for an
 * invitation); `manual_message` is an operator's direct message (send_message); the others are
 * the engine's conversation sends.
 */
export type IntentKind = StepIntentKind | 'agent_reply' | 'cta' | 'polite_close' | 'manual_message';

/** The holder of manual intents: they are not the engine's, and need no lease. */
export const MANUAL_HOLDER = 'send_message';
/** The holder of the operator's own replies from the dashboard inbox: manual intents whose message is the operator's. */
export const OPERATOR_HOLDER = 'dashboard';

/** Where a lead is reached: its profile URL (with its provider id when known), else its provider id. Engine and send_message both use it. */
export function recipientOf(lead: LeadRow): ProfileRef | null {
  if (lead.networkUrl !== null)
    return lead.providerId !== null ? { networkUrl: lead.networkUrl, providerId: lead.providerId } : { networkUrl: lead.networkUrl };
  if (lead.providerId !== null) return { providerId: lead.providerId };
  return null;
}

/** A short, final message for a lead tagged with an auto-exclude tag (polite close). */
export function politeCloseText(lead: LeadRow): string {
  const name = placeholders(lead).firstname;
  return lead.tag === 'Wrong person'
    ? `Thanks for letting me know, ${name}, and sorry for the mix-up. I will not contact you about this again.`
    : `Thanks for letting me know, ${name}. I will not reach out again. All the best!`;
}

/** A conversation send's intent: the agent's message or a polite close. (A step's comes from the step runner.) */
function conversationIntent(kind: 'agent_send' | 'polite_close', lead: LeadRow): { kind: IntentKind; text: string | null } {
  if (kind === 'polite_close') return { kind: 'polite_close', text: politeCloseText(lead) };
  return { kind: lead.agentSendKind === 'cta' ? 'cta' : 'agent_reply', text: lead.agentSendText };
}

export interface BegunSend {
  intent: IntentRow;
  lead: LeadRow;
  info: CampaignInfo;
  /** An InMail's subject, rendered (the intent keeps its text). */
  subject: string | null;
  /** An email step's email, planned (recorded as on its way, or skipped, or waiting) with its intent. */
  email?: EmailPlan;
}

/** The account may not call before this instant (lock-step with another account; see lockstep.ts). */
export interface SendHeld {
  heldUntil: number;
}

/**
 * Step one of a send, in one transaction: re-reads the campaign (a pause stops the send here)
 * and the lead (its plan must still call for this action), and records the intent. Returns null
 * when the send no longer applies, and SendHeld when the account must wait for the next minute.
 *
 * The lead stays on the due queue meanwhile (the engine handles a lead once a tick, and a tick
 * waits for its sends); writing it off and back on cost three more pages a send. What keeps a
 * lead to one send at a time is its pending intent: while one exists no other is begun, and the
 * lead is taken off the queue until recovery settles it.
 */
export function beginSend(
  ctx: Ctx,
  settings: EngineSettings,
  holder: string,
  leadId: string,
  kind: SendKind,
  accountId: string,
  decidedAt?: number,
): BegunSend | SendHeld | null {
  return transaction(ctx.db, () => {
    // Fencing: an engine that lost its lease (e.g. stalled past the TTL) records no new intent.
    if (leaseHolder(ctx.db, ctx.clock) !== holder) return null;
    // A call that would put the account in lock-step with another is not made now: the account
    // waits for the next minute (lockstep.ts says why it is checked here, in this transaction).
    // (A mailbox is no network account: lock-step is the network's concern.)
    const heldUntil = kindOfSend(kind)?.channel === 'email' ? null : lockStepWait(ctx, accountId, decidedAt ?? ctx.simClock.now());
    if (heldUntil !== null) return { heldUntil };
    const lead = getLead(ctx, leadId);
    if (!lead) return null;
    if (intentStatements(ctx.db).pendingOfLead.get(leadId) !== undefined) {
      updateLead(ctx.db, leadId, { nextActionAt: null });
      return null;
    }
    const info = loadCampaignInfo(ctx, lead.campaignId);
    if (info?.status !== 'CAMPAIGN_IN_PROGRESS') return null;
    // The intent is stamped with the instant the account's rules were checked, so a fast
    // simulated clock cannot carry a send decided inside working hours to just outside them.
    const now = decidedAt ?? ctx.simClock.now();
    let what: { kind: IntentKind; text: string | null; step: number | null; stepId: string | null; subject: string | null; draftId?: string | null };
    if (isStepSend(kind)) {
      // The step runner brings the lead up to now and says whether this step is the one due.
      const begun = beginStep(ctx, lead, info, settings, kind, findAccount(ctx, accountId)?.hasSalesNavigator ?? false, now);
      if (begun === null) {
        updateAndReplan(ctx, lead.id, {}, info, settings);
        return null;
      }
      what = {
        kind: (kindOfSend(kind) as ActionKind).intent as StepIntentKind,
        text: begun.text,
        step: begun.messageIndex,
        stepId: begun.step.id,
        subject: begun.subject,
        draftId: begun.draftId,
      };
    } else {
      const plan = planFor(ctx, lead, info, settings);
      if (plan === null || plan.action.kind !== kind || plan.at > now) {
        updateAndReplan(ctx, lead.id, {}, info, settings, lead);
        return null;
      }
      // The agent's reply, as a person approved it when its campaign requires approval.
      what = {
        ...conversationIntent(kind, lead),
        step: null,
        stepId: null,
        subject: null,
        draftId: kind === 'agent_send' ? approvedReplyDraft(ctx, lead, info) : null,
      };
    }
    const intentId = newSortableId('int');
    if (what.draftId) {
      // The approved draft is taken for this send: its words, byte for byte, and nobody changes them now.
      const claimed = claimStepDraft(ctx, what.draftId, intentId);
      if (claimed === null) {
        updateAndReplan(ctx, lead.id, {}, info, settings);
        return null;
      }
      what = { ...what, text: claimed.text, subject: claimed.subject };
    }
    const intent: IntentRow = {
      seq: 0,
      id: intentId,
      leadId,
      campaignId: lead.campaignId,
      accountId,
      kind: what.kind,
      step: what.step,
      stepId: what.stepId,
      text: what.text,
      state: 'pending',
      holder,
      createdAt: now,
      settledAt: null,
      chatId: null,
      messageId: null,
      errorCode: null,
    };
    const { seq: _seq, ...values } = intent;
    insertIntent(ctx.db, values);
    // An email is recorded with its Message-ID in the same commit as its intent (core's planEmail).
    if (kindOfSend(kind)?.channel === 'email')
      return { intent, lead, info, subject: what.subject, email: planEmail(ctx, { mailboxId: accountId, leadId, subject: what.subject ?? '' }, now, lead) };
    // The call joins the account's day of calls, which the next lock-step check compares.
    recordCallMinute(ctx, accountId, now);
    return { intent, lead, info, subject: what.subject };
  });
}

/** Marks a pending intent settled; false when it was settled already (e.g. by recovery). */
function settle(
  ctx: Ctx,
  intent: IntentRow,
  state: 'sent' | 'failed' | 'assumed_sent',
  fields: Pick<Partial<IntentRow>, 'chatId' | 'messageId' | 'errorCode'>,
): boolean {
  const result = intentStatements(ctx.db).settle.run({
    id: intent.id,
    state,
    settledAt: ctx.simClock.now(),
    chatId: fields.chatId ?? null,
    messageId: fields.messageId ?? null,
    errorCode: fields.errorCode ?? null,
  });
  return result.changes === 1;
}

export type { CallResult, SkippedOutcome };

/**
 * The effects of a send that happened: stage, counters, activity, the step it carried out (the
 * step runner records it and moves the lead on) and the lead's next due time. `result` is null
 * for a send whose outcome is unknown (see settleAssumedSent): it counts as carried out.
 */
function applySent(ctx: Ctx, settings: EngineSettings, intent: IntentRow, result: CallResult | null, known?: LeadRow | null): void {
  const lead = known !== undefined ? (known ?? undefined) : getLead(ctx, intent.leadId);
  const info = lead ? loadCampaignInfo(ctx, lead.campaignId) : null;
  if (!lead || !info) return;
  const at = ctx.simClock.now();
  const chat = result?.chatId ?? lead.chatId;
  if (intent.kind === 'manual_message') return applyManualSent(ctx, intent, lead, chat, at);
  const step = kindOfIntent(intent.kind);
  if (step) return applyStepSent(ctx, settings, intent, lead, info, step, chat, result?.skipped, at);
  let changes: Partial<LeadRow>;
  let type: 'agent_replied' | 'cta_sent';
  switch (intent.kind) {
    case 'agent_reply':
    case 'cta':
      changes = { needsReply: false, agentTurns: lead.agentTurns + 1, agentSendKind: null, agentSendText: null, chatId: chat };
      type = intent.kind === 'cta' ? 'cta_sent' : 'agent_replied';
      break;
    case 'polite_close':
      changes = { needsReply: false, chatId: chat };
      // The close is the agent's last word in the conversation.
      type = 'agent_replied';
      break;
    default:
      return;
  }
  countAccountDaily(ctx, intent.accountId, 'messagesSent');
  changes = { ...changes, sendAttempts: 0, updatedAt: at };
  const after = { ...lead, ...changes };
  // The reply's draft is found by the turn before this send; its draft.sent shows the lead after it.
  if (intent.kind !== 'polite_close') settleReplyDraft(ctx, lead, info, intent.id, true, after);
  const position = settleStep(ctx, after, info, settings, intent, { event: 'sent' }, at);
  const updated = updateAndReplan(ctx, lead.id, changes, info, settings, lead, position);
  if (!updated) return;
  recordActivity(ctx, { type, at, lead: updated, text: intent.text, accountId: intent.accountId });
  if (intent.text !== null) recordMessage(ctx, { lead: updated, sender: 'agent', text: intent.text, at, accountId: intent.accountId });
  if (intent.kind === 'polite_close') excludeEverywhere(ctx, updated);
}

/**
 * The effects of a step's send that happened, as its kind says (src/core/steps/): the lead's
 * fields, the campaign's and the account's counters, the step recorded (sent, or skipped for
 * what the network answered) and the lead moved on, the activity and the thread.
 */
function applyStepSent(
  ctx: Ctx,
  settings: EngineSettings,
  intent: IntentRow,
  lead: LeadRow,
  info: CampaignInfo,
  step: ActionKind,
  chat: string | null,
  skipped: string | undefined,
  at: number,
): void {
  const effects = step.sent(lead, at, skipped !== undefined, { step: intent.step, chatId: chat });
  if (effects.outreach) countOutreach(ctx, lead.campaignId, effects.outreach);
  if (effects.daily) countAccountDaily(ctx, intent.accountId, effects.daily);
  const changes = { ...effects.changes, sendAttempts: 0, updatedAt: at };
  const position = settleStep(ctx, { ...lead, ...changes }, info, settings, intent, skipped ? { event: 'skipped', reason: skipped } : { event: 'sent' }, at);
  const updated = updateAndReplan(ctx, lead.id, changes, info, settings, lead, position);
  // Kinds the public activity log has no type for (visits, likes, withdrawals): their intents are the record.
  if (!updated || skipped || effects.activity === undefined) return;
  recordActivity(ctx, { type: effects.activity, at, lead: updated, text: intent.text, accountId: intent.accountId });
  if (effects.thread && intent.text !== null) recordMessage(ctx, { lead: updated, sender: 'sequence', text: intent.text, at, accountId: intent.accountId });
}

/**
 * An operator's direct message that was sent: the chat id is kept, `needsReply` clears, and a
 * lead in a conversation (it replied, not yet handed off) is handed to the operator. It is
 * recorded as manual `message_sent` activity (never listed) and counts toward the account's
 * messages today, not toward campaign stats.
 */
function applyManualSent(ctx: Ctx, intent: IntentRow, lead: LeadRow, chatId: string | null, at: number): void {
  const changes = { chatId, needsReply: false, updatedAt: at };
  const inConversation = lead.replied && lead.stage !== 'handed_off';
  const updated = inConversation ? handOffLead(ctx, lead, MANUAL_HANDOFF_REASON, at, intent.accountId, changes) : lead;
  if (!inConversation) updateLead(ctx.db, lead.id, changes);
  recordActivity(ctx, { type: 'message_sent', at, lead: updated, text: intent.text, accountId: intent.accountId, manual: true });
  if (intent.text !== null) {
    recordMessage(ctx, {
      lead: updated,
      sender: intent.holder === OPERATOR_HOLDER ? 'operator' : 'api',
      text: intent.text,
      at,
      accountId: intent.accountId,
      externalId: intent.messageId,
    });
  }
  countAccountDaily(ctx, intent.accountId, 'messagesSent');
  failpoint(ctx, 'inbox.send.record', intent.id);
}

/**
 * An operator's email reply went out: as after their LinkedIn message, the lead needs no reply,
 * and a lead in conversation is handed to the person (the agent steps back). The email itself
 * is in the thread already (sendEmail records it). Call in a transaction.
 */
export function applyOperatorEmailSent(ctx: Ctx, lead: LeadRow, mailboxId: string, at: number): void {
  const changes = { needsReply: false, updatedAt: at };
  if (lead.replied && lead.stage !== 'handed_off') handOffLead(ctx, lead, MANUAL_HANDOFF_REASON, at, mailboxId, changes);
  else updateLead(ctx.db, lead.id, changes);
}

/** Why the agent steps back when an operator writes to a lead in a conversation. */
export const MANUAL_HANDOFF_REASON = 'An operator messaged the lead directly, so the agent stopped replying automatically.';

/**
 * Step one of an operator's direct message: records the intent, in its own transaction, before
 * the provider is called. If recording the send afterwards fails, the intent stays pending and
 * is settled as sent by the engine's recovery, so the message is counted once and never sent twice.
 */
export function beginManualSend(
  ctx: Ctx,
  input: { leadId: string; campaignId: string; accountId: string; text: string; sender?: 'api' | 'operator' },
): IntentRow {
  return transaction(ctx.db, () => {
    const intent: IntentRow = {
      seq: 0,
      id: newSortableId('int'),
      leadId: input.leadId,
      campaignId: input.campaignId,
      accountId: input.accountId,
      kind: 'manual_message',
      step: null,
      stepId: null,
      text: input.text,
      state: 'pending',
      holder: input.sender === 'operator' ? OPERATOR_HOLDER : MANUAL_HOLDER,
      createdAt: ctx.simClock.now(),
      settledAt: null,
      chatId: null,
      messageId: null,
      errorCode: null,
    };
    const { seq: _seq, ...values } = intent;
    insertIntentRow(ctx.db, values);
    return intent;
  });
}

/** An operator's direct message the provider accepted: the intent is settled and the send recorded, in one transaction. */
export function settleManualSent(ctx: Ctx, intent: IntentRow, result: { chatId: string; messageId: string }): void {
  transaction(ctx.db, () => {
    if (!settle(ctx, intent, 'sent', { chatId: result.chatId, messageId: result.messageId })) return;
    const lead = getLead(ctx, intent.leadId);
    if (lead) applyManualSent(ctx, intent, lead, result.chatId, ctx.simClock.now());
  });
}

/** An operator's direct message the provider refused: the intent is closed and nothing else changes. */
export function settleManualFailed(ctx: Ctx, intent: IntentRow, code: string): void {
  transaction(ctx.db, () => void settle(ctx, intent, 'failed', { errorCode: code }));
}

export function settleSent(ctx: Ctx, settings: EngineSettings, intent: IntentRow, result: CallResult): void {
  transaction(ctx.db, () => {
    // The email went out whatever became of its intent meanwhile (recovery may have settled it): its record is its own.
    // Its thread's entry and the send's effects read the same lead row (neither record changes it): read once.
    const lead = result.email && result.email.leadId === intent.leadId ? (getLead(ctx, intent.leadId) ?? null) : undefined;
    if (result.email) recordEmailSent(ctx, result.email, 'sequence', lead);
    if (!settle(ctx, intent, 'sent', { chatId: result.chatId ?? null, messageId: result.messageId ?? null })) return;
    applySent(ctx, settings, intent, result, lead);
  });
}

/**
 * Settles the intents left pending by an engine that died mid-send, but those in `inFlight` (the
 * calling engine's own): with the lease held no other engine can be sending them, so each counts
 * as sent and is never sent again.
 */
export function settleAbandoned(ctx: Ctx, settings: EngineSettings, inFlight: ReadonlySet<string>): void {
  for (const intent of pendingIntentRows(ctx.db)) {
    if (inFlight.has(intent.id)) continue;
    ctx.log.warn({ intentId: intent.id, leadId: intent.leadId, kind: intent.kind }, 'send outcome unknown after restart; counted as sent, not repeated');
    settleAssumedSent(ctx, settings, intent);
  }
}

/**
 * Recovery after a crash between intent and result: the provider may or may not have sent it,
 * and a second send could duplicate a message, so it counts as sent (at most once).
 */
export function settleAssumedSent(ctx: Ctx, settings: EngineSettings, intent: IntentRow): void {
  transaction(ctx.db, () => {
    if (!settle(ctx, intent, 'assumed_sent', {})) return;
    applySent(ctx, settings, intent, null);
  });
}

/** A step's send failed for good: the lead fails, and its sequence ends there. */
function failStep(ctx: Ctx, settings: EngineSettings, intent: IntentRow, lead: LeadRow, info: CampaignInfo, attempts: number, at: number): void {
  updateAndReplan(ctx, lead.id, { stage: 'failed', sendAttempts: attempts, updatedAt: at }, info, settings, lead);
  failStepSend(ctx, lead.id, info, intent, at);
}

/**
 * The effects of a send that failed. Transient, account and quota failures wait until
 * `retryAt` and retry, up to maxSendAttempts tries in all; anything else is final:
 * the lead fails, an agent message is handed to a person, a polite close excludes anyway.
 * Returns when the send is tried again: `retryAt`, or null when it is not (the failure was
 * final, the intent was settled before, or the lead is gone).
 */
export function settleFailed(ctx: Ctx, settings: EngineSettings, intent: IntentRow, code: string, retryAt: number): number | null {
  return transaction(ctx.db, (): number | null => {
    if (!settle(ctx, intent, 'failed', { errorCode: code })) return null;
    const lead = getLead(ctx, intent.leadId);
    const info = lead ? loadCampaignInfo(ctx, lead.campaignId) : null;
    if (!lead || !info) return null;
    const at = ctx.simClock.now();
    let cls = classify(code);
    // A failed try counts, so a lead the network keeps refusing is given up on eventually; but a
    // disconnected sender is the account's state, not the lead's: its lead waits (the account
    // is held an hour a try, as planAfterFailure says), and is never failed for it.
    const counts = cls !== 'account';
    const attempts = counts ? lead.sendAttempts + 1 : lead.sendAttempts;
    if (counts && attempts >= settings.maxSendAttempts) cls = 'permanent';
    if (intent.kind === 'agent_reply' || intent.kind === 'cta') settleReplyDraft(ctx, lead, info, intent.id, false);
    if (cls !== 'permanent') {
      updateLead(ctx.db, lead.id, { sendAttempts: attempts, nextActionAt: retryAt, updatedAt: at });
      releaseStepDraft(ctx, lead.id, info, intent);
      return retryAt;
    }
    switch (intent.kind) {
      case 'agent_reply':
      case 'cta':
        handOffLead(ctx, lead, `The agent's reply could not be delivered (${code}); a person should follow up.`, at, intent.accountId);
        return null;
      case 'polite_close':
        excludeEverywhere(ctx, lead);
        return null;
      default: {
        // A kind may answer a final failure with a skip: nothing left to withdraw (the
        // withdrawal stops trying, as the timeout would), an InMail from an account without
        // Sales Navigator after all. The intent keeps the error code; the lead goes on.
        const skip = kindOfIntent(intent.kind)?.finalFailure?.(code) ?? null;
        if (skip === null) {
          failStep(ctx, settings, intent, lead, info, attempts, at);
          return null;
        }
        const changes = skip.changes ? { ...skip.changes(at), sendAttempts: attempts, updatedAt: at } : { sendAttempts: 0, updatedAt: at };
        settleStep(ctx, { ...lead, ...changes }, info, settings, intent, { event: 'skipped', reason: skip.reason }, at);
        updateAndReplan(ctx, lead.id, changes, info, settings, lead);
        return null;
      }
    }
  });
}

/**
 * The provider call of a begun send, to the lead's profile (and chat, once there is one): an
 * invitation, a withdrawal, a visit, a like, an InMail or a message. Network I/O, outside any
 * transaction.
 */
export async function callProvider(ctx: Ctx, { intent, lead, subject, email }: BegunSend, account: AccountRef | null): Promise<CallResult> {
  const step = kindOfIntent(intent.kind);
  if (step?.channel === 'email') {
    // An email goes from the mailbox the intent names (the lane's), to the lead's address: no profile, no account.
    return step.call({
      network: ctx.network,
      recipient: recipientOf(lead) ?? { networkUrl: '' },
      account: { id: intent.accountId, hasSalesNavigator: false },
      text: intent.text,
      subject,
      chatId: null,
      email: (words) => emailStepCall(ctx, intent, words, email),
    });
  }
  const recipient = recipientOf(lead);
  if (recipient === null) throw networkError('validation_error', 'The lead has no profile URL or provider id to reach.', { fields: ['networkUrl'] });
  if (account === null) throw networkError('account_disconnected', 'No network account sends this lead.');
  if (step) return step.call({ network: ctx.network, recipient, account, text: intent.text, subject, chatId: lead.chatId });
  // The conversation's sends (the agent's reply, a polite close) are messages.
  return ctx.network.sendMessage({ account, recipient, ...(lead.chatId ? { chatId: lead.chatId } : {}), text: intent.text ?? '' });
}

/**
 * An email step's send through core's email verbs, read as a provider call: sent, skipped for
 * why (no address, an address that unsubscribed or bounced meanwhile), or a failure the engine
 * retries (the mailbox may not send right now, the server was unreachable) or gives up on (the
 * server refused the recipient: `send_failed`, which the step answers with a skip). The email was
 * planned with the intent (beginSend); what the server took comes back to be recorded with the
 * send's settlement (settleSent), so an email costs the engine's two commits, as any send does.
 * A send begun without its plan has it made now, in a transaction of its own.
 */
async function emailStepCall(ctx: Ctx, intent: IntentRow, words: { subject: string; text: string }, plan: EmailPlan | undefined): Promise<CallResult> {
  const input = { mailboxId: intent.accountId, leadId: intent.leadId, subject: words.subject, text: words.text };
  const planned = plan ?? planEmail(ctx, input, ctx.simClock.now());
  if (planned.status !== 'go') return emailOutcome(ctx, intent, planned);
  const sent = await deliverEmail(ctx, planned, input);
  if ('status' in sent) return emailOutcome(ctx, intent, sent);
  return { messageId: sent.messageId, email: sent };
}

function emailOutcome(ctx: Ctx, intent: IntentRow, result: Exclude<SendEmailResult, { status: 'sent' }>): CallResult {
  switch (result.status) {
    case 'skipped':
      return { skipped: result.reason };
    case 'wait':
      throw networkError('upstream_unavailable', `The mailbox may not send now (${result.reason}); the email waits.`);
    case 'failed':
      // A refused login is the mailbox's, not the lead's: the mailbox stops (login_failed) and the lead waits for it.
      if (result.permanent && findMailbox(ctx, intent.accountId)?.status !== 'login_failed') throw networkError('send_failed', result.error.slice(0, 300));
      throw networkError('upstream_unavailable', result.error.slice(0, 300));
  }
}
