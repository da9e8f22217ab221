/**
 * The CRM sync's tables (issue 39): the outbox of pushes, the lead-to-contact link, the sync log
 * and the pull's state. Written only by src/core/crm/store.ts. Times are wall-clock ms, except
 * the `at` of what a push reports (inside its payload), which is the engine's time.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The outbox: one row per thing to tell the CRM, written in the transaction of the event it
 * reports. A push is carried at least once and its id travels with it, so the CRM holds it once.
 */
export const crmPushes = sqliteTable(
  'crm_pushes',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `crp_…`: the push id the adapter makes a repeated create a no-op with. */
    id: text('id').notNull().unique(),
    leadId: text('lead_id').notNull(),
    /** contact | note | deal */
    kind: text('kind').notNull(),
    /** JSON: the contact's fields, the note's body and time, or the deal's name and place. */
    payload: text('payload').notNull(),
    /** pending | succeeded | failed */
    state: text('state').notNull().default('pending'),
    /** Attempts started; the step of the retry schedule the next one follows. */
    attempts: integer('attempts').notNull().default(0),
    /** Due time of the next attempt; null once the push is final. */
    nextAttemptAt: integer('next_attempt_at'),
    /** Set while an attempt is in flight; a killed server leaves it, and the push is due again once it passes. */
    leasedUntil: integer('leased_until'),
    lastError: text('last_error'),
    /** The CRM's id of what the push made or updated (contact, note, deal), once it succeeded. */
    crmId: text('crm_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('crm_pushes_due').on(t.state, t.nextAttemptAt),
    index('crm_pushes_lead').on(t.leadId, t.state, t.seq),
    index('crm_pushes_lead_kind').on(t.leadId, t.kind),
  ],
);

/** Which CRM contact a lead is: set by the contact push that found or made it. */
export const crmContacts = sqliteTable(
  'crm_contacts',
  {
    leadId: text('lead_id').primaryKey(),
    /** The adapter's name (hubspot). */
    crm: text('crm').notNull(),
    contactId: text('contact_id').notNull(),
    linkedAt: integer('linked_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('crm_contacts_contact').on(t.crm, t.contactId)],
);

/** What the sync did, push and pull, with its outcome: the CRM page and `outreach crm log`. */
export const crmSyncLog = sqliteTable(
  'crm_sync_log',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    /** push | pull */
    direction: text('direction').notNull(),
    /** contact | note | deal (push); poll | contact (pull) */
    kind: text('kind').notNull(),
    leadId: text('lead_id'),
    pushId: text('push_id'),
    contactId: text('contact_id'),
    /** succeeded | retrying | failed | ended | unmatched */
    outcome: text('outcome').notNull(),
    detail: text('detail').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [
    index('crm_sync_log_direction').on(t.direction, t.seq),
    index('crm_sync_log_outcome').on(t.outcome, t.seq),
    index('crm_sync_log_lead').on(t.leadId, t.seq),
  ],
);

/** Where the pull stands, one row per CRM: the cursor to read changes after, and when it last read. */
export const crmPullState = sqliteTable('crm_pull_state', {
  crm: text('crm').primaryKey(),
  cursor: text('cursor'),
  lastPolledAt: integer('last_polled_at'),
  /** The polling interval in force, as the config set it (ms). */
  intervalMs: integer('interval_ms').notNull(),
  lastError: text('last_error'),
  updatedAt: integer('updated_at').notNull(),
});
