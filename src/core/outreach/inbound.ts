import { leadStatements } from '../../db/sql/leads.js';
import { eachInOneTransaction, transaction } from '../../db/tx.js';
import { countAccountDaily, countOutreach, recordActivity } from '../activity/record.js';
import { iso } from '../clock.js';
import { recordMessage } from '../conversations/record.js';
import type { Ctx } from '../context.js';
import { normalizeProfileUrl } from '../leads/url.js';
import { recordLeadEvent } from '../webhooks/outbox.js';
import { triageReply } from '../triage/suggest.js';
import { closeDraftsOfEndedSequence } from './runner.js';
import { endSequence, recordAccepted, recordReplied } from '../sequences/store.js';
import type { InboundEvent } from '../network/provider.js';
import { MESSAGE_TEXT_MAX } from './limits.js';
import type { EngineSettings } from './settings.js';
import { effectiveAccountId, loadCampaignInfo, updateAndReplan, type CampaignInfo, type LeadRow } from './state.js';

/** A reply does not move a lead out of these stages: a person owns it, or it is closed. */
const STAGES_KEPT_ON_REPLY = new Set(['handed_off', 'excluded', 'tagged']);

interface Candidate {
  lead: LeadRow;
  info: CampaignInfo;
}

/**
 * Leads of this person contacted from this account, in any campaign: the account the lead sends
 * from, or, for a message, the chat the lead was last written in (an operator's message may go
 * from another account than the lead's, and the reply comes back in that chat).
 */
function candidates(ctx: Ctx, event: InboundEvent): Candidate[] {
  const url = normalizeProfileUrl(event.networkUrl);
  const l = leadStatements(ctx.db);
  const rows = url ? l.byUrl.all(url) : l.byProviderId.all(event.providerId);
  const infos = new Map<string, CampaignInfo | null>();
  const out: Candidate[] = [];
  for (const lead of rows) {
    if (!infos.has(lead.campaignId)) infos.set(lead.campaignId, loadCampaignInfo(ctx, lead.campaignId));
    const info = infos.get(lead.campaignId);
    if (!info) continue;
    const inChat = event.type === 'message_received' && lead.chatId !== null && lead.chatId === event.chatId;
    if (inChat || effectiveAccountId(lead, info) === event.accountId) out.push({ lead, info });
  }
  return out;
}

/**
 * Applies one inbound event in one transaction: stage, flags, counters, activity and the
 * webhook outbox move together. Returns the campaign ids of the leads it changed.
 */
export function applyInbound(ctx: Ctx, event: InboundEvent, settings: EngineSettings): string[] {
  return transaction(ctx.db, () => (event.type === 'invitation_accepted' ? applyAcceptance(ctx, event, settings) : applyReply(ctx, event, settings)));
}

/**
 * Applies a tick's inbound events in one transaction (one commit, not one per event). An event
 * that cannot be applied is reported to `failed` and the others still commit (see
 * eachInOneTransaction). Returns the campaign ids of the leads they changed.
 */
export function applyInboundAll(
  ctx: Ctx,
  events: readonly InboundEvent[],
  settings: EngineSettings,
  failed: (event: InboundEvent, err: unknown) => void,
): Set<string> {
  const campaignIds = new Set<string>();
  if (events.length === 0) return campaignIds;
  const outcomes = eachInOneTransaction(
    ctx.db,
    events.map((event) => () => applyInbound(ctx, event, settings)),
  );
  outcomes.forEach((outcome, i) => {
    if (outcome.ok) for (const id of outcome.value) campaignIds.add(id);
    else failed(events[i]!, outcome.err);
  });
  return campaignIds;
}

function applyAcceptance(ctx: Ctx, event: InboundEvent, settings: EngineSettings): string[] {
  const invited = candidates(ctx, event).filter(
    ({ lead }) => !lead.connectionRequestAccepted && lead.invitationWithdrawnAt === null && (lead.invitedAt !== null || lead.stage === 'connection_sent'),
  );
  for (const { lead, info } of invited) {
    const stage = lead.stage === 'new' || lead.stage === 'connection_sent' ? 'connected' : lead.stage;
    const now = ctx.simClock.now();
    const updated = updateAndReplan(ctx, lead.id, { connectionRequestAccepted: true, connectedAt: event.at, stage, updatedAt: now }, info, settings, lead);
    if (!updated) continue;
    // The step runner's stats: the acceptance counts for the invite step (and variant) that asked.
    recordAccepted(ctx, { leadId: lead.id, at: event.at });
    countOutreach(ctx, lead.campaignId, 'connectionRequestsAccepted');
    countAccountDaily(ctx, event.accountId, 'connectionRequestsAccepted');
    recordActivity(ctx, { type: 'connection_accepted', at: event.at, lead: updated, accountId: event.accountId });
    recordLeadEvent(ctx, 'lead.connection_accepted', updated, { acceptedAt: iso(event.at) }, event.accountId);
  }
  return invited.map((c) => c.lead.campaignId);
}

/** The conversation a reply belongs to: same chat first, else the lead messaged most recently. */
function pickReplyTarget(all: Candidate[], chatId: string): Candidate | undefined {
  const byChat = all.find((c) => c.lead.chatId === chatId);
  if (byChat) return byChat;
  const contacted = all.filter((c) => c.lead.messageSent || c.lead.sequenceStep > 0 || c.lead.invitedAt !== null || c.lead.chatId !== null);
  const recency = (l: LeadRow) => Math.max(l.lastSequenceSentAt ?? 0, l.invitedAt ?? 0, l.updatedAt);
  return contacted.sort((a, b) => recency(b.lead) - recency(a.lead))[0];
}

function applyReply(ctx: Ctx, event: Extract<InboundEvent, { type: 'message_received' }>, settings: EngineSettings): string[] {
  const target = pickReplyTarget(candidates(ctx, event), event.chatId);
  if (!target) {
    ctx.log.info({ eventId: event.id }, 'inbound message matches no contacted lead; ignored');
    return [];
  }
  return applyLeadReply(
    ctx,
    target,
    { text: event.text, at: event.at, accountId: event.accountId, externalId: event.id, chatId: event.chatId, channel: 'linkedin' },
    settings,
  );
}

/** A reply from a lead, on either channel: what it came through and how to find it again. */
export interface LeadReply {
  text: string;
  at: number;
  /** The account (LinkedIn) or mailbox (email) it reached. */
  accountId: string;
  externalId: string;
  /** The LinkedIn chat; null for an email. */
  chatId: string | null;
  channel: 'linkedin' | 'email';
}

/**
 * Records a reply from a lead that is known (a LinkedIn chat, or an email matched by its
 * Message-ID): the stage, the flags, the reply agent's turn, the end of the lead's sequence,
 * the conversation and the `lead.replied` webhook. Call it inside a transaction.
 */
export function applyLeadReply(ctx: Ctx, target: { lead: LeadRow; info: CampaignInfo }, reply: LeadReply, settings: EngineSettings): string[] {
  const { lead, info } = target;
  const firstReply = !lead.replied;
  const stage = STAGES_KEPT_ON_REPLY.has(lead.stage) ? lead.stage : 'replied';
  // The reply agent writes on LinkedIn only: a reply by email waits in the inbox for a person
  // (it needs a reply), who answers on its thread, rather than being answered in a LinkedIn
  // chat the lead never opened, maybe with no connection to carry it.
  const agentTakes = stage === 'replied' && !lead.excluded && reply.channel === 'linkedin';
  const updated = updateAndReplan(
    ctx,
    lead.id,
    {
      replied: true,
      needsReply: true,
      repliedAt: reply.at,
      lastInboundMessageAt: Math.max(reply.at, lead.lastInboundMessageAt ?? 0),
      stage,
      chatId: lead.chatId ?? reply.chatId,
      // A newer message supersedes an answer not yet sent: the agent decides on the latest.
      ...(agentTakes ? { pendingReplyText: reply.text.slice(0, MESSAGE_TEXT_MAX), agentSendKind: null, agentSendText: null } : {}),
      updatedAt: ctx.simClock.now(),
    },
    info,
    settings,
    lead,
  );
  if (!updated) return [];
  // A reply ends the lead's sequence; it counts for the last step sent to the lead before it.
  recordReplied(ctx, { leadId: lead.id, at: reply.at });
  endSequence(ctx, { leadId: lead.id, reason: 'replied', at: ctx.simClock.now() });
  // A draft of a later step waits for nothing now: it is skipped, and counted.
  closeDraftsOfEndedSequence(ctx, lead.id, info, 'replied', ctx.simClock.now());
  if (firstReply) countOutreach(ctx, lead.campaignId, 'repliesReceived');
  recordActivity(ctx, { type: 'reply_received', at: reply.at, lead: updated, text: reply.text, accountId: reply.accountId });
  recordMessage(ctx, {
    lead: updated,
    sender: 'lead',
    text: reply.text,
    at: reply.at,
    accountId: reply.accountId,
    externalId: reply.externalId,
    channel: reply.channel,
  });
  recordLeadEvent(ctx, 'lead.replied', updated, { message: { text: reply.text, receivedAt: iso(reply.at) } }, reply.accountId);
  // After the reply's own event: a receiver that works in event order hears of the reply first,
  // then of the tag suggested for it.
  triageReply(ctx, updated, reply.text, reply.at);
  return [lead.campaignId];
}
