import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** The simulated network's scheduled acceptances and replies (SqliteSimInboxStore). Delivered rows stay, so an id is never scheduled twice. */
export const simInbox = sqliteTable(
  'sim_inbox',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    at: integer('at').notNull(),
    accountId: text('account_id').notNull(),
    networkUrl: text('network_url').notNull(),
    providerId: text('provider_id').notNull(),
    chatId: text('chat_id'),
    text: text('text'),
    deliveredAt: integer('delivered_at'),
  },
  (t) => [index('sim_inbox_due').on(t.deliveredAt, t.at, t.id)],
);

/** The simulator's durable counters, e.g. the messages an account sent a person (`sim-replies-after-<N>`). */
export const simTallies = sqliteTable('sim_tallies', {
  key: text('key').primaryKey(),
  count: integer('count').notNull().default(0),
});

/**
 * The simulated mail server's inbox (migration 0027): raw messages the simulator delivers to a
 * simulated mailbox, each readable from `visible_at` (sim-clock ms). Development only.
 */
export const simMail = sqliteTable(
  'sim_mail',
  {
    uid: integer('uid').primaryKey({ autoIncrement: true }),
    mailboxId: text('mailbox_id').notNull(),
    visibleAt: integer('visible_at').notNull(),
    raw: text('raw').notNull(),
  },
  (t) => [index('sim_mail_mailbox').on(t.mailboxId, t.uid)],
);
