import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Tool calls an MCP client follows as tasks (the Tasks extension): one row per task, so a
 * handle outlives a restart and any connection of the same key can poll it.
 */
export const mcpTasks = sqliteTable(
  'mcp_tasks',
  {
    id: text('id').primaryKey(),
    /** The API key that started it; no other key sees it. */
    apiKeyId: text('api_key_id').notNull(),
    tool: text('tool').notNull(),
    /** working | completed | failed | cancelled */
    status: text('status').notNull(),
    statusMessage: text('status_message'),
    /** The tool result (JSON) once completed. */
    result: text('result'),
    /** The protocol error (JSON: code, message) once failed. */
    error: text('error'),
    /** The handler's body while work it started goes on (a Lookalike build), for the tool to follow. */
    following: text('following'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** Refreshed while a call runs in this server's process; a stale one was cut off by a restart. */
    heartbeatAt: integer('heartbeat_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('mcp_tasks_expires').on(t.expiresAt)],
);
