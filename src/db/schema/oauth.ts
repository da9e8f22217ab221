import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * OAuth clients from dynamic registration (RFC 7591). Registering the same metadata again
 * returns the same client (unique `fingerprint`), so registration is cheap and idempotent.
 */
export const oauthClients = sqliteTable('oauth_clients', {
  id: text('id').primaryKey(),
  /** SHA-256 of the normalised registration metadata. */
  fingerprint: text('fingerprint').notNull().unique(),
  /** The registered metadata (redirect URIs, name, grant types, auth method) as JSON. */
  metadata: text('metadata').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * One consent: a client acting with one API key. Its code and tokens hang off it, so a
 * replayed code or a reused refresh token revokes everything the consent produced.
 */
export const oauthGrants = sqliteTable(
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull(),
    apiKeyId: text('api_key_id').notNull(),
    /** Space-separated scopes as requested; informational, the key decides what is reachable. */
    scopes: text('scopes').notNull().default(''),
    /** The RFC 8707 resource the client asked for, if any. */
    resource: text('resource'),
    /** The scope chosen on the consent page, as JSON (core/auth/scope.ts), within the key's own. Null: the key's. */
    keyScope: text('key_scope'),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('oauth_grants_key').on(t.apiKeyId)],
);

/** Authorization codes, stored as SHA-256 digests; single use, short-lived. */
export const oauthCodes = sqliteTable(
  'oauth_codes',
  {
    digest: text('digest').primaryKey(),
    grantId: text('grant_id').notNull(),
    /** The consent form's one-time nonce: unique, so one form issues at most one code. */
    formNonce: text('form_nonce').notNull().unique(),
    redirectUri: text('redirect_uri').notNull(),
    /** The S256 PKCE challenge the client sent to /authorize. */
    codeChallenge: text('code_challenge').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [index('oauth_codes_expires').on(t.expiresAt)],
);

/** Access and refresh tokens, stored as SHA-256 digests. */
export const oauthTokens = sqliteTable(
  'oauth_tokens',
  {
    digest: text('digest').primaryKey(),
    grantId: text('grant_id').notNull(),
    /** access | refresh */
    kind: text('kind').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    /** Refresh tokens rotate: set when exchanged; a second exchange revokes the grant. */
    usedAt: integer('used_at'),
  },
  (t) => [index('oauth_tokens_grant').on(t.grantId), index('oauth_tokens_expires').on(t.expiresAt)],
);
