import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * A lead's state on the email channel (migration 0030), one row per lead that reached an email
 * step: the mailbox pinned at its first email step (every later email step goes from it, as a
 * lead's sender is kept), and when the lead first replied to one of our emails and when one of
 * them first bounced, which the `if` conditions `email_replied` and `email_bounced` read.
 * Internal: never returned.
 */
export const leadEmail = sqliteTable(
  'lead_email',
  {
    leadId: text('lead_id').primaryKey(),
    mailboxId: text('mailbox_id').notNull(),
    /** Sim-clock ms the mailbox was pinned. */
    pinnedAt: integer('pinned_at').notNull(),
    repliedAt: integer('replied_at'),
    bouncedAt: integer('bounced_at'),
  },
  (t) => [index('lead_email_mailbox').on(t.mailboxId)],
);
