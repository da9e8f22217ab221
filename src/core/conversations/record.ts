import { eq, sql } from 'drizzle-orm';
import { fast, inserterOf, perDb } from '../../db/prepared.js';
import { conversations, messages, type leads } from '../../db/schema.js';
import { messagePreview } from '../activity/record.js';
import type { Ctx } from '../context.js';
import { newSortableId } from '../ids.js';

type LeadRow = typeof leads.$inferSelect;

export const MESSAGE_SENDERS = ['sequence', 'agent', 'operator', 'api', 'lead'] as const;
/** What sent a message: the engine's sequence, the reply agent, the operator (dashboard), the API's send_message, or the lead. */
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
}

/**
 * Records one message to or from a lead and keeps its thread's summary, in the caller's
 * transaction: every path that sends or receives a message calls this beside the write that
 * records the send, so the message and the send commit or roll back together. The direction
 * follows from the sender: only the lead's messages are inbound.
 */
export function recordMessage(ctx: Ctx, input: RecordMessageInput): string {
  const id = newSortableId('msg');
  const direction: MessageDirection = input.sender === 'lead' ? 'inbound' : 'outbound';
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
  });
  const preview = messagePreview(input.text) ?? '';
  const inboundAt = direction === 'inbound' ? input.at : 0;
  upsertThread(ctx.db).run({ leadId: input.lead.id, campaignId: input.lead.campaignId, inboundAt, at: input.at, direction, sender: input.sender, preview });
  return id;
}

// Prepared once per database: every message sent or received writes both.
const insertMessage = inserterOf(messages);
const upsertThread = perDb((db) => {
  const p = (name: string) => sql`${sql.placeholder(name)}`;
  return fast(
    db
      .insert(conversations)
      .values({
        leadId: sql.placeholder('leadId'),
        campaignId: sql.placeholder('campaignId'),
        lastInboundAt: sql.placeholder('inboundAt'),
        lastMessageAt: sql.placeholder('at'),
        lastDirection: sql.placeholder('direction'),
        lastSender: sql.placeholder('sender'),
        lastPreview: sql.placeholder('preview'),
        messageCount: 1,
      })
      .onConflictDoUpdate({
        target: conversations.leadId,
        set: {
          lastInboundAt: sql`max(${conversations.lastInboundAt}, ${p('inboundAt')})`,
          // A message stamped earlier than the newest (a late inbound event) does not replace the preview.
          lastDirection: sql`case when ${p('at')} >= ${conversations.lastMessageAt} then ${p('direction')} else ${conversations.lastDirection} end`,
          lastSender: sql`case when ${p('at')} >= ${conversations.lastMessageAt} then ${p('sender')} else ${conversations.lastSender} end`,
          lastPreview: sql`case when ${p('at')} >= ${conversations.lastMessageAt} then ${p('preview')} else ${conversations.lastPreview} end`,
          lastMessageAt: sql`max(${conversations.lastMessageAt}, ${p('at')})`,
          messageCount: sql`${conversations.messageCount} + 1`,
        },
      })
      .prepare(),
  );
});

/** Deletes a lead's thread with the lead: a deleted lead's messages are not kept. Call in the delete's transaction. */
export function forgetConversation(ctx: Ctx, leadId: string): void {
  ctx.db.delete(messages).where(eq(messages.leadId, leadId)).run();
  ctx.db.delete(conversations).where(eq(conversations.leadId, leadId)).run();
}
