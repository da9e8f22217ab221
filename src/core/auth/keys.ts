import { hash } from 'node:crypto';
import type { Ctx, Environment } from '../context.js';
import { ApiError } from '../errors.js';
import { newId, randomBase62 } from '../ids.js';
import { iso } from '../clock.js';
import { cachedBy } from '../../db/cache.js';
import { transaction } from '../../db/tx.js';
import { noteChange } from '../live/feed.js';
import { noteAuditTarget } from '../audit/current.js';
import { checkScope, expiryRefusal, parseStoredScope, reachOf, type KeyScope, type Reach } from './scope.js';
import { findCampaignRow } from '../campaigns/campaign.js';
import {
  apiKeyByDigest,
  apiKeyById,
  apiKeyNameOf,
  apiKeyRows,
  apiKeyRowById,
  type ApiKeyRow,
  countApiKeyRows,
  insertApiKeyRow,
  markApiKeyUsed,
  revokeApiKeyRow,
  type KeyAuthRow,
} from './store.js';

/**
 * A scope as a person gave it (CLI flags, the Keys page), checked: known toolsets, campaigns
 * that exist, an expiry in the future. Null for no scope (the key reaches everything).
 */
export const checkKeyScope = (ctx: Ctx, input: unknown, field = 'scope'): KeyScope | null =>
  input === undefined || input === null ? null : checkScope(ctx, input, field, (id) => findCampaignRow(ctx, id) !== undefined);

export type KeyEnv = 'test' | 'live';

export const KEY_PREFIX: Record<KeyEnv, string> = { test: 'sk_test_', live: 'sk_live_' };
export const keyEnvFor = (env: Environment): KeyEnv => (env === 'production' ? 'live' : 'test');

/**
 * A key's SHA-256, hex: what is stored and looked up, never the key. Every request computes it;
 * the one-shot `crypto.hash` (Node 20.12+) costs a quarter of a `createHash` object.
 */
export const digestKey = (key: string): string => hash('sha256', key, 'hex');

/** The part of a key that is safe to show again: its prefix and four characters. */
export const displayPrefix = (key: string): string => key.slice(0, key.indexOf('_', 3) + 5);

/**
 * Stores a key given in full (from a workspace file, or freshly minted), with its scope, which
 * the caller has checked (scope.ts, checkScope); null is today's key, reaching everything.
 */
export function insertApiKey(ctx: Ctx, key: string, name: string, scope: KeyScope | null = null): { id: string } {
  const env: KeyEnv = key.startsWith(KEY_PREFIX.live) ? 'live' : 'test';
  const id = newId('key');
  noteAuditTarget(id);
  insertApiKeyRow(ctx, {
    id,
    name,
    env,
    prefix: displayPrefix(key),
    digest: digestKey(key),
    createdAt: ctx.clock.now(),
    scope: scope ? JSON.stringify(scope) : null,
  });
  return { id };
}

/**
 * Mints a key with 190 bits of entropy after the prefix; the caller shows it once. One
 * transaction, so a call's audit event (core/audit) commits with the key or not at all.
 */
export function createApiKey(ctx: Ctx, env: KeyEnv, name: string, scope: KeyScope | null = null): { id: string; key: string } {
  const key = KEY_PREFIX[env] + randomBase62(32);
  return transaction(ctx.db, () => ({ ...insertApiKey(ctx, key, name, scope), key }));
}

/**
 * The dashboard's and the tools' key creation: the scope checked (known toolsets, campaigns that
 * exist, a future expiry), the key stored and read back, all in one transaction with the call's
 * audit event. A refused scope writes nothing and leaves no event.
 */
export function createApiKeyChecked(ctx: Ctx, env: KeyEnv, name: string, scopeInput: unknown): { key: ApiKeyView; secret: string } {
  return transaction(ctx.db, () => {
    const scope = checkKeyScope(ctx, scopeInput);
    const { id, key } = createApiKey(ctx, env, name, scope);
    const view = apiKeyView(apiKeyRowById(ctx, id));
    if (!view) throw new Error(`The key ${id} was stored but cannot be read back`);
    return { key: view, secret: key };
  });
}

export interface ApiKeyView {
  id: string;
  name: string;
  environment: KeyEnv;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Null: the key reaches everything. */
  scope: KeyScope | null;
}

function apiKeyView(k: ApiKeyRow): ApiKeyView;
function apiKeyView(k: ApiKeyRow | undefined): ApiKeyView | undefined;
function apiKeyView(k: ApiKeyRow | undefined): ApiKeyView | undefined {
  if (!k) return undefined;
  return {
    id: k.id,
    name: k.name,
    environment: k.env as KeyEnv,
    prefix: k.prefix,
    createdAt: iso(k.createdAt),
    lastUsedAt: k.lastUsedAt === null ? null : iso(k.lastUsedAt),
    revokedAt: k.revokedAt === null ? null : iso(k.revokedAt),
    scope: parseStoredScope(k.scope),
  };
}

/** A key's state now: `revoked` (at once, for good), `expired` (its scope's expiry has passed: 401 key_expired), or `active`. */
export function apiKeyState(ctx: Ctx, key: ApiKeyView): 'active' | 'revoked' | 'expired' {
  if (key.revokedAt !== null) return 'revoked';
  const expiresAt = key.scope?.expiresAt;
  return expiresAt !== undefined && ctx.clock.now() >= Date.parse(expiresAt) ? 'expired' : 'active';
}

export function listApiKeys(ctx: Ctx): ApiKeyView[] {
  return apiKeyRows(ctx).map((k) => apiKeyView(k));
}

/**
 * Returns false when no such key exists; revoking twice is harmless. One transaction, so a
 * call's audit event commits with the revocation or not at all.
 */
export function revokeApiKey(ctx: Ctx, id: string): boolean {
  return transaction(ctx.db, () => {
    const revoked = revokeApiKeyRow(ctx, id, ctx.clock.now());
    // Streams held open with this key (MCP resource updates) end now, not at the next change.
    if (revoked) noteChange(ctx, { resource: 'access' });
    return revoked;
  });
}

export const countApiKeys = (ctx: Ctx): number => countApiKeyRows(ctx);

/** lastUsedAt is advisory; writing it at most once a minute keeps reads write-free. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface KeyIdentity {
  keyId: string;
  /** What the key may reach; null for a key without a scope. */
  reach: Reach | null;
}

type KeyRow = { id: string; env: string; revokedAt: number | null; lastUsedAt: number | null; reach: Reach | null };

/** The row with its scope parsed once, so a kept row costs a request no JSON parse. */
const withReach = (row: KeyAuthRow | undefined): KeyRow | undefined =>
  row && { id: row.id, env: row.env, revokedAt: row.revokedAt, lastUsedAt: row.lastUsedAt, reach: reachOf(parseStoredScope(row.scope)) };

/** Every authenticated request looks its key up: kept while the `keys` counter stands still (db/cache.ts). */
const keptKey = cachedBy('keys', (db, digest) => withReach(apiKeyByDigest(db, digest)));

/** ` (create one … with `…`)`: the command, run where the server runs; the banner prints it with the server's --db. */
const keyHint = (ctx: Ctx, lead: string): string =>
  ctx.keyCommand ? ` (${lead} \`${ctx.keyCommand}\` on the server machine, adding --db if the server was started with one)` : '';

/**
 * Resolves a presented key to its identity. The row is kept only while no key changed
 * (db/cache.ts), so a revoked or newly created key takes effect at once, also in a running
 * server and when another process (the CLI) made the change.
 */
export function authenticateKey(ctx: Ctx, presented: string | undefined | null): KeyIdentity {
  if (!presented) {
    throw new ApiError('unauthorized', `Missing API key. Send it in the X-API-Key header${keyHint(ctx, 'create one with')}.`);
  }
  const expected = KEY_PREFIX[keyEnvFor(ctx.env)];
  if (!presented.startsWith(expected)) {
    throw new ApiError('unauthorized', `This server runs the ${ctx.env} environment and accepts only ${expected} keys${keyHint(ctx, 'create one with')}.`);
  }
  const digest = digestKey(presented);
  const row = keptKey(ctx.db, digest);
  if (!row || row.revokedAt !== null) {
    throw new ApiError('unauthorized', `Invalid or revoked API key. Check the key${keyHint(ctx, 'or create a new one with')}.`);
  }
  return touch(ctx, row);
}

/**
 * Resolves the key behind an OAuth grant exactly as authenticateKey resolves a presented key:
 * a revoked key, or one of the other environment, ends every token issued with it.
 */
export function authenticateKeyId(ctx: Ctx, keyId: string): KeyIdentity {
  const row = withReach(apiKeyById(ctx, keyId));
  if (!row || row.revokedAt !== null || row.env !== keyEnvFor(ctx.env)) {
    throw new ApiError('unauthorized', 'The API key behind this sign-in was revoked. Connect again and paste a current key on the consent page.');
  }
  return touch(ctx, row);
}

/**
 * Marks the key used and answers its identity. An expired scope is 401 `key_expired` here, for
 * every call and transport alike; the key is not marked used.
 */
function touch(ctx: Ctx, row: KeyRow): KeyIdentity {
  const expired = expiryRefusal(ctx, row.reach);
  if (expired) throw expired;
  const now = ctx.clock.now();
  if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    markApiKeyUsed(ctx, row.id, now);
  }
  return { keyId: row.id, reach: row.reach };
}

/** A key's name (for the audit trail's actor), or undefined for an unknown id. */
export const apiKeyName = (ctx: Ctx, id: string): string | undefined => apiKeyNameOf(ctx, id);
