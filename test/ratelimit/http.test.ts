import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { workspace } from '../../src/db/schema.js';
import { serverHost } from '../../src/server.js';
import type { Tool } from '../../src/tools/define.js';
import { callTool, startTestServer, TEST_KEY, testCtx, type TestServer } from '../helpers.js';
import { parseLimitField, probeTool } from './probe.js';

const BAD_KEY = 'sk_test_guess_0000000000000000000000000';

/** A raw MCP tools/call over HTTP, for status codes and headers the SDK client hides. */
const rawMcp = (url: string, key: string | null) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(key === null ? {} : { 'X-API-Key': key }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_credits', arguments: {} } }),
  });

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('RateLimit header fields on /public/v1', () => {
  it('a success names the policies that applied, in the draft syntax', async () => {
    server = await startTestServer();
    const r = await server.rest('/credits');
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-policy')).toBe('"global";q=120;w=60');
    expect(r.headers.get('ratelimit')).toBe('"global";r=119;t=1');
    expect(r.headers.get('retry-after')).toBeNull();
    // Exposed to browsers, too.
    const cors = await fetch(`${server.url}/public/v1/credits`, { headers: { Origin: 'http://example.test', 'X-API-Key': TEST_KEY } });
    expect(cors.headers.get('access-control-expose-headers')).toMatch(/RateLimit-Policy/);
  });

  it('an unknown route is 404 with the global policy, and counts against it', async () => {
    server = await startTestServer();
    await server.rest('/credits');
    const r = await server.rest('/no-such-thing');
    expect(r.status).toBe(404);
    expect(parseLimitField(r.headers.get('ratelimit'))).toEqual({ global: { r: 118, t: 1 } });
  });

  it('a 401 carries the failed-authentication policy of the client address', async () => {
    server = await startTestServer();
    const r = await server.rest('/credits', { key: BAD_KEY });
    expect(r.status).toBe(401);
    expect(parseLimitField(r.headers.get('ratelimit-policy'))).toEqual({ auth_failures: { q: 20, w: 60 } });
    expect(parseLimitField(r.headers.get('ratelimit'))).toEqual({ auth_failures: { r: 19, t: 3 } });
  });

  it('a 403 plan_required carries the global policy, uncharged', async () => {
    server = await startTestServer();
    server.ctx.db.update(workspace).set({ plan: 'trial' }).where(eq(workspace.id, 1)).run();
    const r = await server.rest('/credits');
    expect(r.status).toBe(403);
    expect(parseLimitField(r.headers.get('ratelimit'))).toEqual({ global: { r: 120 } });
  });
});

describe('one bucket for REST and MCP', () => {
  it('exhausting the global limit over REST makes the next MCP call rate_limited; it passes after Retry-After', async () => {
    server = await startTestServer();
    for (let i = 0; i < 120; i++) expect((await server.rest('/credits')).status).toBe(200);
    const rest = await server.rest('/accounts');
    expect(rest.status).toBe(429);
    expect(rest.body.error.code).toBe('rate_limited');
    expect(rest.headers.get('retry-after')).toBe(String(rest.body.error.details.retryAfterSeconds));
    const client = await server.mcp();
    const m = await callTool(client, 'list_campaigns', {});
    expect(m.isError).toBe(true);
    expect(m.body.error).toMatchObject({ code: 'rate_limited', details: { retryAfterSeconds: 1 } });
    server.ctx.clock.advance(1000);
    expect((await callTool(client, 'get_credits')).isError).toBe(false);
  });

  it('and the other way round: MCP calls use up the bucket REST then finds empty', async () => {
    server = await startTestServer({ limits: { globalPerMinute: 3 } });
    const client = await server.mcp();
    for (let i = 0; i < 3; i++) expect((await callTool(client, 'get_credits')).isError).toBe(false);
    const r = await server.rest('/credits');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('20');
    expect(r.body.error.details).toEqual({ retryAfterSeconds: 20 });
    expect(parseLimitField(r.headers.get('ratelimit'))).toEqual({ global: { r: 0, t: 20 } });
    server.ctx.clock.advance(20_000);
    expect((await server.rest('/credits')).status).toBe(200);
  });

  it('a 429 from an account’s spacing or daily quota takes no token from the key; a refused search starts no spacing', async () => {
    server = await startTestServer();
    const lookup = () =>
      server!.rest('/network/profiles/lookup', {
        method: 'POST',
        body: JSON.stringify({ accountId: 'acc_ada', networkUrl: 'https://www.linkedin.com/in/ada-lovelace' }),
      });
    const limits = (r: { headers: Headers }) => parseLimitField(r.headers.get('ratelimit'));
    const first = await lookup();
    expect(first.status).toBe(200);
    expect(limits(first)).toMatchObject({ global: { r: 119 }, profile_lookup: { r: 4 } });
    for (let i = 0; i < 3; i++) {
      const spaced = await lookup();
      expect([spaced.status, spaced.body.error.code]).toEqual([429, 'rate_limited']);
      expect(spaced.body.error.message).toMatch(/every 20 seconds/);
      expect(limits(spaced)).toMatchObject({ global: { r: 119 }, profile_lookup: { r: 4 } });
    }
    // Over MCP too: the same buckets, still untouched by the refusals.
    const client = await server.mcp();
    const m = await callTool(client, 'lookup_profile', { accountId: 'acc_ada', networkUrl: 'https://www.linkedin.com/in/ada-lovelace' });
    expect(m.body.error.code).toBe('rate_limited');
    expect(limits(await server.rest('/credits'))).toMatchObject({ global: { r: 118 } });

    // A search the network refuses (a cursor of another search) is no accepted search: the next page is not spaced out.
    const search = (extra: Record<string, unknown>) =>
      server!.rest('/network/search', { method: 'POST', body: JSON.stringify({ accountId: 'acc_nav', query: 'cto', limit: 2, ...extra }) });
    const forged = await search({ cursor: 'Zm9yZ2VkOjM' });
    expect([forged.status, forged.body.error.code]).toEqual([400, 'validation_error']);
    expect((await search({})).status).toBe(200);
    expect((await search({})).status).toBe(429);
  });

  describe('per-route classes', () => {
    let http: Server | undefined;
    afterEach(() => new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve())));

    /** The real app over probe tools with classes, since the classed routes come from other modules. */
    async function serve(tools: Tool[]) {
      const ctx = testCtx();
      const { app } = serverHost(ctx, { host: '127.0.0.1', tools });
      http = await new Promise<Server>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      http.on('close', () => ctx.db.$client.close());
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const rest = (path: string) =>
        fetch(`${url}/public/v1${path}`, { method: 'POST', headers: { 'X-API-Key': TEST_KEY, 'content-type': 'application/json' }, body: '{}' });
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
      return { ctx, rest, client };
    }

    it('a class drawn down over REST is empty for MCP, and vice versa', async () => {
      const start = probeTool('campaign_start_pause', 'probe_start');
      const pause = probeTool('campaign_start_pause', 'probe_pause');
      const { ctx, rest, client } = await serve([start, pause]);
      for (let i = 0; i < 30; i++) expect((await rest(i % 2 ? '/probe/probe_start' : '/probe/probe_pause')).status).toBe(200);
      const m = await callTool(client, 'probe_pause');
      expect(m.body.error).toMatchObject({ code: 'rate_limited', details: { retryAfterSeconds: 2 } });
      ctx.clock.advance(2000);
      expect((await callTool(client, 'probe_start')).isError).toBe(false);
      const r = await rest('/probe/probe_pause');
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('2');
      expect(parseLimitField(r.headers.get('ratelimit'))).toMatchObject({ campaign_start_pause: { r: 0, t: 2 } });
      expect(start.runs() + pause.runs()).toBe(31);
      await client.close();
    });
  });
});

describe('failed-authentication guard (per client address)', () => {
  it('REST: 20 bad keys a minute are 401, the 21st attempt is 429 even with a good key; it lifts after Retry-After', async () => {
    server = await startTestServer();
    for (let i = 0; i < 20; i++) expect((await server.rest('/credits', { key: BAD_KEY })).status).toBe(401);
    const blocked = await server.rest('/credits', { key: BAD_KEY });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(blocked.body.error.message).toMatch(/failed authentication/);
    expect(blocked.headers.get('retry-after')).toBe('3');
    expect(blocked.body.error.details).toEqual({ retryAfterSeconds: 3 });
    // A blocked address learns nothing from a correct guess either.
    expect((await server.rest('/credits')).status).toBe(429);
    server.ctx.clock.advance(3000);
    expect((await server.rest('/credits')).status).toBe(200);
    expect((await server.rest('/credits', { key: BAD_KEY })).status).toBe(401);
    expect((await server.rest('/credits', { key: BAD_KEY })).status).toBe(429);
  });

  it('MCP over HTTP shares the guard with REST', async () => {
    server = await startTestServer();
    for (let i = 0; i < 10; i++) expect((await server.rest('/credits', { key: BAD_KEY })).status).toBe(401);
    for (let i = 0; i < 10; i++) expect((await rawMcp(server.url, BAD_KEY)).status).toBe(401);
    const res = await rawMcp(server.url, TEST_KEY);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
  });

  it('successful requests and missing keys are not counted', async () => {
    server = await startTestServer();
    for (let i = 0; i < 25; i++) expect((await server.rest('/credits', { key: null })).status).toBe(401);
    for (let i = 0; i < 25; i++) expect((await rawMcp(server.url, null)).status).toBe(401);
    for (let i = 0; i < 19; i++) expect((await server.rest('/credits', { key: BAD_KEY })).status).toBe(401);
    expect((await server.rest('/credits')).status).toBe(200);
    expect((await server.rest('/credits', { key: BAD_KEY })).status).toBe(401);
    expect((await server.rest('/credits', { key: BAD_KEY })).status).toBe(429);
  });
});
