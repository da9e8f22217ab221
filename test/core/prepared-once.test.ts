import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiKeyName } from '../../src/core/auth/keys.js';
import { authenticateAccessToken, exchangeAuthorizationCode, getClient, issueAuthorizationCode, registerClient, s256 } from '../../src/core/auth/oauth.js';
import { consumeLoginToken, createLoginToken, findSession } from '../../src/core/auth/sessions.js';
import { finalizeKey, releaseKey, reserveKey } from '../../src/core/idempotency/store.js';
import { startTestServer, testCtx, type TestServer } from '../helpers.js';

/**
 * Paths every call runs prepare their statements once per connection: building a query and
 * having SQLite prepare it cost more than running it (the daily quota counters took nearly half of
 * the enrichment bench's CPU time). After a first call has warmed them, the same call prepares nothing.
 */
describe('statements prepared once per connection', () => {
  let server: TestServer;
  afterEach(() => server.close());

  const lookup = () =>
    server.rest('/network/profiles/lookup', {
      method: 'POST',
      body: JSON.stringify({ accountId: 'acc_ada', networkUrl: 'https://www.linkedin.com/in/ada-lovelace' }),
    });

  it('a profile lookup over REST, after the first, prepares no statement', async () => {
    server = await startTestServer();
    expect((await lookup()).status).toBe(200);
    server.ctx.clock.advance(20_000);
    const prepare = vi.spyOn(server.ctx.db.$client, 'prepare');
    try {
      const second = await lookup();
      expect(second.status).toBe(200);
      expect(second.body.firstName).toBe('Ada');
      expect(prepare.mock.calls.map((c) => c[0])).toEqual([]);
    } finally {
      prepare.mockRestore();
    }
    // The counter the lookups moved is the one the quota reads: two lookups today.
    const used = server.ctx.db.$client.prepare("SELECT profile_lookups FROM account_daily WHERE account_id = 'acc_ada'").pluck().all();
    expect(used).toEqual([2]);
  });

  it("a key's name for the audit trail and a keyed write's record prepare nothing once warm", async () => {
    server = await startTestServer();
    const keyId = server.ctx.db.$client.prepare('SELECT id FROM api_keys ORDER BY created_at LIMIT 1').pluck().get() as string;
    const scope = (key: string) => ({ apiKeyId: keyId, key, fingerprint: 'f'.repeat(64) });
    const round = (key: string) => {
      const name = apiKeyName(server.ctx, keyId);
      expect(reserveKey(server.ctx, scope(key), 'Idempotency-Key')).toEqual({ kind: 'reserved' });
      finalizeKey(server.ctx, scope(key), 200, '{"ok":true}');
      expect(reserveKey(server.ctx, scope(key), 'Idempotency-Key')).toEqual({ kind: 'replay', status: 200, body: '{"ok":true}' });
      releaseKey(server.ctx, scope(`${key}-gone`));
      return name;
    };
    const first = round('k1');
    expect(typeof first).toBe('string');
    const prepare = vi.spyOn(server.ctx.db.$client, 'prepare');
    try {
      expect(round('k2')).toBe(first);
      expect(prepare.mock.calls.map((c) => c[0])).toEqual([]);
    } finally {
      prepare.mockRestore();
    }
  });

  it("a dashboard request's session and member prepare nothing once warm", async () => {
    server = await startTestServer();
    const login = consumeLoginToken(server.ctx, createLoginToken(server.ctx).token);
    if (!login.ok) throw new Error(`login failed: ${login.reason}`);
    const first = findSession(server.ctx, login.session);
    expect(first?.member.role).toBe('owner');
    const prepare = vi.spyOn(server.ctx.db.$client, 'prepare');
    try {
      expect(findSession(server.ctx, login.session)).toEqual(first);
      expect(findSession(server.ctx, `${login.session.slice(0, -1)}x`)).toBeNull();
      expect(prepare.mock.calls.map((c) => c[0])).toEqual([]);
    } finally {
      prepare.mockRestore();
    }
  });

  it('a call with an OAuth bearer token, and its client named for the audit trail, prepare nothing once warm', () => {
    const ctx = testCtx();
    const verifier = 'v'.repeat(43);
    const client = registerClient(ctx, { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none', client_name: 'Bench client' });
    const keyId = ctx.db.$client.prepare('SELECT id FROM api_keys ORDER BY created_at LIMIT 1').pluck().get() as string;
    const code = issueAuthorizationCode(ctx, {
      clientId: client.id,
      apiKeyId: keyId,
      redirectUri: 'http://127.0.0.1/cb',
      codeChallenge: s256(verifier),
      scopes: [],
      resource: null,
      formNonce: 'n-prepared-once',
    });
    const { accessToken } = exchangeAuthorizationCode(ctx, { clientId: client.id, code, codeVerifier: verifier });
    const call = () => ({ key: authenticateAccessToken(ctx, accessToken).keyId, client: getClient(ctx, client.id)?.metadata.client_name });
    const first = call();
    expect(first).toEqual({ key: keyId, client: 'Bench client' });
    const prepare = vi.spyOn(ctx.db.$client, 'prepare');
    try {
      expect(call()).toEqual(first);
      expect(prepare.mock.calls.map((c) => c[0])).toEqual([]);
    } finally {
      prepare.mockRestore();
      ctx.db.$client.close();
    }
  });
});
