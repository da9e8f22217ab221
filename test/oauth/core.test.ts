import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { digestKey } from '../../src/core/auth/keys.js';
import {
  ACCESS_TOKEN_TTL_MS,
  authenticateAccessToken,
  exchangeAuthorizationCode,
  issueAuthorizationCode,
  OAuthFailure,
  redirectUriProblem,
  registerClient,
  s256,
} from '../../src/core/auth/oauth.js';
import { serverSecret } from '../../src/core/auth/secrets.js';
import { ApiError } from '../../src/core/errors.js';
import { apiKeys, oauthCodes, oauthTokens } from '../../src/db/schema.js';
import { authenticate, type Credential } from '../../src/tools/pipeline.js';

const keyIdOf = (ctx: Parameters<typeof authenticate>[0], credential: Credential, requestId: string): string => {
  const auth = authenticate(ctx, credential, { requestId });
  if (!auth.ok) throw auth.error;
  return auth.caller.keyId;
};
import { testCtx, TEST_KEY } from '../helpers.js';

const VERIFIER = 'v'.repeat(43);

function signedIn(ctx: ReturnType<typeof testCtx>) {
  const client = registerClient(ctx, { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' });
  const keyId = ctx.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(eq(apiKeys.digest, digestKey(TEST_KEY)))
    .get()!.id;
  const code = issueAuthorizationCode(ctx, {
    clientId: client.id,
    apiKeyId: keyId,
    redirectUri: 'http://127.0.0.1/cb',
    codeChallenge: s256(VERIFIER),
    scopes: [],
    resource: null,
    formNonce: `n-${Math.random()}`,
  });
  return { client, keyId, tokens: exchangeAuthorizationCode(ctx, { clientId: client.id, code, codeVerifier: VERIFIER }) };
}

describe('OAuth core verbs', () => {
  it.each([
    ['https://claude.ai/api/mcp/auth_callback', null],
    ['http://127.0.0.1:9/cb', null],
    ['cursor://anysphere.cursor-retrieval/oauth/callback', null],
    ['http://10.0.0.5/cb', /loopback/],
    ['https://x.example/cb#f', /fragment/],
    ['file:///etc/passwd', /cannot receive/],
    ['not a url', /absolute URL/],
  ])('redirect URI %s', (uri, problem) => {
    const found = redirectUriProblem(uri);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('registration answers unsupported auth methods with client_secret_post, and is idempotent on metadata', () => {
    const ctx = testCtx();
    const a = registerClient(ctx, { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' });
    expect(a.metadata.token_endpoint_auth_method).toBe('client_secret_post');
    expect(a.metadata.grant_types).toEqual(['authorization_code', 'refresh_token']);
    expect(registerClient(ctx, { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' }).id).toBe(a.id);
    expect(() => registerClient(ctx, { redirect_uris: [] })).toThrow(OAuthFailure);
  });

  it('a bearer token resolves to the caller of its key: same key id as X-API-Key', () => {
    const ctx = testCtx();
    const { keyId, tokens } = signedIn(ctx);
    const viaToken = keyIdOf(ctx, { bearerToken: tokens.accessToken }, 'r1');
    const viaKey = keyIdOf(ctx, { apiKey: TEST_KEY }, 'r2');
    expect(viaToken).toBe(keyId);
    expect(viaToken).toBe(viaKey);
    // The key wins when both are sent.
    expect(keyIdOf(ctx, { apiKey: TEST_KEY, bearerToken: 'oat_garbage' }, 'r3')).toBe(keyId);
  });

  it('an access token expires after an hour, exactly', () => {
    const ctx = testCtx();
    const { tokens } = signedIn(ctx);
    ctx.clock.advance(ACCESS_TOKEN_TTL_MS - 1);
    expect(authenticateAccessToken(ctx, tokens.accessToken).keyId).toMatch(/^key_/);
    ctx.clock.advance(1);
    expect(() => authenticateAccessToken(ctx, tokens.accessToken)).toThrow(ApiError);
  });

  it('a token stops working when its key moves to the other environment', () => {
    const ctx = testCtx();
    const { keyId, tokens } = signedIn(ctx);
    ctx.db.update(apiKeys).set({ env: 'live' }).where(eq(apiKeys.id, keyId)).run();
    expect(() => authenticateAccessToken(ctx, tokens.accessToken)).toThrow(/revoked/);
  });

  it('expired codes and tokens are purged when new ones are written', () => {
    const ctx = testCtx();
    signedIn(ctx);
    expect(ctx.db.select().from(oauthTokens).all()).toHaveLength(2);
    ctx.clock.advance(31 * 24 * 60 * 60_000);
    signedIn(ctx);
    expect(ctx.db.select().from(oauthTokens).all()).toHaveLength(2);
    expect(ctx.db.select().from(oauthCodes).all()).toHaveLength(1);
  });

  it('server secrets are created once and then stable', () => {
    const ctx = testCtx();
    const first = serverSecret(ctx, 'oauth');
    expect(first).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(serverSecret(ctx, 'oauth')).toBe(first);
    expect(serverSecret(ctx, 'other')).not.toBe(first);
  });
});
