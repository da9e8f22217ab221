import { createHash } from 'node:crypto';
import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { newId, randomBase62 } from '../ids.js';
import { authenticateKeyId, digestKey, type KeyIdentity } from './keys.js';
import {
  deleteExpiredOAuth,
  insertOAuthClient,
  insertOAuthCode,
  insertOAuthGrant,
  insertOAuthTokens,
  markOAuthCodeUsed,
  markOAuthTokenUsed,
  oauthClientByFingerprint,
  oauthClientRowById,
  oauthCodeByFormNonce,
  oauthCodeChallengeRow,
  oauthCodeWithGrant,
  oauthTokenWithGrant,
  revokeOAuthGrant,
} from './store.js';
import { noteAuditTarget } from '../audit/current.js';
import { serverSecret } from './secrets.js';
import { expiryRefusal, narrowScope, parseStoredScope, reachOf, type KeyScope } from './scope.js';
import { noteChange } from '../live/feed.js';

/**
 * OAuth 2.1 authorization-server state for chat-assistant MCP clients: registered clients,
 * consents (grants), codes and tokens. Codes and tokens are random and stored only as
 * SHA-256 digests; every token resolves to the API key its consent was given with.
 */

export const ACCESS_TOKEN_TTL_MS = 60 * 60_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60_000;
export const CODE_TTL_MS = 10 * 60_000;

/** The server secret behind OAuth client secrets and consent-form signatures. */
export const oauthSecret = (ctx: Ctx): string => serverSecret(ctx, 'oauth');

const PREFIX = { access: 'oat_', refresh: 'ort_', code: 'oac_' } as const;

/** The OAuth error codes these verbs raise; the transport turns them into RFC 6749 responses. */
export type OAuthErrorCode = 'invalid_grant' | 'invalid_request' | 'invalid_client_metadata' | 'invalid_redirect_uri';

export class OAuthFailure extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OAuthFailure';
  }
}

// --- clients --------------------------------------------------------------------------

/** What a client registers (RFC 7591), after the transport parsed it. */
export interface ClientMetadata {
  redirect_uris: string[];
  token_endpoint_auth_method?: string | undefined;
  grant_types?: string[] | undefined;
  response_types?: string[] | undefined;
  client_name?: string | undefined;
  [field: string]: unknown;
}

export interface RegisteredClient {
  id: string;
  /** Seconds since the epoch, as RFC 7591 reports it. */
  issuedAt: number;
  metadata: ClientMetadata & { token_endpoint_auth_method: 'none' | 'client_secret_post'; grant_types: string[]; response_types: string[] };
}

const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:', 'ws:', 'wss:', 'ftp:', 'mailto:', 'tel:']);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Which redirect URIs a client may register: https anywhere, http only on loopback (any
 * port, RFC 8252 §7.3), and private-use schemes of native apps such as `cursor://`
 * (RFC 8252 §7.1). Fragments are never allowed (RFC 6749 §3.1.2).
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (url.hash || uri.includes('#')) return `${uri} must not contain a fragment`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname) ? null : `${uri}: http is allowed only on loopback (127.0.0.1, localhost, [::1]); use https`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `${uri}: the ${url.protocol} scheme cannot receive a redirect`;
  return null;
}

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

/** Stable JSON (sorted keys) so equal metadata always gives the same fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Registers a client, or returns the one already registered with the same metadata, so a
 * client that registers on every connect does not grow the table. Only `none` (public, PKCE
 * alone) and `client_secret_post` are supported; other auth methods are answered with
 * `client_secret_post`, which RFC 7591 §3.2.1 lets the server choose.
 */
export function registerClient(ctx: Ctx, input: ClientMetadata): RegisteredClient {
  if (!Array.isArray(input.redirect_uris) || input.redirect_uris.length === 0) {
    throw new OAuthFailure('invalid_redirect_uri', 'Register at least one redirect URI.');
  }
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthFailure('invalid_redirect_uri', problem);
  }
  const grantTypes = input.grant_types ?? ['authorization_code', 'refresh_token'];
  const unsupported = grantTypes.filter((g) => !GRANT_TYPES.has(g));
  if (unsupported.length) {
    throw new OAuthFailure('invalid_client_metadata', `Unsupported grant_types: ${unsupported.join(', ')}. Use authorization_code and refresh_token.`);
  }
  const responseTypes = input.response_types ?? ['code'];
  if (responseTypes.some((r) => r !== 'code')) throw new OAuthFailure('invalid_client_metadata', 'Only the "code" response type is supported.');
  const metadata: RegisteredClient['metadata'] = {
    ...input,
    token_endpoint_auth_method: input.token_endpoint_auth_method === 'none' ? 'none' : 'client_secret_post',
    grant_types: grantTypes,
    response_types: responseTypes,
  };
  const fingerprint = createHash('sha256').update(canonical(metadata)).digest('hex');
  return transaction(ctx.db, () => {
    const existing = oauthClientByFingerprint(ctx, fingerprint);
    if (existing) return toClient(existing);
    const row = { id: newId('cli'), fingerprint, metadata: JSON.stringify(metadata), createdAt: ctx.clock.now() };
    insertOAuthClient(ctx, row);
    return toClient(row);
  });
}

export function getClient(ctx: Ctx, id: string): RegisteredClient | null {
  const row = oauthClientRowById(ctx, id);
  return row ? toClient(row) : null;
}

function toClient(row: { id: string; metadata: string; createdAt: number }): RegisteredClient {
  return { id: row.id, issuedAt: Math.floor(row.createdAt / 1000), metadata: JSON.parse(row.metadata) as RegisteredClient['metadata'] };
}

// --- codes and tokens -----------------------------------------------------------------

export interface CodeRequest {
  clientId: string;
  apiKeyId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resource: string | null;
  /** The consent form's nonce; a form can issue one code only. */
  formNonce: string;
  /** The scope chosen on the consent page (checked), within the key's own; null: the key's. */
  keyScope?: KeyScope | null | undefined;
}

/** Records a consent and returns its authorization code (shown once, stored as a digest). */
export function issueAuthorizationCode(ctx: Ctx, req: CodeRequest): string {
  const code = PREFIX.code + randomBase62(43);
  const now = ctx.clock.now();
  transaction(ctx.db, () => {
    purgeExpired(ctx, now);
    const used = oauthCodeByFormNonce(ctx, req.formNonce);
    if (used) throw new OAuthFailure('invalid_request', 'This consent form was already used. Start the connection again from your client.');
    const grantId = newId('grant');
    noteAuditTarget(grantId);
    insertOAuthGrant(ctx, {
      id: grantId,
      clientId: req.clientId,
      apiKeyId: req.apiKeyId,
      scopes: req.scopes.join(' '),
      resource: req.resource,
      keyScope: req.keyScope ? JSON.stringify(req.keyScope) : null,
      createdAt: now,
    });
    insertOAuthCode(ctx, {
      digest: digestKey(code),
      grantId,
      formNonce: req.formNonce,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      createdAt: now,
      expiresAt: now + CODE_TTL_MS,
    });
  });
  return code;
}

/** The PKCE challenge of a live code, for a caller that checks PKCE itself. */
export function authorizationCodeChallenge(ctx: Ctx, clientId: string, code: string): string {
  const row = oauthCodeChallengeRow(ctx, digestKey(code));
  if (!row || row.clientId !== clientId || row.usedAt !== null || row.expiresAt <= ctx.clock.now()) {
    throw new OAuthFailure('invalid_grant', 'Unknown, used or expired authorization code. Start the sign-in again.');
  }
  return row.challenge;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds until the access token expires. */
  expiresIn: number;
  scopes: string[];
}

const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/**
 * Exchanges a code for tokens. The code is single use: it is spent even when the PKCE check
 * fails, and presenting it again revokes every token it produced (OAuth 2.1 §4.1.3).
 */
export function exchangeAuthorizationCode(
  ctx: Ctx,
  req: { clientId: string; code: string; codeVerifier: string; redirectUri?: string | undefined },
): IssuedTokens {
  const now = ctx.clock.now();
  const outcome = transaction(ctx.db, (): IssuedTokens | OAuthFailure => {
    const row = oauthCodeWithGrant(ctx, digestKey(req.code));
    if (!row || row.grant.clientId !== req.clientId) return new OAuthFailure('invalid_grant', 'Unknown authorization code. Start the sign-in again.');
    if (row.code.usedAt !== null) {
      revokeGrant(ctx, row.grant.id, now);
      return new OAuthFailure('invalid_grant', 'This authorization code was already used; the tokens issued with it are now revoked. Start the sign-in again.');
    }
    markOAuthCodeUsed(ctx, row.code.digest, now);
    if (row.code.expiresAt <= now) return new OAuthFailure('invalid_grant', 'The authorization code expired (codes last 10 minutes). Start the sign-in again.');
    if (!PKCE_VERIFIER.test(req.codeVerifier) || s256(req.codeVerifier) !== row.code.codeChallenge) {
      return new OAuthFailure('invalid_grant', 'code_verifier does not match the code_challenge sent to /authorize (PKCE S256).');
    }
    if (req.redirectUri !== undefined && req.redirectUri !== row.code.redirectUri) {
      return new OAuthFailure('invalid_grant', 'redirect_uri differs from the one sent to /authorize.');
    }
    if (row.grant.revokedAt !== null) return new OAuthFailure('invalid_grant', 'This sign-in was revoked. Start it again.');
    const key = liveKey(ctx, row.grant.apiKeyId);
    if (key instanceof OAuthFailure) return key;
    return issueTokens(ctx, row.grant.id, row.grant.scopes, now);
  });
  // Failures are returned, not thrown, so the code stays spent and a replay's revocation sticks.
  if (outcome instanceof OAuthFailure) throw outcome;
  return outcome;
}

/**
 * Rotates a refresh token: the presented one is spent and a new pair issued. A spent refresh
 * token presented again means it leaked, so the whole grant is revoked.
 */
export function exchangeRefreshToken(ctx: Ctx, req: { clientId: string; refreshToken: string }): IssuedTokens {
  const now = ctx.clock.now();
  const outcome = transaction(ctx.db, (): IssuedTokens | OAuthFailure => {
    const row = findToken(ctx, req.refreshToken);
    if (row?.token.kind !== 'refresh' || row.grant.clientId !== req.clientId) {
      return new OAuthFailure('invalid_grant', 'Unknown refresh token. Sign in again.');
    }
    if (row.token.usedAt !== null) {
      revokeGrant(ctx, row.grant.id, now);
      return new OAuthFailure('invalid_grant', 'This refresh token was already used, so the sign-in is revoked. Sign in again.');
    }
    if (row.grant.revokedAt !== null) return new OAuthFailure('invalid_grant', 'This sign-in was revoked. Sign in again.');
    if (row.token.expiresAt <= now) return new OAuthFailure('invalid_grant', 'The refresh token expired. Sign in again.');
    const key = liveKey(ctx, row.grant.apiKeyId);
    if (key instanceof OAuthFailure) return key;
    markOAuthTokenUsed(ctx, row.token.digest, now);
    return issueTokens(ctx, row.grant.id, row.grant.scopes, now);
  });
  if (outcome instanceof OAuthFailure) throw outcome;
  return outcome;
}

export interface AccessTokenInfo extends KeyIdentity {
  clientId: string;
  scopes: string[];
  /** Epoch milliseconds. */
  expiresAt: number;
  resource: string | null;
}

/**
 * Resolves a bearer token to the API key it stands for. Checked on every request, like a
 * key: an expired token, a revoked sign-in and a revoked key all give 401 at once.
 */
export function authenticateAccessToken(ctx: Ctx, token: string): AccessTokenInfo {
  const row = findToken(ctx, token);
  if (row?.token.kind !== 'access') {
    throw new ApiError('unauthorized', 'Invalid access token. Sign in again through your client (OAuth), or send an API key in X-API-Key.');
  }
  if (row.token.expiresAt <= ctx.clock.now()) {
    throw new ApiError('unauthorized', 'The access token expired. Your client refreshes it with its refresh token, or signs in again.');
  }
  if (row.grant.revokedAt !== null) throw new ApiError('unauthorized', 'This sign-in was revoked. Connect again through your client.');
  const key = authenticateKeyId(ctx, row.grant.apiKeyId);
  // The grant reaches what both the key and the consent allow.
  const reach = row.grant.keyScope === null ? key.reach : reachOf(narrowScope(key.reach?.scope ?? null, parseStoredScope(row.grant.keyScope)));
  const expired = expiryRefusal(ctx, reach);
  if (expired) throw expired;
  return {
    keyId: key.keyId,
    reach,
    clientId: row.grant.clientId,
    scopes: row.grant.scopes ? row.grant.scopes.split(' ') : [],
    expiresAt: row.token.expiresAt,
    resource: row.grant.resource,
  };
}

/**
 * RFC 7009 revocation: either token of a sign-in ends the whole sign-in. Unknown tokens and
 * tokens of other clients are ignored, as the RFC asks.
 */
export function revokeToken(ctx: Ctx, clientId: string, token: string): void {
  transaction(ctx.db, () => {
    const row = findToken(ctx, token);
    if (row && row.grant.clientId === clientId) revokeGrant(ctx, row.grant.id, ctx.clock.now());
  });
}

function findToken(ctx: Ctx, token: string) {
  return oauthTokenWithGrant(ctx, digestKey(token));
}

function liveKey(ctx: Ctx, apiKeyId: string): KeyIdentity | OAuthFailure {
  try {
    return authenticateKeyId(ctx, apiKeyId);
  } catch (err) {
    if (err instanceof ApiError)
      return new OAuthFailure('invalid_grant', 'The API key given on the consent page was revoked. Sign in again with a current key.');
    throw err;
  }
}

function issueTokens(ctx: Ctx, grantId: string, scopes: string, now: number): IssuedTokens {
  const accessToken = PREFIX.access + randomBase62(43);
  const refreshToken = PREFIX.refresh + randomBase62(43);
  purgeExpired(ctx, now);
  insertOAuthTokens(ctx, [
    { digest: digestKey(accessToken), grantId, kind: 'access', createdAt: now, expiresAt: now + ACCESS_TOKEN_TTL_MS },
    { digest: digestKey(refreshToken), grantId, kind: 'refresh', createdAt: now, expiresAt: now + REFRESH_TOKEN_TTL_MS },
  ]);
  return { accessToken, refreshToken, expiresIn: ACCESS_TOKEN_TTL_MS / 1000, scopes: scopes ? scopes.split(' ') : [] };
}

function revokeGrant(ctx: Ctx, grantId: string, now: number): void {
  revokeOAuthGrant(ctx, grantId, now);
  // Streams held open with the grant's tokens (MCP resource updates) end now.
  noteChange(ctx, { resource: 'access' });
}

/** Expired codes and tokens are useless; dropping them when new ones are made keeps the tables small. */
function purgeExpired(ctx: Ctx, now: number): void {
  deleteExpiredOAuth(ctx, now);
}
