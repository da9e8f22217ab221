import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { bool } from './columns.js';

/** The single workspace this server hosts (row id 1). */
export const workspace = sqliteTable('workspace', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  plan: text('plan').notNull(),
  planId: text('plan_id').notNull(),
  planActive: bool('plan_active').notNull().default(true),
  whiteLabelIsolated: bool('white_label_isolated').notNull().default(false),
  blocked: bool('blocked').notNull().default(false),
  /** Key that signs list cursors, so a tampered cursor is detected rather than trusted. */
  cursorSecret: text('cursor_secret').notNull(),
  webhookSecret: text('webhook_secret'),
  /** Lifetime counters for insights; kept beside the per-campaign stats. */
  repliesReceived: integer('replies_received').notNull().default(0),
  connectionRequestsSent: integer('connection_requests_sent').notNull().default(0),
  connectionRequestsAccepted: integer('connection_requests_accepted').notNull().default(0),
  messagesSent: integer('messages_sent').notNull().default(0),
  createdAt: integer('created_at').notNull(),
});
