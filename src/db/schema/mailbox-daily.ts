import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * A mailbox's emails of one UTC day (migration 0033), as `account_daily` counts an account's
 * sends: the emails that reached the server or are on their way (state sending or sent; a send
 * that fails is taken back off). The mailbox's daily limit and the choice of a lead's mailbox
 * read it before every email. The mailbox store writes it with the send it counts, in the same
 * transaction; a missing row means none.
 */
export const mailboxDaily = sqliteTable(
  'mailbox_daily',
  {
    mailboxId: text('mailbox_id').notNull(),
    /** YYYY-MM-DD, UTC, of the engine's clock. */
    day: text('day').notNull(),
    sent: integer('sent').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.mailboxId, t.day] })],
);
