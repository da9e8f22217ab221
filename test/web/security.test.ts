import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardTools } from '../../src/tools/index.js';
import { DASHBOARD_CSP, LOGIN_FAILURES_ALLOWED } from '../../src/web/security.js';
import { createLogger } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Settings } from '../../src/config.js';
import { TEST_KEY, testCtx, type TestServer, startTestServer } from '../helpers.js';
import { appCall, fakeUiDir, login, loginPath } from './helpers.js';

describe('the /app mount: sessions and security', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());

  const API_ROUTES: [string, string][] = [
    ['GET', '/app/api/session'],
    ['POST', '/app/api/call'],
    ['POST', '/app/api/logout'],
    ['GET', '/app/api/anything'],
  ];

  it('gives no data on any /app/api route without a session, also with an API key', async () => {
    for (const [method, path] of API_ROUTES) {
      for (const headers of <Record<string, string>[]>[
        {},
        { 'x-api-key': TEST_KEY },
        { authorization: `Bearer ${TEST_KEY}` },
        { cookie: 'outreach_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      ]) {
        const res = await fetch(server.url + path, {
          method,
          headers: { ...headers, origin: server.url, 'content-type': 'application/json' },
          ...(method === 'POST' ? { body: JSON.stringify({ name: 'get_credits', arguments: {} }) } : {}),
        });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        const body = (await res.json()) as { error: { code: string; message: string; details: object } };
        expect(body).toEqual({
          error: { code: 'unauthorized', message: expect.stringContaining('npx outreach login'), details: { loginCommand: 'npx outreach login' } },
        });
      }
    }
  });

  it('logs in with a link once: 303 to /app/ with the cookie flags; a reused or unknown link is 401 HTML', async () => {
    const { path } = loginPath(server.ctx);
    expect((await fetch(server.url + path, { method: 'HEAD', redirect: 'manual' })).status).toBe(200);
    const first = await fetch(server.url + path, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/app/');
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^outreach_session=[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toContain('Path=/app');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).not.toContain('Secure');

    const again = await fetch(server.url + path, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(again.headers.get('content-type')).toContain('text/html');
    const page = await again.text();
    expect(page).toContain('already used');
    expect(page).toContain('npx outreach login');
    expect(page).not.toContain('<script');

    for (const bad of ['/app/login', '/app/login?token=nope', `/app/login?token=${'A'.repeat(43)}`]) {
      const res = await fetch(server.url + bad, { redirect: 'manual' });
      expect(res.status, bad).toBe(401);
    }
  });

  it('refuses an expired link (15 minutes, fake clock)', async () => {
    const { path } = loginPath(server.ctx);
    server.ctx.clock.advance(15 * 60_000);
    const res = await fetch(server.url + path, { redirect: 'manual' });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('expired');
    server.ctx.clock.advance(-15 * 60_000);
  });

  it('marks the cookie Secure behind an https proxy on loopback', async () => {
    const { path } = loginPath(server.ctx);
    const res = await fetch(server.url + path, { redirect: 'manual', headers: { 'x-forwarded-proto': 'https' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toContain('; Secure');
  });

  it('answers the session endpoint and runs tools with a session', async () => {
    const res = await fetch(`${server.url}/app/api/session`, { headers: { cookie } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { workspace: { name: string; plan: string; env: string }; tools: string[] };
    expect(body.workspace.env).toBe('development');
    expect(body.tools).toEqual(expect.arrayContaining(['get_credits', 'list_conversations', 'create_api_key', 'rotate_webhook_secret']));
    const call = await appCall(server.url, cookie, 'get_credits');
    expect(call.status).toBe(200);
    expect(call.body.isError).toBe(false);
    expect(call.body.structuredContent).toEqual(JSON.parse(call.body.content[0]!.text));
    expect(typeof call.body.structuredContent.credits).toBe('number');
  });

  it('returns errors as isError results with the error body as structuredContent', async () => {
    const unknown = await appCall(server.url, cookie, 'no_such_tool');
    expect(unknown.body.isError).toBe(true);
    expect(unknown.body.structuredContent.error.code).toBe('not_found');
    const invalid = await appCall(server.url, cookie, 'get_campaign', { campaignId: 'cmp_missing' });
    expect(invalid.body.isError).toBe(true);
    expect(invalid.body.structuredContent.error.code).toBe('not_found');
    expect(JSON.parse(invalid.body.content[0]!.text)).toEqual(invalid.body.structuredContent);
  });

  it('refuses cross-origin writes with 403, even with a valid session', async () => {
    const body = JSON.stringify({ name: 'rotate_webhook_secret', arguments: {} });
    for (const headers of <Record<string, string>[]>[
      { origin: 'http://evil.example' },
      { origin: 'null' },
      {},
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      const res = await fetch(`${server.url}/app/api/call`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...headers }, body });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    }
    const viaFetchMetadata = await fetch(`${server.url}/app/api/call`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ name: 'get_credits', arguments: {} }),
    });
    expect(viaFetchMetadata.status).toBe(200);
  });

  it('sends the CSP and security headers on every /app response, and no wildcard CORS', async () => {
    const paths = ['/app', '/app/', '/app/campaigns/cmp_x', '/app/assets/index-abc123.js', '/app/assets/missing.js', '/app/login?token=x', '/app/api/session'];
    for (const path of paths) {
      const res = await fetch(server.url + path, { redirect: 'manual' });
      expect(res.headers.get('content-security-policy'), path).toBe(DASHBOARD_CSP);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
    expect(DASHBOARD_CSP).toContain("script-src 'self';");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
    const post = await fetch(`${server.url}/app/api/call`, { method: 'POST', headers: { origin: 'http://evil.example' } });
    expect(post.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
  });

  it('serves the SPA for page paths and long-caches hashed assets', async () => {
    for (const path of ['/app', '/app/', '/app/inbox', '/app/campaigns/cmp_x']) {
      const res = await fetch(server.url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(await res.text()).toContain('<div id="root">');
    }
    const asset = await fetch(`${server.url}/app/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${server.url}/app/assets/missing.js`)).status).toBe(404);
  });

  it('never lets the session cookie authorise /public/v1 or MCP', async () => {
    const rest = await fetch(`${server.url}/public/v1/credits`, { headers: { cookie } });
    expect(rest.status).toBe(401);
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_credits', arguments: {} } }),
    });
    expect(mcp.status).toBe(401);
  });

  it('refuses call bodies over 10 MiB with 413 and reads bodies up to it', async () => {
    const big = JSON.stringify({ name: 'get_credits', arguments: { pad: 'x'.repeat(10 * 1024 * 1024) } });
    const res = await fetch(`${server.url}/app/api/call`, {
      method: 'POST',
      headers: { cookie, origin: server.url, 'content-type': 'application/json' },
      body: big,
    });
    expect(res.status).toBe(413);
    const fits = JSON.stringify({ name: 'get_credits', arguments: { pad: 'x'.repeat(1024 * 1024) } });
    const ok = await fetch(`${server.url}/app/api/call`, {
      method: 'POST',
      headers: { cookie, origin: server.url, 'content-type': 'application/json' },
      body: fits,
    });
    expect(ok.status).toBe(200);
    // Read past the 128 KiB REST limit; the tool's strict schema then refuses the unknown field.
    expect(((await ok.json()) as { structuredContent: { error: { details: { fields: string[] } } } }).structuredContent.error.details.fields).toEqual(['pad']);
  });

  it('logs out: the cookie stops working', async () => {
    const own = await login(server.url, server.ctx);
    const out = await fetch(`${server.url}/app/api/logout`, { method: 'POST', headers: { cookie: own, origin: server.url } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await fetch(`${server.url}/app/api/session`, { headers: { cookie: own } })).status).toBe(401);
    expect((await fetch(`${server.url}/app/api/session`, { headers: { cookie } })).status).toBe(200);
  });
});

describe('the /app mount without a build', () => {
  it('answers 503 naming npm run build', async () => {
    const server = await startTestServer({ uiDir: '/nonexistent/ui' });
    try {
      for (const path of ['/app', '/app/inbox', '/app/assets/index.js']) {
        const res = await fetch(server.url + path);
        expect(res.status, path).toBe(503);
        expect(await res.text()).toContain('npm run build');
      }
    } finally {
      await server.close();
    }
  });
});

describe('login tokens in logs', () => {
  let server: RunningServer;
  const lines: string[] = [];
  beforeAll(async () => {
    const ctx = testCtx();
    ctx.log = createLogger('debug', { write: (line: string) => void lines.push(line) });
    const settings: Settings = { host: '127.0.0.1', port: 0, dbPath: ':memory:', env: 'development', simSpeed: 1, config: {} };
    server = await startServer(settings, ctx.log, ctx, { engine: false, lookalike: false, uiDir: fakeUiDir() });
  });
  afterAll(() => server.close());

  it('never writes the token or the session cookie to a log line', async () => {
    const { path, token } = loginPath(server.ctx);
    const res = await fetch(server.url + path, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const session = (res.headers.get('set-cookie') ?? '').split(';')[0]!.split('=')[1]!;
    await fetch(server.url + path, { redirect: 'manual' });
    await fetch(`${server.url}/app/api/session`, { headers: { cookie: `outreach_session=${session}` } });
    await new Promise((r) => setImmediate(r));
    const log = lines.join('');
    expect(log).toContain('/app/login');
    expect(log).not.toContain(token);
    expect(log).not.toContain(session);
  });
});

/** Every dashboard tool that changes something: each must be refused cross-origin. */
const WRITES = dashboardTools.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name);

describe('cross-origin writes behind a proxy on loopback', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());

  const call = (name: string, headers: Record<string, string>) =>
    fetch(`${server.url}/app/api/call`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ name, arguments: {} }),
    });

  it('refuses every state-changing call whose Origin matches only a forged X-Forwarded-Host', async () => {
    expect(WRITES.length).toBeGreaterThanOrEqual(9);
    const READS = ['list_api_keys', 'list_webhook_endpoints', 'list_exclusions', 'list_campaigns', 'list_agents', 'get_credits'];
    const snapshot = async () => Promise.all(READS.map(async (name) => (await appCall(server.url, cookie, name)).body.structuredContent));
    const before = await snapshot();
    const forged: Record<string, string>[] = [
      { origin: 'http://evil.example', 'x-forwarded-host': 'evil.example' },
      { origin: 'https://evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      { origin: 'http://evil.example:8080', 'x-forwarded-host': 'evil.example:8080', forwarded: 'host=evil.example:8080' },
    ];
    for (const name of WRITES) {
      for (const headers of forged) {
        const res = await call(name, headers);
        expect(res.status, `${name} ${JSON.stringify(headers)}`).toBe(403);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
      }
    }
    const out = await fetch(`${server.url}/app/api/logout`, { method: 'POST', headers: { cookie, ...forged[0] } });
    expect(out.status).toBe(403);
    // Nothing changed, and the session still works.
    expect(await snapshot()).toEqual(before);
    expect((await fetch(`${server.url}/app/api/session`, { headers: { cookie } })).status).toBe(200);
  });

  it('still accepts the same calls from the origin the Host header names', async () => {
    for (const name of WRITES) {
      const res = await call(name, { origin: server.url, 'x-forwarded-host': 'evil.example' });
      expect(res.status, name).toBe(200);
    }
  });
});

describe('cross-origin writes with a configured public address', () => {
  let server: RunningServer;
  let cookie: string;
  const PUBLIC = 'https://outreach.example.com';
  beforeAll(async () => {
    const ctx = testCtx();
    const settings: Settings = { host: '127.0.0.1', port: 0, dbPath: ':memory:', env: 'development', simSpeed: 1, config: {}, publicUrl: PUBLIC };
    server = await startServer(settings, ctx.log, ctx, { engine: false, lookalike: false, uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());

  const rotate = (headers: Record<string, string>) =>
    fetch(`${server.url}/app/api/call`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ name: 'rotate_webhook_secret', arguments: {} }),
    });

  it('accepts its origin (whatever Host a proxy sends) and the Host origin, and nothing forged', async () => {
    expect((await rotate({ origin: PUBLIC, 'x-forwarded-proto': 'https' })).status).toBe(200);
    expect((await rotate({ origin: server.url })).status).toBe(200);
    expect((await rotate({ origin: 'https://evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' })).status).toBe(403);
    expect((await rotate({ origin: 'https://outreach.example.com.evil.example' })).status).toBe(403);
    expect((await rotate({ origin: 'http://outreach.example.com' })).status).toBe(403);
  });
});

describe('login links: throttling and https', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const ctx = testCtx();
    const settings: Settings = { host: '127.0.0.1', port: 0, dbPath: ':memory:', env: 'development', simSpeed: 1, config: {}, trustProxy: true };
    server = await startServer(settings, ctx.log, ctx, { engine: false, lookalike: false, uiDir: fakeUiDir() });
  });
  afterAll(() => server.close());

  // This server is configured behind a proxy on loopback, so X-Forwarded-For gives each test client its own address.
  const from = (ip: string, path: string) => fetch(server.url + path, { redirect: 'manual', headers: { 'x-forwarded-for': ip } });

  it('answers 429 with Retry-After after repeated bad links from one address, and only that address', async () => {
    const bad = `/app/login?token=${'A'.repeat(43)}`;
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect((await from('203.0.113.7', bad)).status).toBe(401);
    const throttled = await from('203.0.113.7', bad);
    expect(throttled.status).toBe(429);
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(throttled.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    expect(await throttled.text()).toContain('npx outreach login');

    // A good link from the throttled address is refused too, and stays unspent.
    const { path } = loginPath(server.ctx);
    expect((await from('203.0.113.7', path)).status).toBe(429);
    // Another address is not affected, and the link still works there.
    expect((await from('198.51.100.4', path)).status).toBe(303);
  });

  it('does not count good links or HEAD probes', async () => {
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED + 2; i++) {
      expect((await from('203.0.113.8', loginPath(server.ctx).path)).status).toBe(303);
      expect((await fetch(`${server.url}/app/login?token=nope`, { method: 'HEAD', headers: { 'x-forwarded-for': '203.0.113.8' } })).status).toBe(200);
    }
  });

  it('sends Strict-Transport-Security behind https only', async () => {
    const https = await fetch(`${server.url}/app/`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(https.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const plain = await fetch(`${server.url}/app/`);
    expect(plain.headers.get('strict-transport-security')).toBeNull();
  });
});

describe('login links and API keys with no proxy configured: the connection is the client', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
  });
  afterAll(() => server.close());

  it('a client on loopback cannot dodge the login throttle by rotating X-Forwarded-For', async () => {
    const bad = `/app/login?token=${'A'.repeat(43)}`;
    const from = (i: number, path: string) => fetch(server.url + path, { redirect: 'manual', headers: { 'x-forwarded-for': `203.0.113.${i}` } });
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect((await from(i, bad)).status).toBe(401);
    expect((await from(200, bad)).status).toBe(429);
    expect((await from(201, loginPath(server.ctx).path)).status).toBe(429);
    expect((await fetch(server.url + bad, { redirect: 'manual' })).status).toBe(429);
  });

  it('nor the failed-key guard of the API', async () => {
    const guess = (i: number) =>
      server.rest('/credits', { key: `sk_test_guess_${String(i).padStart(30, '0')}`, headers: { 'x-forwarded-for': `198.51.100.${i}` } });
    let refused = 0;
    for (let i = 0; i < 40 && refused === 0; i++) if ((await guess(i)).status === 429) refused = i;
    // The default allows 20 failures a minute from one address; rotating the header changes nothing.
    expect(refused).toBe(20);
    const right = await server.rest('/credits', { headers: { 'x-forwarded-for': '192.0.2.1' } });
    expect(right.status).toBe(429);
  });
});

describe('the signed-out hint on a database other than the default', () => {
  let server: RunningServer;
  const dir = mkdtempSync(join(tmpdir(), 'outreach-hint-'));
  const dbPath = join(dir, 'elsewhere.db');
  beforeAll(async () => {
    const settings: Settings = { host: '127.0.0.1', port: 0, dbPath, env: 'development', simSpeed: 1, config: {} };
    server = await startServer(settings, testCtx().log, undefined, { engine: false, lookalike: false, uiDir: fakeUiDir() });
  });
  afterAll(() => server.close());

  it('names --db but never the path, in the 401 and on the refused-link page', async () => {
    const res = await fetch(`${server.url}/app/api/session`);
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(text).toContain('npx outreach login --db');
    expect(text).not.toContain(dir);
    const page = await (await fetch(`${server.url}/app/login?token=nope`)).text();
    expect(page).toContain('npx outreach login --db');
    expect(page).not.toContain(dir);
  });
});
