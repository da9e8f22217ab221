import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { bool } from './columns.js';

export const leads = sqliteTable(
  'leads',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    /** The account that contacts this lead; null means the campaign agent's account. */
    accountId: text('account_id'),
    /** Normalised `https://www.linkedin.com/in/<slug>`; the dedupe and exclusion key. */
    networkUrl: text('network_url'),
    fullName: text('full_name'),
    firstName: text('first_name'),
    lastName: text('last_name'),
    jobTitle: text('job_title'),
    companyName: text('company_name'),
    companyNetwork: text('company_network'),
    website: text('website'),
    email: text('email'),
    location: text('location'),
    headline: text('headline'),
    personalization: text('personalization'),
    /** JSON array, at most 10 entries. */
    workExperience: text('work_experience').notNull().default('[]'),
    tag: text('tag'),
    taggedAt: integer('tagged_at'),
    /**
     * Set when a single PATCH gave an auto-exclude tag to a lead waiting on our reply: the engine
     * sends a polite close and then excludes the lead. Null when no close is pending.
     */
    politeClosePendingAt: integer('polite_close_pending_at'),
    stage: text('stage').notNull().default('new'),
    excluded: bool('excluded').notNull().default(false),
    replied: bool('replied').notNull().default(false),
    needsReply: bool('needs_reply').notNull().default(false),
    repliedAt: integer('replied_at'),
    lastInboundMessageAt: integer('last_inbound_message_at'),
    connectionRequestAccepted: bool('connection_request_accepted').notNull().default(false),
    messageSent: bool('message_sent').notNull().default(false),
    /** manual | search | lookalike */
    source: text('source').notNull().default('manual'),
    /** Provider member id; internal, never returned. */
    providerId: text('provider_id'),
    /** Chat id at the provider; internal, never returned. */
    chatId: text('chat_id'),
    /**
     * Engine due-work queue (sim-clock ms): when the engine next looks at this lead; null when
     * it has nothing left to do. New rows default to 0, so a lead inserted by any path (add,
     * batch, lookalike, seed) is picked up as soon as its campaign runs.
     */
    nextActionAt: integer('next_action_at').default(0),
    /** How many messages of the agent's sequence were sent. */
    sequenceStep: integer('sequence_step').notNull().default(0),
    invitedAt: integer('invited_at'),
    connectedAt: integer('connected_at'),
    lastSequenceSentAt: integer('last_sequence_sent_at'),
    /** Consecutive transient provider failures of the next send; reset on success. */
    sendAttempts: integer('send_attempts').notNull().default(0),
    /** The inbound text the agent has yet to decide on; internal, never returned. */
    pendingReplyText: text('pending_reply_text'),
    /** A decided agent message waiting for a send slot: reply | cta. */
    agentSendKind: text('agent_send_kind'),
    agentSendText: text('agent_send_text'),
    agentTurns: integer('agent_turns').notNull().default(0),
    /** Sim-clock ms when the engine withdrew the lead's stale invitation; the lead has no work left after it. */
    invitationWithdrawnAt: integer('invitation_withdrawn_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('leads_due').on(t.campaignId, t.nextActionAt),
    index('leads_polite_close').on(t.politeClosePendingAt),
    uniqueIndex('leads_campaign_url').on(t.campaignId, t.networkUrl),
    index('leads_url').on(t.networkUrl),
    // Keyset indexes: one per (filter, sort) pair of the list_leads matrix.
    index('leads_created').on(t.campaignId, t.createdAt, t.seq),
    index('leads_tag_created').on(t.campaignId, t.tag, t.createdAt, t.seq),
    index('leads_tag_tagged').on(t.campaignId, t.tag, t.taggedAt, t.seq),
    index('leads_replied_created').on(t.campaignId, t.replied, t.createdAt, t.seq),
    index('leads_replied_replied').on(t.campaignId, t.replied, t.repliedAt, t.seq),
    index('leads_replied_inbound').on(t.campaignId, t.replied, t.lastInboundMessageAt, t.seq),
    index('leads_inbound').on(t.campaignId, t.lastInboundMessageAt, t.seq),
    index('leads_needs_reply_created').on(t.campaignId, t.needsReply, t.createdAt, t.seq),
    index('leads_excluded_created').on(t.campaignId, t.excluded, t.createdAt, t.seq),
    // The leads no invitation has reached yet, by id: the touch pacing's join (touchedNotInvited,
    // src/db/sql/intents.ts) meets most of an account's touched leads already invited, and here
    // it learns so from a small index alone instead of reading each lead's row. The statement
    // names it (INDEXED BY): the planner prefers leads_id_unique, a unique key.
    index('leads_fresh')
      .on(t.id)
      .where(sql`${t.invitedAt} IS NULL AND ${t.connectionRequestAccepted} = 0 AND ${t.excluded} = 0 AND ${t.replied} = 0 AND ${t.stage} = 'new'`),
    // Lead search (leads_search_name, leads_search_last_name, leads_search_company) indexes
    // expressions, so migration 0011 creates them (0031 made them partial: blank keys left out)
    // and src/core/leads/search.ts queries them.
  ],
);

/** Workspace-wide exclusion list of normalised profile URLs. */
export const exclusions = sqliteTable('exclusions', {
  networkUrl: text('network_url').primaryKey(),
  createdAt: integer('created_at').notNull(),
});
