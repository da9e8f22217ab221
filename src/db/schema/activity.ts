import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { bool } from './columns.js';

export const activity = sqliteTable(
  'activity',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    type: text('type').notNull(),
    at: integer('at').notNull(),
    leadId: text('lead_id').notNull(),
    /** Snapshots taken when the event happened, so events outlive lead edits and deletes. */
    leadName: text('lead_name'),
    companyName: text('company_name'),
    campaignId: text('campaign_id').notNull(),
    messagePreview: text('message_preview'),
    handOffReason: text('hand_off_reason'),
    /** Internal; never returned. */
    accountId: text('account_id'),
    /** Manual operator sends are recorded but never listed. */
    manual: bool('manual').notNull().default(false),
  },
  (t) => [index('activity_at').on(t.manual, t.at, t.seq), index('activity_type_at').on(t.manual, t.type, t.at, t.seq)],
);
