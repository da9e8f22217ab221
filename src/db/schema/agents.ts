import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Agents ("templates"): who sends, the connection note and the message sequence. */
export const agents = sqliteTable('agents', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  accountId: text('account_id'),
  connectionNote: text('connection_note'),
  /** JSON array of { text, delayHours }. For an agent written with steps: the main path, derived from them. */
  messages: text('messages').notNull().default('[]'),
  createdAt: integer('created_at').notNull(),
  /**
   * JSON array of steps with their ids (src/core/agents/steps.ts), for an agent written with
   * steps; null for one written with connectionNote and messages, which reads as steps derived
   * from those.
   */
  steps: text('steps'),
});
