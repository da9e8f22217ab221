import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Engine send intents, written before the provider is called and settled after, so a restart
 * can tell a send in flight from one never made and never sends twice. Rows are kept as the
 * internal record of what was sent; never returned.
 */
export const engineIntents = sqliteTable(
  'engine_intents',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    leadId: text('lead_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    accountId: text('account_id').notNull(),
    /** connection_request | message | agent_reply | cta | polite_close | withdrawal | visit | like | inmail | manual_message */
    kind: text('kind').notNull(),
    /** The sequence step for `message`: its place among the agent's message steps. */
    step: integer('step'),
    /** The agent's step (`stp_…`) a sequence send carries out; null for conversation sends. */
    stepId: text('step_id'),
    text: text('text'),
    /** pending | sent | failed | assumed_sent */
    state: text('state').notNull(),
    holder: text('holder').notNull(),
    createdAt: integer('created_at').notNull(),
    settledAt: integer('settled_at'),
    chatId: text('chat_id'),
    messageId: text('message_id'),
    errorCode: text('error_code'),
  },
  // The intents in flight, by lead (partial: it stays a page or two however long the history),
  // for recovery, the completion rule and the one-send-at-a-time check of beginSend. Per-account
  // history: the spacing after a restart and the safety audit read it in order. Per account and
  // kind: today's sends of the kinds counted from here (a step kind's own limit, the touches ahead
  // of invitations), read for every account that may take new leads each tick; by account alone
  // that read every call of the account's day. It holds the state and the lead too, so the week's
  // touches of an account are read from the index alone, without a row each (the touch pacing
  // reads them once per account and tick). (The lock-step check reads account_call_minutes.)
  (t) => [
    index('engine_intents_pending').on(t.leadId).where(sql`${t.state} = 'pending'`),
    index('engine_intents_account').on(t.accountId, t.createdAt),
    index('engine_intents_account_kind').on(t.accountId, t.kind, t.createdAt, t.state, t.leadId),
  ],
);

/** One row (id 1): the engine lease, so only one process drives a database, and the sim-clock high-water mark. */
export const engineState = sqliteTable('engine_state', {
  id: integer('id').primaryKey(),
  holder: text('holder'),
  /** Where the holder runs: a lease whose holder is provably gone (same host, no such process) is taken at once. */
  holderHost: text('holder_host'),
  holderPid: integer('holder_pid'),
  /** Wall-clock ms. */
  leaseExpiresAt: integer('lease_expires_at').notNull().default(0),
  /** The latest simulated time any engine reached, so the sim clock never runs backwards across restarts. */
  simNow: integer('sim_now').notNull().default(0),
});

/** The variant drawn for a lead at a step: drawn once, when the step first runs, and kept. */
/**
 * What the engine learned looking up a lead known only by its profile URL (migration 0022): when
 * the lookup filled it in, or how many lookups failed in a row and why. One row per lead looked up.
 */
export const leadEnrichment = sqliteTable('lead_enrichment', {
  leadId: text('lead_id').primaryKey(),
  /** Failed lookups in a row; the third ends the lead's sequence (`enrichment_failed`). */
  failures: integer('failures').notNull().default(0),
  /** The provider's error code of the last failed lookup. */
  lastError: text('last_error'),
  /** Sim-clock ms when a lookup filled the lead in; null until one did. */
  enrichedAt: integer('enriched_at'),
  updatedAt: integer('updated_at').notNull(),
});
