import { campaignReach, reachesCampaign } from '../auth/scope.js';
import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import { ApiError } from '../errors.js';
import { sendMessage, type SendMessageResult } from '../inbox/send.js';
import { clean, composeFullName } from '../text.js';
import { MESSAGE_SENDERS } from './record.js';
import { LeadTag } from '../leads/enums.js';
import { suggestionView, TagSuggestion } from '../triage/suggest.js';
import { type ConversationRow, conversationPageRows, type MessageRow, messageChannelsOf, messageCount, readSuggestion, threadMessages } from './store.js';
import { leadStatements } from '../../db/sql/leads.js';
import { clearLeadNeedsReply, type LeadRow } from '../leads/store.js';
import { bouncedSendsOfLead } from '../mailboxes/store.js';
import { campaignRow } from '../campaigns/store.js';
import { emailAddressOf, EMAIL_UNAVAILABLE } from '../email/lead.js';
import { emailReplyPlan, emailUnavailableText, replyByEmail } from '../email/reply.js';

export const CONVERSATION_FILTERS = ['needs_reply', 'handed_off', 'all'] as const;
export type ConversationFilter = (typeof CONVERSATION_FILTERS)[number];

const Text = z.string().nullable();

/** The channels a message travels: a thread holds both when a sequence mixes them. */
export const MESSAGE_CHANNELS = ['linkedin', 'email'] as const;
const Channel = z.enum(MESSAGE_CHANNELS);
const channelOf = (stored: string): (typeof MESSAGE_CHANNELS)[number] => (stored === 'email' ? 'email' : 'linkedin');

/** One thread in the inbox list. */
export const ConversationSummary = z.object({
  leadId: z.string(),
  name: Text,
  companyName: Text,
  campaign: z.object({ id: z.string(), name: Text }),
  lastMessage: z.object({
    direction: z.enum(['inbound', 'outbound']),
    sender: z.enum(MESSAGE_SENDERS),
    preview: z.string(),
    at: IsoTimestamp,
    channel: Channel.describe('linkedin or email: the channel of the newest message, which marks the thread'),
  }),
  lastInboundAt: IsoTimestamp.nullable(),
  messageCount: z.number().int(),
  needsReply: z.boolean(),
  handedOff: z.boolean(),
  tag: LeadTag.nullable().describe("the lead's confirmed tag"),
  suggestion: TagSuggestion.nullable().describe("the triage's suggested tag for the newest reply; null when none"),
});
export type ConversationSummary = z.infer<typeof ConversationSummary>;

export const ConversationList = z.object({ conversations: z.array(ConversationSummary), nextCursor: z.string().nullable() });
export type ConversationList = z.infer<typeof ConversationList>;

export const ConversationMessage = z.object({
  id: z.string(),
  direction: z.enum(['inbound', 'outbound']),
  sender: z.enum(MESSAGE_SENDERS),
  text: z.string(),
  at: IsoTimestamp,
  channel: Channel.describe('linkedin or email; an email reads as its subject, a blank line, then its text'),
  bouncedAt: IsoTimestamp.nullable().describe(
    "for an email we sent that bounced, when its delivery-status report came back (the thread also holds the mail server's notice, sender mail_server); else null",
  ),
});

/** A whole thread: the lead as the inbox shows it, and every stored message, oldest first. */
export const Conversation = z.object({
  lead: z.object({
    id: z.string(),
    name: Text,
    firstName: Text,
    jobTitle: Text,
    companyName: Text,
    networkUrl: Text,
    stage: z.string(),
    tag: Text,
    needsReply: z.boolean(),
    handedOff: z.boolean(),
    excluded: z.boolean(),
  }),
  campaign: z.object({ id: z.string(), name: Text }),
  suggestion: TagSuggestion.nullable(),
  messages: z.array(ConversationMessage),
  reply: z
    .object({
      channel: Channel.describe("the channel a reply goes by unless another is asked for: that of the lead's newest message, else of ours"),
      email: z
        .object({
          mailboxId: z.string(),
          from: z.string().describe("the mailbox's address"),
          to: z.string().nullable().describe("the lead's address; null when it has none"),
          subject: z.string().describe('"Re: " and the subject of the thread'),
          unavailable: z
            .object({
              reason: z.enum(EMAIL_UNAVAILABLE).describe('no_email: the lead has no address; unsubscribed or bounced: its address did, in any campaign'),
              message: z.string().describe('why, in words a person can act on'),
            })
            .optional()
            .describe('present when a reply by email would be refused, and why (reply on LinkedIn then); absent when it may go'),
        })
        .nullable()
        .describe('how a reply by email goes out; null when the thread holds no email to answer'),
    })
    .describe('how reply_conversation answers this thread'),
});
export type Conversation = z.infer<typeof Conversation>;

export interface ListConversationsInput {
  filter: ConversationFilter;
  /** Only the threads of this campaign. */
  campaignId?: string | undefined;
  /** Only threads whose stored suggestion is this tag. */
  suggestedTag?: LeadTag | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * The inbox: threads newest inbound message first (threads the lead never wrote in come after,
 * newest thread first), filtered to those that need a reply, those handed off to a person, or
 * all. Threads of deleted leads are left out. Keyset-paged like the API's lists.
 */
export function listConversations(ctx: Ctx, secret: string, input: ListConversationsInput): ConversationList {
  const scope = `conversations:${input.filter}:${input.campaignId ?? ''}:${input.suggestedTag ?? ''}`;
  let after: { inbound: number; seq: number } | undefined;
  if (input.cursor !== undefined) {
    const [inbound, seq] = decodeCursor(secret, scope, input.cursor);
    if (typeof inbound !== 'number' || typeof seq !== 'number') throw invalidCursor();
    after = { inbound, seq };
  }
  const rows = conversationPageRows(ctx, {
    filter: input.filter,
    campaignId: input.campaignId,
    suggestedTag: input.suggestedTag,
    // A key held to campaigns (triage toolset) sees only their threads.
    reach: (column) => campaignReach(ctx, column),
    after,
    limit: input.limit + 1,
  });
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, scope, [last.c.lastInboundAt, last.c.seq]));
  return {
    conversations: page.items.map(({ c, lead, campaignName }) => ({
      leadId: lead.id,
      name: composeFullName(lead.fullName, lead.firstName, lead.lastName),
      companyName: clean(lead.companyName),
      campaign: { id: c.campaignId, name: campaignName ?? null },
      lastMessage: {
        direction: c.lastDirection as 'inbound' | 'outbound',
        sender: c.lastSender as (typeof MESSAGE_SENDERS)[number],
        preview: c.lastPreview,
        at: iso(c.lastMessageAt),
        channel: channelOf(c.lastChannel),
      },
      lastInboundAt: c.lastInboundAt > 0 ? iso(c.lastInboundAt) : null,
      messageCount: c.messageCount,
      needsReply: lead.needsReply,
      handedOff: lead.stage === 'handed_off',
      tag: LeadTag.nullable().catch(null).parse(lead.tag),
      suggestion: suggestionOf(c),
    })),
    nextCursor: page.nextCursor,
  };
}

const suggestionOf = (c: ConversationRow): TagSuggestion | null =>
  c.suggestedTag === null || c.suggestedBy === null
    ? null
    : suggestionView({
        tag: c.suggestedTag,
        suggestedBy: c.suggestedBy,
        confidence: c.suggestedConfidence ?? 0,
        reason: c.suggestedReason,
        at: c.suggestedAt ?? 0,
      });

const leadNotFound = (leadId: string) => new ApiError('not_found', `No lead ${leadId}. Pick a thread from list_conversations.`, { fields: ['leadId'] });

function requireLead(ctx: Ctx, leadId: string): LeadRow {
  const lead = leadStatements(ctx.db).byId.get(leadId);
  if (!lead || !reachesCampaign(ctx, lead.campaignId)) throw leadNotFound(leadId);
  return lead;
}

/** One lead's thread: every message stored for it, oldest first. A lead with no messages has an empty thread. */
export function getConversation(ctx: Ctx, leadId: string): Conversation {
  const lead = requireLead(ctx, leadId);
  const campaign = campaignRow(ctx, lead.campaignId);
  const rows = threadMessages(ctx, leadId);
  // An email we sent is known by its Message-ID; a bounce marks the email it answers.
  const bounced = rows.some((m) => m.channel === 'email') ? bouncedSendsOfLead(ctx, lead.id) : new Map<string, number>();
  const bouncedAt = (m: (typeof rows)[number]): string | null => {
    const at = m.channel === 'email' && m.direction === 'outbound' && m.externalId !== null ? bounced.get(m.externalId) : undefined;
    return at === undefined ? null : iso(at);
  };
  return {
    lead: {
      id: lead.id,
      name: composeFullName(lead.fullName, lead.firstName, lead.lastName),
      firstName: clean(lead.firstName),
      jobTitle: clean(lead.jobTitle),
      companyName: clean(lead.companyName),
      networkUrl: lead.networkUrl,
      stage: lead.stage,
      tag: lead.tag,
      needsReply: lead.needsReply,
      handedOff: lead.stage === 'handed_off',
      excluded: lead.excluded,
    },
    campaign: { id: lead.campaignId, name: campaign?.name ?? null },
    suggestion: suggestionView(readSuggestion(ctx, lead.id)),
    reply: { channel: replyChannelOf(rows), email: replyEmailOf(ctx, lead, rows) },
    messages: rows.map((m) => ({
      id: m.id,
      direction: m.direction as 'inbound' | 'outbound',
      sender: m.sender as (typeof MESSAGE_SENDERS)[number],
      text: m.text,
      at: iso(m.at),
      channel: channelOf(m.channel),
      bouncedAt: bouncedAt(m),
    })),
  };
}

/**
 * The channel a reply takes by default: the one the lead last wrote on, else the one we last
 * wrote on (a mail server's bounce notice is neither); LinkedIn for an empty thread.
 */
function replyChannelOf(rows: readonly Pick<MessageRow, 'sender' | 'channel'>[]): (typeof MESSAGE_CHANNELS)[number] {
  const spoken = rows.filter((m) => m.sender !== 'mail_server');
  const last = spoken.findLast((m) => m.sender === 'lead') ?? spoken.at(-1);
  return last ? channelOf(last.channel) : 'linkedin';
}

/** How a reply by email goes, and, when it would be refused (the lead's address is gone, bounced or unsubscribed), why. */
function replyEmailOf(ctx: Ctx, lead: LeadRow, rows: readonly Pick<MessageRow, 'channel'>[]): Conversation['reply']['email'] {
  if (!rows.some((m) => m.channel === 'email')) return null;
  const plan = emailReplyPlan(ctx, lead);
  if (!plan) return null;
  const to = emailAddressOf(ctx, lead);
  const how = { mailboxId: plan.mailboxId, from: plan.from, to: plan.to, subject: plan.subject };
  return to.unavailable === null ? how : { ...how, unavailable: { reason: to.unavailable, message: emailUnavailableText(to.unavailable, to.address) } };
}

/**
 * The operator answers a thread, on the channel asked for or the thread's own (see
 * replyChannelOf). On LinkedIn: the same verb as the API's send_message (account rules, quotas,
 * exclusion, hand-off). By email: from the thread's mailbox, threaded, under the channel's rules
 * (replyByEmail). Either way recorded as the operator's message.
 */
export async function replyToConversation(
  ctx: Ctx,
  input: { leadId: string; text: string; channel?: (typeof MESSAGE_CHANNELS)[number] | undefined },
): Promise<SendMessageResult> {
  const lead = requireLead(ctx, input.leadId);
  const channel = input.channel ?? replyChannelOf(messageChannelsOf(ctx, lead.id));
  if (channel === 'email') return replyByEmail(ctx, lead, input.text, 'operator');
  return sendMessage(ctx, { campaignId: lead.campaignId, leadId: lead.id, text: input.text, sender: 'operator' });
}

export const DoneResult = z.object({ leadId: z.string(), needsReply: z.literal(false) });

/**
 * Marks a thread done: the lead no longer needs a reply. An agent answer still waiting to be
 * decided or sent is dropped too, since the operator has said nothing more is owed.
 */
export function markConversationDone(ctx: Ctx, leadId: string): z.infer<typeof DoneResult> {
  return transaction(ctx.db, () => {
    requireLead(ctx, leadId);
    clearLeadNeedsReply(ctx.db, leadId, ctx.simClock.now());
    return { leadId, needsReply: false as const };
  });
}

/** Messages stored for a lead; for tests and the workspace export. */
export const countMessages = (ctx: Ctx, leadId: string): number => messageCount(ctx, leadId);
