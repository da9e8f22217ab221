import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiKeys } from '../../src/db/schema.js';
import { authenticateKey, createApiKey, digestKey, listApiKeys, revokeApiKey } from '../../src/core/auth/keys.js';
import { ApiError } from '../../src/core/errors.js';
import { testCtx, TEST_KEY, LIVE_KEY } from '../helpers.js';

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof ApiError ? err.code : 'not-api-error';
  }
};

describe('API keys', () => {
  it('mints keys with the environment prefix and stores only a SHA-256 digest', () => {
    const ctx = testCtx();
    const { id, key } = createApiKey(ctx, 'test', 'laptop');
    expect(key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    const rows = ctx.db.select().from(apiKeys).all();
    const row = rows.find((r) => r.id === id)!;
    expect(row.digest).toBe(digestKey(key));
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(row.prefix).toBe(key.slice(0, 12));
    expect(createApiKey(ctx, 'live', 'prod').key).toMatch(/^sk_live_/);
  });

  it('digests a key as hex SHA-256, so keys stored by earlier versions still match', () => {
    // The FIPS 180-2 test vector, and a key's digest computed the way earlier versions did.
    expect(digestKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(digestKey(TEST_KEY)).toBe(createHash('sha256').update(TEST_KEY).digest('hex'));
  });

  it('authenticates a key of this environment and refuses everything else', () => {
    const ctx = testCtx();
    expect(authenticateKey(ctx, TEST_KEY).keyId).toMatch(/^key_/);
    expect(code(() => authenticateKey(ctx, undefined))).toBe('unauthorized');
    expect(code(() => authenticateKey(ctx, ''))).toBe('unauthorized');
    expect(code(() => authenticateKey(ctx, LIVE_KEY))).toBe('unauthorized');
    expect(code(() => authenticateKey(ctx, 'sk_test_nope_nope_nope_nope_nope_nope'))).toBe('unauthorized');
    const prod = { ...ctx, env: 'production' as const };
    expect(authenticateKey(prod, LIVE_KEY).keyId).toMatch(/^key_/);
    expect(code(() => authenticateKey(prod, TEST_KEY))).toBe('unauthorized');
  });

  it('revokes at once and records last use', () => {
    const ctx = testCtx();
    const { id, key } = createApiKey(ctx, 'test', 'temp');
    expect(listApiKeys(ctx).find((k) => k.id === id)!.lastUsedAt).toBeNull();
    authenticateKey(ctx, key);
    expect(listApiKeys(ctx).find((k) => k.id === id)!.lastUsedAt).toBe(new Date(ctx.clock.now()).toISOString());
    expect(revokeApiKey(ctx, id)).toBe(true);
    expect(code(() => authenticateKey(ctx, key))).toBe('unauthorized');
    expect(revokeApiKey(ctx, id)).toBe(true);
    expect(revokeApiKey(ctx, 'key_missing')).toBe(false);
    const listed = listApiKeys(ctx);
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(listed.find((k) => k.id === id)!.revokedAt).not.toBeNull();
  });
});
