import { index, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Every message to and from a lead since this table exists (the dashboard's inbox). Leads
 * loaded from a workspace file start with no history. `text` is the full message; the API
 * never returns it (activity keeps an 80-character preview), only the operator's dashboard.
 */
export const messages = sqliteTable(
  'messages',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    leadId: text('lead_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    /** The account that sent or received it; internal. */
    accountId: text('account_id'),
    /** inbound | outbound */
    direction: text('direction').notNull(),
    /** sequence | agent | operator | api | lead */
    sender: text('sender').notNull(),
    text: text('text').notNull(),
    /** Sim-clock ms, as the engine and activity record it. */
    at: integer('at').notNull(),
    /** The provider's message or event id, when known; internal. */
    externalId: text('external_id'),
    /** linkedin | email (migration 0027). An email's account is its mailbox (`mbx_…`). */
    channel: text('channel').notNull().default('linkedin'),
  },
  (t) => [index('messages_lead').on(t.leadId, t.at, t.seq)],
);

/**
 * One row per lead with messages: the inbox's thread list, kept by the same verb that records
 * a message, so listing threads newest-inbound first is one index walk, whatever the lead count.
 */
export const conversations = sqliteTable(
  'conversations',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    leadId: text('lead_id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    /** Newest inbound message time; 0 while the lead has never written (such threads sort last). */
    lastInboundAt: integer('last_inbound_at').notNull().default(0),
    lastMessageAt: integer('last_message_at').notNull(),
    lastDirection: text('last_direction').notNull(),
    lastSender: text('last_sender').notNull(),
    /** The first characters of the newest message. */
    lastPreview: text('last_preview').notNull(),
    messageCount: integer('message_count').notNull().default(0),
    /**
     * The triage's suggestion for the thread's newest replies: a lead tag, who made it
     * (`rule`, `model` or `assistant`), how sure (0..1), why (a rule's name or the model's few
     * words) and when. Null until something suggested; a later suggestion replaces it.
     */
    suggestedTag: text('suggested_tag'),
    suggestedBy: text('suggested_by'),
    suggestedConfidence: real('suggested_confidence'),
    suggestedReason: text('suggested_reason'),
    suggestedAt: integer('suggested_at'),
    /** The newest reply's time while it waits for the model's suggestion; null when nothing waits. */
    triagePendingAt: integer('triage_pending_at'),
    /** Wall ms until which one process asks the model about this thread; after a crash another asks again. */
    triageLeaseUntil: integer('triage_lease_until'),
    /** The channel of the newest message: linkedin | email (migration 0027). */
    lastChannel: text('last_channel').notNull().default('linkedin'),
  },
  (t) => [
    index('conversations_inbound').on(t.lastInboundAt, t.seq),
    index('conversations_suggested').on(t.suggestedTag, t.lastInboundAt, t.seq),
    index('conversations_triage_pending').on(t.triagePendingAt),
  ],
);
