import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/core/auth/keys.js';
import { apiKeys, oauthCodes, oauthTokens, workspace } from '../../src/db/schema.js';
import { callTool, LIVE_KEY, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import {
  authorizationCode,
  authorizeUrl,
  bearerClient,
  mcpPost,
  openConsent,
  pkce,
  REDIRECT,
  register,
  registerClient,
  signIn,
  submitConsent,
  token,
} from './helpers.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(() => server.close());

const keyId = (key: string) =>
  server.ctx.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(eq(apiKeys.digest, createHash('sha256').update(key).digest('hex')))
    .get()!.id;

describe('discovery', () => {
  it('serves authorization-server metadata with S256 PKCE and dynamic registration', async () => {
    const meta = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(meta.issuer).toBe(`${server.url}/`);
    expect(meta.authorization_endpoint).toBe(`${server.url}/authorize`);
    expect(meta.token_endpoint).toBe(`${server.url}/token`);
    expect(meta.registration_endpoint).toBe(`${server.url}/register`);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
  });

  it('serves protected-resource metadata for the root and for /mcp', async () => {
    const root = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource`)).json()) as any;
    const mcp = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()) as any;
    expect(root.resource).toBe(`${server.url}/`);
    expect(mcp.resource).toBe(`${server.url}/mcp`);
    for (const doc of [root, mcp]) expect(doc.authorization_servers).toEqual([`${server.url}/`]);
  });

  it('a 401 from each MCP endpoint names the metadata of that endpoint', async () => {
    const atMcp = await mcpPost(server, {}, '/mcp');
    expect(atMcp.status).toBe(401);
    expect(atMcp.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`);
    const atRoot = await mcpPost(server, {}, '/');
    expect(atRoot.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
  });

  it('lists oauth among the overview auth methods', async () => {
    const o = (await (await fetch(`${server.url}/.well-known/mcp.json`)).json()) as any;
    expect(o.auth.methods).toEqual(['api_key', 'oauth']);
    expect(o.auth.oauth.protectedResourceMetadata).toBe(`${server.url}/.well-known/oauth-protected-resource/mcp`);
    expect(o.auth.oauth.authorizationServerMetadata).toBe(`${server.url}/.well-known/oauth-authorization-server`);
  });
});

describe('dynamic client registration', () => {
  it('is idempotent: the same metadata gives the same client, secret included', async () => {
    const a = await registerClient(server, { token_endpoint_auth_method: 'client_secret_post' });
    const b = await registerClient(server, { token_endpoint_auth_method: 'client_secret_post' });
    expect(b.client_id).toBe(a.client_id);
    expect(a.client_secret).toMatch(/.{32,}/);
    expect(b.client_secret).toBe(a.client_secret);
    const other = await registerClient(server, { client_name: 'Another' });
    expect(other.client_id).not.toBe(a.client_id);
    expect(other.client_secret).toBeUndefined();
  });

  it.each([
    ['cursor://anysphere.cursor-retrieval/oauth/user-outreach/callback'],
    ['http://127.0.0.1:33418/callback'],
    ['http://localhost:6274/oauth/callback'],
    ['http://[::1]:9000/cb'],
    ['https://claude.ai/api/mcp/auth_callback'],
  ])('accepts the redirect URI %s', async (uri) => {
    const r = await register(server, { redirect_uris: [uri] });
    expect(r.status).toBe(201);
    expect(r.body.redirect_uris).toEqual([uri]);
  });

  it.each([
    ['http://example.com/callback', 'loopback'],
    ['https://example.com/cb#frag', 'fragment'],
    ['javascript:alert(1)', 'javascript'],
  ])('refuses the redirect URI %s', async (uri) => {
    const r = await register(server, { redirect_uris: [uri] });
    expect(r.status).toBe(400);
    expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(r.body.error);
  });

  it('refuses grant types it does not support', async () => {
    const r = await register(server, { grant_types: ['client_credentials'] });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_client_metadata');
  });

  it('a loopback redirect URI matches on any port', async () => {
    const client = await registerClient(server, { redirect_uris: ['http://127.0.0.1:1/cb'] });
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge, { redirect_uri: 'http://127.0.0.1:54321/cb' }));
    expect(form.status).toBe(200);
    const r = await submitConsent(server, form, { api_key: TEST_KEY });
    expect(r.location).toMatch(/^http:\/\/127\.0\.0\.1:54321\/cb\?code=oac_/);
  });
});

describe('consent page', () => {
  it('is an accessible form: a labelled key field, no script', async () => {
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    expect(form.status).toBe(200);
    expect(form.html).toContain('<html lang="en">');
    expect(form.html).toMatch(/<label for="api_key">API key<\/label>/);
    expect(form.html).toMatch(/<input type="password" id="api_key" name="api_key" required/);
    expect(form.html).toContain('Test Assistant');
    expect(form.html).toContain('sk_test_');
    expect(form.html).not.toContain('<script');
    expect(form.cookie).toMatch(/^outreach_consent=/);
  });

  it('shows a client name with direction controls as given: isolated, each control as its code point', async () => {
    // U+202E turns what follows around: "Safe Client\u202Etxt.exe" would read "Safe Clientexe.txt".
    const client = await registerClient(server, { client_name: 'Safe Client\u202Etxt.exe \u2067x\u2069' });
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    expect(form.status).toBe(200);
    expect(form.html).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(form.html).toContain('<h1>Connect <bdi>Safe Client[U+202E]txt.exe [U+2067]x[U+2069]</bdi> to outreach-mcp</h1>');
    expect(form.html).toContain('<strong><bdi>Safe Client[U+202E]txt.exe [U+2067]x[U+2069]</bdi></strong>');
    expect(form.html).toContain('<title>Connect Safe Client[U+202E]txt.exe [U+2067]x[U+2069] to outreach-mcp</title>');
    // Right-to-left letters are kept, isolated from the sentence around them.
    const hebrew = await registerClient(server, { client_name: 'עוזר' });
    expect((await openConsent(authorizeUrl(server, hebrew.client_id, pkce().challenge))).html).toContain('<strong><bdi>עוזר</bdi></strong>');
  });

  it.each([
    ['an unknown key', 'sk_test_unknown_key_00000000000000000000', /Invalid or revoked API key/],
    ['a key of the other environment', LIVE_KEY, /accepts only sk_test_ keys/],
    ['an empty key', '', /Paste your API key/],
  ])('refuses %s with a clear error and issues no code', async (_what, key, message) => {
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    const r = await submitConsent(server, form, { api_key: key });
    expect(r.status).toBe(400);
    expect(r.location).toBeNull();
    expect(r.html).toMatch(/role="alert"/);
    expect(r.html).toMatch(message);
    expect(r.html).toContain('aria-invalid="true"');
    expect(server.ctx.db.select().from(oauthCodes).all()).toHaveLength(0);
  });

  it('refuses a revoked key, and then accepts a good key on the same form', async () => {
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    revokeApiKey(server.ctx, keyId(LIVE_KEY)); // irrelevant key: unrelated revocations change nothing
    const revoked = 'sk_test_fixture_key_000000000000000001';
    revokeApiKey(server.ctx, keyId(revoked));
    const bad = await submitConsent(server, form, { api_key: revoked });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/Invalid or revoked API key/);
    server.ctx.db
      .update(apiKeys)
      .set({ revokedAt: null })
      .where(eq(apiKeys.id, keyId(revoked)))
      .run();
    const good = await submitConsent(server, form, { api_key: revoked });
    expect(good.status).toBe(302);
    expect(new URL(good.location!).searchParams.get('state')).toBe('st-123');
  });

  it('refuses a key of a workspace whose plan cannot use the API', async () => {
    server.ctx.db.update(workspace).set({ plan: 'trial' }).run();
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    const r = await submitConsent(server, form, { api_key: TEST_KEY });
    expect(r.status).toBe(400);
    expect(r.html).toMatch(/trial plan cannot use the API/);
  });

  it('a form issues one code only', async () => {
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    expect((await submitConsent(server, form, { api_key: TEST_KEY })).status).toBe(302);
    const again = await submitConsent(server, form, { api_key: TEST_KEY });
    expect(again.status).toBe(400);
    expect(again.html).toMatch(/already used/);
  });

  it('refuses a POST without the browser cookie, with another cookie, or with a tampered token (CSRF)', async () => {
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    expect((await submitConsent(server, { ...form, cookie: '' }, { api_key: TEST_KEY })).status).toBe(403);
    const other = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    expect((await submitConsent(server, { ...form, cookie: other.cookie }, { api_key: TEST_KEY })).status).toBe(403);
    const tampered = form.formToken.replace(/^./, (c) => (c === 'e' ? 'f' : 'e'));
    expect((await submitConsent(server, { ...form, formToken: tampered }, { api_key: TEST_KEY })).status).toBe(400);
    expect(server.ctx.db.select().from(oauthCodes).all()).toHaveLength(0);
  });

  it('refuses a form older than 10 minutes', async () => {
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    server.ctx.clock.advance(10 * 60_000 + 1);
    const r = await submitConsent(server, form, { api_key: TEST_KEY });
    expect(r.status).toBe(400);
    expect(r.html).toMatch(/expired/);
  });

  it('Deny sends the user back with access_denied and the state', async () => {
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    const r = await submitConsent(server, form, { decision: 'deny' });
    const back = new URL(r.location!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-123');
  });

  it('refuses a token for another resource (RFC 8707)', async () => {
    const client = await registerClient(server);
    const res = await fetch(authorizeUrl(server, client.client_id, pkce().challenge, { resource: 'https://elsewhere.example/mcp' }), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('refuses an authorization request without S256 PKCE', async () => {
    const client = await registerClient(server);
    const res = await fetch(authorizeUrl(server, client.client_id, 'x', { code_challenge_method: 'plain' }), { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });
});

describe('tokens', () => {
  it('the whole flow: register, consent, code, token, then tools/list and a tool call with the bearer', async () => {
    const { tokens } = await signIn(server);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.refresh_token).toMatch(/^ort_/);
    const client = await bearerClient(server, tokens.access_token);
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toContain('get_credits');
    // The token reaches exactly what its key reaches: the same body as REST with the key.
    const viaToken = await callTool(client, 'get_credits');
    const viaKey = await server.rest('/credits');
    expect(viaToken.body).toEqual(viaKey.body);
    await client.close();
  });

  it('works on the root MCP endpoint too', async () => {
    const { tokens } = await signIn(server);
    const client = await bearerClient(server, tokens.access_token, '/');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it('stores codes and tokens only as SHA-256 digests', async () => {
    const { tokens } = await signIn(server);
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const digests = server.ctx.db
      .select({ digest: oauthTokens.digest })
      .from(oauthTokens)
      .all()
      .map((r) => r.digest);
    expect(digests).toEqual(expect.arrayContaining([sha(tokens.access_token), sha(tokens.refresh_token)]));
    const dump = JSON.stringify([server.ctx.db.select().from(oauthTokens).all(), server.ctx.db.select().from(oauthCodes).all()]);
    expect(dump).not.toContain(tokens.access_token);
    expect(dump).not.toContain(tokens.refresh_token);
  });

  it('refuses a wrong PKCE verifier, and the code is then spent', async () => {
    const client = await registerClient(server);
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(server, client.client_id, challenge);
    const wrong = await token(server, { grant_type: 'authorization_code', code, code_verifier: pkce().verifier, client_id: client.client_id });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    expect(wrong.body.error_description).toMatch(/code_verifier/);
    const right = await token(server, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id });
    expect(right.status).toBe(400);
    expect(right.body.error).toBe('invalid_grant');
  });

  it('a replayed code is refused and revokes the tokens it gave', async () => {
    const client = await registerClient(server);
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(server, client.client_id, challenge);
    const params = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id };
    const first = await token(server, params);
    expect(first.status).toBe(200);
    expect((await mcpPost(server, { authorization: `Bearer ${first.body.access_token}` })).status).toBe(200);
    const replay = await token(server, params);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await mcpPost(server, { authorization: `Bearer ${first.body.access_token}` })).status).toBe(401);
  });

  it('a code is bound to its client', async () => {
    const a = await registerClient(server);
    const b = await registerClient(server, { client_name: 'Thief' });
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(server, a.client_id, challenge);
    const stolen = await token(server, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: b.client_id });
    expect(stolen.body.error).toBe('invalid_grant');
    const own = await token(server, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: a.client_id });
    expect(own.status).toBe(200);
  });

  it('a code is bound to its redirect URI, and expires after 10 minutes', async () => {
    const client = await registerClient(server);
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(server, client.client_id, challenge);
    const elsewhere = await token(server, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:8765/other',
    });
    expect(elsewhere.body.error).toBe('invalid_grant');
    const p2 = pkce();
    const late = await authorizationCode(server, client.client_id, p2.challenge);
    server.ctx.clock.advance(10 * 60_000 + 1);
    const r = await token(server, { grant_type: 'authorization_code', code: late, code_verifier: p2.verifier, client_id: client.client_id });
    expect(r.body.error).toBe('invalid_grant');
    expect(r.body.error_description).toMatch(/expired/);
  });

  it('an expired access token is 401 with invalid_token; the refresh token rotates', async () => {
    const { clientId, tokens } = await signIn(server);
    server.ctx.clock.advance(60 * 60_000 + 1000);
    const expired = await mcpPost(server, { authorization: `Bearer ${tokens.access_token}` });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="The access token expired[^"]*", resource_metadata=/,
    );
    expect(((await expired.json()) as any).error.code).toBe('unauthorized');

    const refreshed = await token(server, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await mcpPost(server, { authorization: `Bearer ${refreshed.body.access_token}` })).status).toBe(200);

    // The old refresh token was rotated away: using it again revokes the whole sign-in.
    const reuse = await token(server, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(reuse.body.error).toBe('invalid_grant');
    expect((await mcpPost(server, { authorization: `Bearer ${refreshed.body.access_token}` })).status).toBe(401);
  });

  it('revoking the API key ends its tokens and their refresh at once', async () => {
    const { clientId, tokens } = await signIn(server);
    revokeApiKey(server.ctx, keyId(TEST_KEY));
    const r = await mcpPost(server, { authorization: `Bearer ${tokens.access_token}` });
    expect(r.status).toBe(401);
    expect(((await r.json()) as any).error.message).toMatch(/revoked/);
    const refresh = await token(server, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('revocation (RFC 7009) ends the sign-in', async () => {
    const { clientId, tokens } = await signIn(server);
    const res = await fetch(`${server.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: clientId }),
    });
    expect(res.status).toBe(200);
    expect((await mcpPost(server, { authorization: `Bearer ${tokens.access_token}` })).status).toBe(401);
  });

  it('a bearer token on REST is 401: REST takes X-API-Key only', async () => {
    const { tokens } = await signIn(server);
    const r = await server.rest('/credits', { key: null, headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
    expect(r.body.error.message).toMatch(/X-API-Key/);
  });

  it('a plan that cannot use the API is 403 plan_required with a token too', async () => {
    const { tokens } = await signIn(server);
    server.ctx.db.update(workspace).set({ plan: 'free' }).run();
    const r = await mcpPost(server, { authorization: `Bearer ${tokens.access_token}` });
    expect(r.status).toBe(403);
    expect(((await r.json()) as any).error.code).toBe('plan_required');
  });

  it('a garbage bearer token is 401 invalid_token', async () => {
    const r = await mcpPost(server, { authorization: 'Bearer oat_nonsense' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });
});

describe('abuse limits', () => {
  it('limits client registrations per address, with Retry-After, and the window passes', async () => {
    for (let i = 0; i < 20; i++) expect((await register(server)).status).toBe(201);
    const refused = await fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3600');
    expect(((await refused.json()) as any).error).toBe('too_many_requests');
    server.ctx.clock.advance(60 * 60_000);
    expect((await register(server)).status).toBe(201);
  });
});
