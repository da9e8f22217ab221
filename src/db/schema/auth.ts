import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** test | live */
    env: text('env').notNull(),
    /** The first characters of the key, safe to show (e.g. `sk_test_AbC1`). */
    prefix: text('prefix').notNull(),
    /** Hex SHA-256 of the full key; the key itself is never stored. */
    digest: text('digest').notNull(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
    /** The key's scope as JSON (core/auth/scope.ts): toolsets, readOnly, campaignIds, expiresAt. Null: everything. */
    scope: text('scope'),
  },
  (t) => [uniqueIndex('api_keys_digest').on(t.digest)],
);

/** One-time dashboard login links. Only the token's SHA-256 is stored; a link works once. */
export const loginTokens = sqliteTable(
  'login_tokens',
  {
    digest: text('digest').primaryKey(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    /** The member (`usr_…`) the link signs in. */
    memberId: text('member_id'),
  },
  (t) => [index('login_tokens_expires').on(t.expiresAt)],
);

/** Dashboard sessions, by the SHA-256 of the cookie value; the cookie itself is never stored. */
export const operatorSessions = sqliteTable(
  'operator_sessions',
  {
    digest: text('digest').primaryKey(),
    /** `ses_…`: names the session in logs without revealing its cookie. */
    id: text('id').notNull().unique(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    revokedAt: integer('revoked_at'),
    /** The member (`usr_…`) signed in; a session whose member is disabled opens nothing. */
    memberId: text('member_id'),
  },
  (t) => [index('operator_sessions_expires').on(t.expiresAt), index('operator_sessions_member').on(t.memberId)],
);

/** Server-held secrets, created on first use (e.g. the key that signs OAuth consent forms). */
export const serverSecrets = sqliteTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: integer('created_at').notNull(),
});
