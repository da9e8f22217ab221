import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Idempotency records, scoped per API key. */
export const idempotencyRecords = sqliteTable(
  'idempotency_records',
  {
    apiKeyId: text('api_key_id').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    /** in_flight (nothing written yet) | begun (written, no result stored yet) | done */
    state: text('state').notNull(),
    status: integer('status'),
    body: text('body'),
    createdAt: integer('created_at').notNull(),
    /** While its request runs, renewed every 10 s by the process running it; null on rows from before it existed. */
    heartbeatAt: integer('heartbeat_at'),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.key] }), index('idempotency_expires').on(t.expiresAt)],
);
