import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Drafts that a person approves before the engine sends them (campaigns with `approval:
 * required`). Written by src/core/drafts/store.ts alone, which SQLite enforces (src/db/drafts-writer.ts,
 * migration 0019); its status is a state machine of its own: pending → approved | rejected | skipped,
 * approved → rejected | pending | sent | skipped (DRAFT_TRANSITIONS in that store, the one place it is written).
 */
export const drafts = sqliteTable(
  'drafts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `drf_…` */
    id: text('id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    leadId: text('lead_id').notNull(),
    /** The step (`stp_…`) the draft is for; null for an agent's reply to an inbound message. */
    stepId: text('step_id'),
    /** What makes a draft unique for its lead: `step:<stepId>` or `reply:<n>`. */
    slot: text('slot').notNull(),
    variant: text('variant'),
    /** invite | message | inmail */
    kind: text('kind').notNull(),
    /** The sender the engine fixed for the lead, when known; the confirmation names it. */
    accountId: text('account_id'),
    subject: text('subject'),
    text: text('text').notNull(),
    /** The step's text rendered for the lead, kept beside an edited or rewritten one. */
    renderedSubject: text('rendered_subject'),
    renderedText: text('rendered_text').notNull(),
    /** pending | approved | rejected | sent | skipped */
    status: text('status').notNull(),
    /** Starts at 1 and grows by one with each change of `text` or `subject` (migration 0021 holds it). */
    revision: integer('revision').notNull().default(1),
    /** Why a `skipped` draft's step could no longer be sent; null otherwise. */
    skipReason: text('skip_reason'),
    /** Sim-clock ms when it was last approved (the auditor holds the engine to send it within the sender's next working window); null unless approved or sent. */
    approvedAt: integer('approved_at'),
    /** Why the optional model's rewrite was not used; null when it was, or when none ran. */
    drafterError: text('drafter_error'),
    /** Who last approved or rejected it (a member, a key or an OAuth client): `decidedBy`; null until a person decides. */
    decidedByType: text('decided_by_type'),
    decidedById: text('decided_by_id'),
    decidedByName: text('decided_by_name'),
    /** The engine intent sending it right now; while set, the draft cannot change. Internal. */
    sendingIntentId: text('sending_intent_id'),
    sentAt: integer('sent_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('drafts_lead_slot').on(t.leadId, t.slot),
    // list_drafts: oldest first, by campaign and/or status; and the pending count per campaign.
    index('drafts_campaign_status').on(t.campaignId, t.status, t.seq),
    index('drafts_status').on(t.status, t.seq),
    index('drafts_campaign').on(t.campaignId, t.seq),
  ],
);
