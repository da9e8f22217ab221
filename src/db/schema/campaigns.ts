import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { bool } from './columns.js';

export const campaigns = sqliteTable(
  'campaigns',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    assignedTemplateId: text('assigned_template_id'),
    /**
     * The importing mark: leads are still being found or added (a Lookalike job, a CSV import).
     * Written only by the campaign state machine, which reads it as a lease (isImporting).
     */
    importing: bool('importing').notNull().default(false),
    /** Who set the mark: an import's holder id, or `lookalike:<job id>`. */
    importingHolder: text('importing_holder'),
    /** The host and process of an import holding the mark, so a holder that died is seen at once. */
    importingHost: text('importing_host'),
    importingPid: integer('importing_pid'),
    /** Wall ms when the mark lapses unless renewed; null holds it until its holder ends it (a Lookalike job). */
    importingUntil: integer('importing_until'),
    totalLeads: integer('total_leads').notNull().default(0),
    connectionRequestsSent: integer('connection_requests_sent').notNull().default(0),
    connectionRequestsAccepted: integer('connection_requests_accepted').notNull().default(0),
    messagesSent: integer('messages_sent').notNull().default(0),
    repliesReceived: integer('replies_received').notNull().default(0),
    /** off | required: whether each note and message waits as a draft for a person's approval. */
    approval: text('approval').notNull().default('off'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** JSON array of account ids that send for the campaign; empty means the agent's account. */
    senderAccountIds: text('sender_account_ids').notNull().default('[]'),
    /** JSON array of mailbox ids that send the campaign's email steps (migration 0030). */
    mailboxIds: text('mailbox_ids').notNull().default('[]'),
  },
  (t) => [index('campaigns_status').on(t.status, t.seq), index('campaigns_updated').on(t.updatedAt, t.seq)],
);
