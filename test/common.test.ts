import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiKeys, workspace } from '../src/db/schema.js';
import { digestKey } from '../src/core/auth/keys.js';
import type { Ctx } from '../src/core/context.js';
import type { LimitsConfig } from '../src/core/ratelimit/index.js';
import { tools } from '../src/tools/index.js';
import { callTool, LIVE_KEY, RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from './helpers.js';
import { SAMPLE_CALLS } from './tools/samples.js';

/**
 * The shared suite: every tool, over REST and over MCP, answers auth, plan, validation and
 * rate-limit cases the same way (in the style of unkey's runCommonRouteTests).
 */
const REVOKED_KEY = 'sk_test_revoked_key_0000000000000000003';

describe.each(tools.map((t) => [t.name] as const))('common cases: %s', (name) => {
  const sample = SAMPLE_CALLS[name]!;
  let server: TestServer;

  beforeAll(async () => {
    // These cases make many calls on one server; the rate-limit cases below have their own.
    server = await startTestServer({ limits: RELAXED_LIMITS });
    server.ctx.db
      .insert(apiKeys)
      .values({ id: 'key_revoked', name: 'old', env: 'test', prefix: 'sk_test_revo', digest: digestKey(REVOKED_KEY), createdAt: 0, revokedAt: 1 })
      .run();
    sample.setup?.(server.ctx);
  });
  afterAll(() => server.close());

  const rest = (key: string | null, body: unknown = sample.rest.body) =>
    server.rest(sample.rest.path, { method: sample.rest.method, key, body: body === undefined ? undefined : JSON.stringify(body) });

  it('succeeds with a valid key on both transports, with the same body shape', async () => {
    const r = await rest(TEST_KEY);
    expect(r.status).toBe(200);
    const m = await callTool(await server.mcp(TEST_KEY, 'toolsets=manage,triage,audit'), name, sample.args);
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
    const res = await fetch(`${server.url}/mcp?toolsets=manage,triage,audit`, {
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
    const m = await callTool(await server.mcp(TEST_KEY, 'toolsets=manage,triage,audit'), name, { ...sample.args, bogus: 1 });
    expect(m.isError).toBe(true);
    expect(m.body.error.code).toBe('validation_error');
    expect(m.body.error.details.fields).toContain('bogus');
  });

  it('a free or trial plan, however the workspace spells it, is 403 plan_required on both transports', async () => {
    for (const plan of ['free', 'trial', 'Free', ' TRIAL ']) {
      server.ctx.db.update(workspace).set({ plan }).where(eq(workspace.id, 1)).run();
      try {
        const r = await rest(TEST_KEY);
        expect(r.status).toBe(403);
        expect(r.body.error.code).toBe('plan_required');
        const res = await fetch(`${server.url}/mcp?toolsets=manage,triage,audit`, {
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

/** Every row of every table: a refused request must leave this exactly as it was. */
function everything(ctx: Ctx): string {
  const client = ctx.db.$client;
  const names = client.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
  return JSON.stringify(names.map(({ name }) => [name, client.prepare(`SELECT * FROM "${name}"`).all()]));
}

describe.each(tools.map((t) => [t.name, t] as const))('rate limit: %s', (name, tool) => {
  const sample = SAMPLE_CALLS[name]!;
  const bucket = tool.rateLimit ?? 'global';
  // The tool's own bucket at 1 a minute; spacing and quotas out of the way.
  const limits: LimitsConfig = {
    ...RELAXED_LIMITS,
    ...(tool.rateLimit ? { perMinute: { ...RELAXED_LIMITS.perMinute, [tool.rateLimit]: 1 } } : { globalPerMinute: 1 }),
  };
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits });
    SAMPLE_CALLS[tool.name]?.setup?.(server.ctx);
  });
  afterAll(() => server.close());

  it(`REST and MCP draw from one ${bucket} bucket; a refusal is 429 with Retry-After and changes nothing`, async () => {
    const rest = () =>
      server.rest(sample.rest.path, { method: sample.rest.method, body: sample.rest.body === undefined ? undefined : JSON.stringify(sample.rest.body) });
    const client = await server.mcp(TEST_KEY, 'toolsets=manage,triage,audit');

    const first = await rest();
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toContain(`"${bucket}";q=1;w=60`);
    expect(first.headers.get('ratelimit')).toContain(`"${bucket}";r=0;t=60`);

    let before = everything(server.ctx);
    const refusedMcp = await callTool(client, name, sample.args);
    expect(refusedMcp.isError).toBe(true);
    expect(refusedMcp.body.error).toMatchObject({ code: 'rate_limited', details: { retryAfterSeconds: 60 } });
    expect(everything(server.ctx)).toBe(before);

    server.ctx.clock.advance(60_000);
    const second = await callTool(client, name, sample.args);
    expect(second.body.error?.code).not.toBe('rate_limited');

    before = everything(server.ctx);
    const refusedRest = await rest();
    expect(refusedRest.status).toBe(429);
    expect(refusedRest.body.error).toMatchObject({ code: 'rate_limited', details: { retryAfterSeconds: 60 } });
    expect(refusedRest.headers.get('retry-after')).toBe('60');
    expect(everything(server.ctx)).toBe(before);
  });
});
