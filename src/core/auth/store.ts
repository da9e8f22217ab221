import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';
import { apiKeys, loginTokens, oauthClients, oauthCodes, oauthGrants, oauthTokens, operatorSessions, serverSecrets } from '../../db/schema.js';
import { countRows } from '../../db/tx.js';
import type { Ctx } from '../context.js';

/**
 * SQL of the API keys (./keys.ts, shared with the demo seed) and of the dashboard's login
 * tokens and sessions (./sessions.ts). Secrets are stored as digests only; the verbs hash.
 */

type Conn = Pick<Ctx, 'db'>;

/**
 * A named server secret's value (./secrets.ts), prepared once per connection: every email's
 * unsubscribe link is signed with one, so it is read for every send.
 */
const secretByName = perDb((db) => db.$client.prepare<[string], string>('SELECT value FROM server_secrets WHERE name = ?').pluck());

export const serverSecretValue = (ctx: Conn, name: string): string | undefined => secretByName(ctx.db).get(name);

/** Stores a new secret; one stored already (by another process meanwhile) is kept. */
export function insertServerSecret(ctx: Conn, row: typeof serverSecrets.$inferInsert): void {
  ctx.db.insert(serverSecrets).values(row).onConflictDoNothing().run();
}

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Whether the database holds any API key, revoked ones included. */
export const anyApiKey = (ctx: Conn): boolean => ctx.db.select({ id: apiKeys.id }).from(apiKeys).limit(1).get() !== undefined;

/** Stores a key's row (its digest, never the key). */
export function insertApiKeyRow(ctx: Conn, row: typeof apiKeys.$inferInsert): void {
  ctx.db.insert(apiKeys).values(row).run();
}

/** One key's whole row (its digest, never the key). */
export const apiKeyRowById = (ctx: Conn, id: string): ApiKeyRow | undefined => ctx.db.select().from(apiKeys).where(eq(apiKeys.id, id)).get();

/** Every key, newest first. */
export const apiKeyRows = (ctx: Conn): ApiKeyRow[] => ctx.db.select().from(apiKeys).orderBy(desc(apiKeys.createdAt)).all();

/**
 * Marks the key revoked at `now` unless it already is; false when there is no such key.
 * Revoking twice keeps the first time.
 */
export function revokeApiKeyRow(ctx: Conn, id: string, now: number): boolean {
  const row = ctx.db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, id)).get();
  if (!row) return false;
  if (row.revokedAt === null) ctx.db.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, id)).run();
  return true;
}

export const countApiKeyRows = (ctx: Conn): number => countRows(ctx.db, apiKeys);

/** What authentication reads of a key. */
const KEY_COLUMNS = { id: apiKeys.id, env: apiKeys.env, revokedAt: apiKeys.revokedAt, lastUsedAt: apiKeys.lastUsedAt, scope: apiKeys.scope };
export type KeyAuthRow = { id: string; env: string; revokedAt: number | null; lastUsedAt: number | null; scope: string | null };

/** Every authenticated request looks its key up: prepared once per connection. */
const keyByDigest = perDb((db) =>
  db
    .select(KEY_COLUMNS)
    .from(apiKeys)
    .where(eq(apiKeys.digest, sql.placeholder('digest')))
    .prepare(),
);

/** The key stored with this digest, as authentication reads it. */
export const apiKeyByDigest = (db: Db, digest: string): KeyAuthRow | undefined => keyByDigest(db).get({ digest });

/**
 * Reads by key id, prepared once per connection: every call made with an OAuth token resolves
 * its key by id, and every audited write names its key's actor.
 */
const byId = perDb((db) => ({
  auth: db
    .select(KEY_COLUMNS)
    .from(apiKeys)
    .where(eq(apiKeys.id, sql.placeholder('id')))
    .prepare(),
  name: db
    .select({ name: apiKeys.name })
    .from(apiKeys)
    .where(eq(apiKeys.id, sql.placeholder('id')))
    .prepare(),
}));

/** The key with this id, as authentication reads it. */
export const apiKeyById = (ctx: Conn, id: string): KeyAuthRow | undefined => byId(ctx.db).auth.get({ id });

/** Notes that the key was used at `now`. */
export function markApiKeyUsed(ctx: Conn, id: string, now: number): void {
  ctx.db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, id)).run();
}

/** A key's name, or undefined for an unknown id. */
export const apiKeyNameOf = (ctx: Conn, id: string): string | undefined => byId(ctx.db).name.get({ id })?.name;

export type LoginTokenRow = typeof loginTokens.$inferSelect;
export type OperatorSessionRow = typeof operatorSessions.$inferSelect;

/** Stores a login token's row, sweeping the tokens expired before `now`. */
export function insertLoginToken(ctx: Conn, row: typeof loginTokens.$inferInsert, now: number): void {
  ctx.db.delete(loginTokens).where(lt(loginTokens.expiresAt, now)).run();
  ctx.db.insert(loginTokens).values(row).run();
}

/** The login token with this digest. */
export const loginTokenByDigest = (ctx: Conn, digest: string): LoginTokenRow | undefined =>
  ctx.db.select().from(loginTokens).where(eq(loginTokens.digest, digest)).get();

/** Marks a login token used at `now`. */
export function markLoginTokenUsed(ctx: Conn, digest: string, now: number): void {
  ctx.db.update(loginTokens).set({ usedAt: now }).where(eq(loginTokens.digest, digest)).run();
}

/** Stores a session's row, sweeping the sessions expired before `now`. */
export function insertOperatorSession(ctx: Conn, row: typeof operatorSessions.$inferInsert, now: number): void {
  ctx.db.delete(operatorSessions).where(lt(operatorSessions.expiresAt, now)).run();
  ctx.db.insert(operatorSessions).values(row).run();
}

/** Every dashboard request finds its session by the cookie's digest: prepared once per connection. */
const sessionByDigest = perDb((db) =>
  db.$client.prepare<[string], OperatorSessionRow>(
    `SELECT digest, id, created_at AS createdAt, expires_at AS expiresAt, last_seen_at AS lastSeenAt, revoked_at AS revokedAt, member_id AS memberId
     FROM operator_sessions WHERE digest = ?`,
  ),
);

/** The session with this digest. */
export const operatorSessionByDigest = (ctx: Conn, digest: string): OperatorSessionRow | undefined => sessionByDigest(ctx.db).get(digest);

/** Notes that the session was seen at `now`. */
export function markSessionSeen(ctx: Conn, digest: string, now: number): void {
  ctx.db.update(operatorSessions).set({ lastSeenAt: now }).where(eq(operatorSessions.digest, digest)).run();
}

/** Revokes the session with this digest at `now`, unless it already is revoked. */
export function revokeSessionByDigest(ctx: Conn, digest: string, now: number): void {
  ctx.db
    .update(operatorSessions)
    .set({ revokedAt: now })
    .where(and(eq(operatorSessions.digest, digest), isNull(operatorSessions.revokedAt)))
    .run();
}

/** Revokes every session still live at `now` and marks every unused, unexpired login token used; returns how many sessions were live. */
export function revokeLiveSessions(ctx: Conn, now: number): number {
  const live = ctx.db
    .update(operatorSessions)
    .set({ revokedAt: now })
    .where(and(isNull(operatorSessions.revokedAt), gt(operatorSessions.expiresAt, now)))
    .run().changes;
  ctx.db
    .update(loginTokens)
    .set({ usedAt: now })
    .where(and(isNull(loginTokens.usedAt), gt(loginTokens.expiresAt, now)))
    .run();
  return live;
}

/**
 * The OAuth reads every call pays for (the rest of the OAuth tables' queries follow below):
 * a bearer token and its grant by the token's digest, read on every call made with a token, and
 * a client by id, read when an audited write names the client. Prepared once per connection
 * (drizzle's own prepare: the token's row is a join it maps into its two tables).
 */
const oauthReads = perDb((db) => ({
  client: db
    .select()
    .from(oauthClients)
    .where(eq(oauthClients.id, sql.placeholder('id')))
    .prepare(),
  token: db
    .select({ token: oauthTokens, grant: oauthGrants })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(eq(oauthTokens.digest, sql.placeholder('digest')))
    .prepare(),
}));

export const oauthClientRowById = (ctx: Conn, id: string) => oauthReads(ctx.db).client.get({ id });

export const oauthTokenWithGrant = (ctx: Conn, digest: string) => oauthReads(ctx.db).token.get({ digest });

export type OAuthClientRow = typeof oauthClients.$inferSelect;

/** The client registered with this metadata fingerprint. */
export const oauthClientByFingerprint = (ctx: Conn, fingerprint: string): OAuthClientRow | undefined =>
  ctx.db.select().from(oauthClients).where(eq(oauthClients.fingerprint, fingerprint)).get();

/** Stores a registered client's row. */
export function insertOAuthClient(ctx: Conn, row: typeof oauthClients.$inferInsert): void {
  ctx.db.insert(oauthClients).values(row).run();
}

/** The code already issued through this consent form's nonce, if any. */
export const oauthCodeByFormNonce = (ctx: Conn, formNonce: string): { digest: string } | undefined =>
  ctx.db.select({ digest: oauthCodes.digest }).from(oauthCodes).where(eq(oauthCodes.formNonce, formNonce)).get();

/** Stores a consent (grant). */
export function insertOAuthGrant(ctx: Conn, row: typeof oauthGrants.$inferInsert): void {
  ctx.db.insert(oauthGrants).values(row).run();
}

/** Stores an authorization code's row (its digest, never the code). */
export function insertOAuthCode(ctx: Conn, row: typeof oauthCodes.$inferInsert): void {
  ctx.db.insert(oauthCodes).values(row).run();
}

/** What a PKCE check reads of the code with this digest: its challenge, state and client. */
export const oauthCodeChallengeRow = (
  ctx: Conn,
  digest: string,
): { challenge: string; usedAt: number | null; expiresAt: number; clientId: string } | undefined =>
  ctx.db
    .select({ challenge: oauthCodes.codeChallenge, usedAt: oauthCodes.usedAt, expiresAt: oauthCodes.expiresAt, clientId: oauthGrants.clientId })
    .from(oauthCodes)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthCodes.grantId))
    .where(eq(oauthCodes.digest, digest))
    .get();

/** The code with this digest and its grant. */
export const oauthCodeWithGrant = (ctx: Conn, digest: string) =>
  ctx.db
    .select({ code: oauthCodes, grant: oauthGrants })
    .from(oauthCodes)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthCodes.grantId))
    .where(eq(oauthCodes.digest, digest))
    .get();

/** Marks the code with this digest used at `now`. */
export function markOAuthCodeUsed(ctx: Conn, digest: string, now: number): void {
  ctx.db.update(oauthCodes).set({ usedAt: now }).where(eq(oauthCodes.digest, digest)).run();
}

/** Marks the token with this digest used at `now`. */
export function markOAuthTokenUsed(ctx: Conn, digest: string, now: number): void {
  ctx.db.update(oauthTokens).set({ usedAt: now }).where(eq(oauthTokens.digest, digest)).run();
}

/** Stores tokens' rows (their digests, never the tokens), in one statement. */
export function insertOAuthTokens(ctx: Conn, rows: (typeof oauthTokens.$inferInsert)[]): void {
  ctx.db.insert(oauthTokens).values(rows).run();
}

/** Revokes the grant at `now`, unless it already is revoked. */
export function revokeOAuthGrant(ctx: Conn, grantId: string, now: number): void {
  ctx.db
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
    .run();
}

/** Deletes the codes and tokens expired before `now`. */
export function deleteExpiredOAuth(ctx: Conn, now: number): void {
  ctx.db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, now)).run();
  ctx.db.delete(oauthTokens).where(lt(oauthTokens.expiresAt, now)).run();
}
