import type { leads } from '../../db/schema.js';
import { insertMessage, messageStatements } from '../../db/sql/messages.js';
import { messagePreview } from '../text.js';
import type { Ctx } from '../context.js';
import { newSortableId } from '../ids.js';
import { noteChange } from '../live/feed.js';
import { deleteThreadOf } from './store.js';

type LeadRow = typeof leads.$inferSelect;

export const MESSAGE_SENDERS = ['sequence', 'agent', 'operator', 'api', 'lead', 'mail_server'] as const;
/**
 * What sent a message: the engine's sequence, the reply agent, the operator (dashboard), the
 * API's send_message, the lead, or a mail server (a bounce: the notice that an email we sent
 * was not delivered, which arrives in the thread beside the lead's replies).
 */
export type MessageSender = (typeof MESSAGE_SENDERS)[number];
export type MessageDirection = 'inbound' | 'outbound';

export interface RecordMessageInput {
  lead: Pick<LeadRow, 'id' | 'campaignId'>;
  sender: MessageSender;
  text: string;
  /** Sim-clock ms, the time activity records for the same event. */
  at: number;
  accountId: string | null;
  /** The provider's message or event id, when known. */
  externalId?: string | null;
  /** The channel it went through (default linkedin); an email's account is its mailbox. */
  channel?: 'linkedin' | 'email';
}

/**
 * Records one message to or from a lead and keeps its thread's summary, in the caller's
 * transaction: every path that sends or receives a message calls this beside the write that
 * records the send, so the message and the send commit or roll back together. The direction
 * follows from the sender: only the lead's messages are inbound.
 */
export function recordMessage(ctx: Ctx, input: RecordMessageInput): string {
  const id = newSortableId('msg');
  const direction: MessageDirection = input.sender === 'lead' || input.sender === 'mail_server' ? 'inbound' : 'outbound';
  insertMessage(ctx.db, {
    id,
    leadId: input.lead.id,
    campaignId: input.lead.campaignId,
    accountId: input.accountId,
    direction,
    sender: input.sender,
    text: input.text,
    at: input.at,
    externalId: input.externalId ?? null,
    channel: input.channel ?? 'linkedin',
  });
  const preview = messagePreview(input.text) ?? '';
  const inboundAt = direction === 'inbound' ? input.at : 0;
  messageStatements(ctx.db).upsertThread.run({
    leadId: input.lead.id,
    campaignId: input.lead.campaignId,
    inboundAt,
    at: input.at,
    direction,
    sender: input.sender,
    preview,
    // A thread is marked by the channel of its newest message, in the same statement.
    channel: input.channel ?? 'linkedin',
  });
  noteChange(ctx, { resource: 'conversation', leadId: input.lead.id, campaignId: input.lead.campaignId });
  return id;
}

/** Deletes a lead's thread with the lead: a deleted lead's messages are not kept. Call in the delete's transaction. */
export function forgetConversation(ctx: Ctx, leadId: string): void {
  deleteThreadOf(ctx, leadId);
}
