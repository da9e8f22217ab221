import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiKeys, workspace } from '../src/db/schema.js';
import { digestKey } from '../src/core/auth/keys.js';
import { tools } from '../src/tools/index.js';
import { callTool, LIVE_KEY, startTestServer, TEST_KEY, type TestServer } from './helpers.js';
import { SAMPLE_CALLS } from './tools/samples.js';

/**
 * The shared suite: every tool, over REST and over MCP, answers auth, plan and validation
 * cases the same way (in the style of unkey's runCommonRouteTests).
 */
const REVOKED_KEY = 'sk_test_revoked_key_0000000000000000003';

describe.each(tools.map((t) => [t.name] as const))('common cases: %s', (name) => {
  const sample = SAMPLE_CALLS[name]!;
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    server.ctx.db.insert(apiKeys).values({ id: 'key_revoked', name: 'old', env: 'test', prefix: 'sk_test_revo', digest: digestKey(REVOKED_KEY), createdAt: 0, revokedAt: 1 }).run();
  });
  afterAll(() => server.close());

  const rest = (key: string | null, body: unknown = sample.rest.body) =>
    server.rest(sample.rest.path, { method: sample.rest.method, key, body: body === undefined ? undefined : JSON.stringify(body) });

  it('succeeds with a valid key on both transports, with the same body shape', async () => {
    const r = await rest(TEST_KEY);
    expect(r.status).toBe(200);
    const m = await callTool(await server.mcp(), name, sample.args);
    expect(m.isError).toBe(false);
    expect(Object.keys(m.body).sort()).toEqual(Object.keys(r.body).sort());
  });

  it.each([
    ['missing', null],
    ['unknown', 'sk_test_unknown_key_00000000000000000000'],
    ['of the other environment', LIVE_KEY],
    ['revoked', REVOKED_KEY],
  ] as const)('REST: a %s key is 401 unauthorized', async (_what, key) => {
    const r = await rest(key);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
    expect(r.body.error.details).toEqual({});
  });

  it('MCP: a bad key is HTTP 401 with WWW-Authenticate', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'X-API-Key': LIVE_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: sample.args } }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/);
    expect(((await res.json()) as any).error.code).toBe('unauthorized');
  });

  it('an unknown argument is validation_error naming it, on both transports', async () => {
    const isGet = sample.rest.method === 'GET';
    const r = isGet
      ? await server.rest(`${sample.rest.path}${sample.rest.path.includes('?') ? '&' : '?'}bogus=1`)
      : await rest(TEST_KEY, { ...(sample.rest.body as object), bogus: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details.fields).toContain('bogus');
    const m = await callTool(await server.mcp(), name, { ...sample.args, bogus: 1 });
    expect(m.isError).toBe(true);
    expect(m.body.error.code).toBe('validation_error');
    expect(m.body.error.details.fields).toContain('bogus');
  });

  it('a free or trial plan is 403 plan_required on both transports', async () => {
    for (const plan of ['free', 'trial']) {
      server.ctx.db.update(workspace).set({ plan }).where(eq(workspace.id, 1)).run();
      try {
        const r = await rest(TEST_KEY);
        expect(r.status).toBe(403);
        expect(r.body.error.code).toBe('plan_required');
        const res = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'X-API-Key': TEST_KEY },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: sample.args } }),
        });
        expect(res.status).toBe(403);
        expect(((await res.json()) as any).error.code).toBe('plan_required');
      } finally {
        server.ctx.db.update(workspace).set({ plan: 'paid' }).where(eq(workspace.id, 1)).run();
      }
    }
  });
});
