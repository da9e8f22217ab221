import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { workspace } from '../../src/db/schema.js';
import { createLogger } from '../../src/log.js';
import { FrontDoor } from '../../src/http/front-door.js';
import { edgeRefusals } from '../../src/rest/edge.js';
import { serverHost } from '../../src/server.js';
import { defineTool, type Tool } from '../../src/tools/define.js';
import { tools } from '../../src/tools/index.js';
import { TEST_KEY, testCtx } from '../helpers.js';

/** A GET route with a rate class (the registry's GET routes have none). */
const classed: Tool = defineTool({
  name: 'probe_get_classed',
  title: 'Probe',
  description: 'A GET route with a rate class; used by the edge tests only.',
  input: z.strictObject({}),
  output: z.object({ ok: z.boolean() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/probe/classed' },
  rateLimit: 'leads_add',
  handler: () => ({ ok: true }),
});
const toolset = [...tools, classed];

const ctx = testCtx({ limits: { globalPerMinute: 5, perMinute: { leads_add: 2 } } });
const logLines: Record<string, unknown>[] = [];
ctx.log = createLogger('info', { write: (s: string) => logLines.push(JSON.parse(s) as Record<string, unknown>) });
/** URLs the edge answered itself. */
const atEdge: string[] = [];
let withEdge: string;
let expressOnly: string;
const servers: Server[] = [];

async function listen(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const front = new FrontDoor(ctx, true);
  const { app } = serverHost(ctx, { host: '127.0.0.1', tools: toolset, front });
  const edge = edgeRefusals(ctx, toolset, front);
  withEdge = await listen((req, res) => {
    if (edge(req, res)) atEdge.push(req.url ?? '');
    else app(req, res);
  });
  expressOnly = await listen(serverHost(ctx, { host: '127.0.0.1', tools: toolset }).app);
});
afterAll(async () => {
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
});
beforeEach(() => {
  ctx.limits.reset();
  atEdge.length = 0;
});

const VARYING = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function get(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${base}/public/v1${path}`, { ...init, headers: { 'X-API-Key': TEST_KEY, ...(init.headers as Record<string, string>) } });
  const headers = Object.fromEntries([...res.headers].filter(([k]) => !VARYING.has(k)));
  return { status: res.status, headers, body: await res.text() };
}

/** The same request to the server with the edge and to Express alone: the answers must be equal. */
async function both(path: string, init: RequestInit = {}): Promise<Answer> {
  const edge = await get(withEdge, path, init);
  const express = await get(expressOnly, path, init);
  expect(edge, path).toEqual(express);
  return edge;
}

/** Uses up the key's global bucket (5 a minute here); the test clock stands still, so it stays empty. */
async function drainGlobal(): Promise<void> {
  for (let i = 0; i < 5; i++) expect((await get(expressOnly, '/credits')).status).toBe(200);
}

describe('refusals at the edge', () => {
  it('leave every request to Express while no bucket is empty', async () => {
    for (let i = 0; i < 4; i++) expect((await get(withEdge, '/credits')).status).toBe(200);
    expect(atEdge).toEqual([]);
  });

  it('answer a flooded key exactly as the REST adapter does, on every GET route and on unknown ones', async () => {
    await drainGlobal();
    const paths = [
      '/credits',
      '/campaigns',
      '/campaigns/cmp_nope',
      '/campaigns/cmp_nope/',
      '/CAMPAIGNS/cmp_nope',
      '/campaigns/cmp_nope/leads?limit=5&sort=bogus',
      '/activity',
      '/no/such/route',
      '/probe/classed',
    ];
    for (const path of paths) {
      const answer = await both(path);
      expect(answer.status, path).toBe(429);
      expect(JSON.parse(answer.body).error.code).toBe('rate_limited');
      expect(answer.headers['retry-after']).toMatch(/^\d+$/);
      expect(answer.headers['access-control-allow-origin']).toBe('*');
    }
    expect(atEdge).toEqual(paths.map((p) => `/public/v1${p}`));
  });

  it('write the same access-log line as the adapter, tool name included', async () => {
    await drainGlobal();
    logLines.length = 0;
    const res = await fetch(`${withEdge}/public/v1/credits`, { headers: { 'X-API-Key': TEST_KEY, 'X-Request-Id': 'edge-log-1' } });
    expect(res.status).toBe(429);
    expect(res.headers.get('x-request-id')).toBe('edge-log-1');
    expect(atEdge).toEqual(['/public/v1/credits']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toMatchObject({ msg: 'request', requestId: 'edge-log-1', method: 'GET', path: '/public/v1/credits', status: 429, tool: 'get_credits' });
  });

  it('name the class when the route class is what refuses, headers and all', async () => {
    for (let i = 0; i < 2; i++) expect((await get(expressOnly, '/probe/classed')).status).toBe(200);
    const answer = await both('/probe/classed');
    expect(answer.status).toBe(429);
    expect(answer.headers.ratelimit).toContain('"leads_add";r=0');
    expect(atEdge).toEqual(['/public/v1/probe/classed']);
    // The global bucket still has tokens: another route passes to Express and is served.
    expect((await get(withEdge, '/credits')).status).toBe(200);
    expect(atEdge).toEqual(['/public/v1/probe/classed']);
  });

  it('hand to Express whatever they cannot answer as the pipeline would', async () => {
    await drainGlobal();
    // Not a GET, forwarded, an unusual path, or a Host not yet accepted: Express answers, the same 429.
    for (const [path, init] of [
      ['/credits', { method: 'HEAD' }],
      ['/credits', { headers: { 'X-Forwarded-For': '203.0.113.9' } }],
      ['/campaigns/cmp.dot', {}],
    ] as const) {
      expect((await get(withEdge, path, init)).status, path).toBe(429);
    }
    expect(atEdge).toEqual([]);
    // A key that fails earlier stages gets those stages' answers, from Express.
    expect((await get(withEdge, '/credits', { headers: { 'X-API-Key': 'sk_test_not_a_real_key_0000000000000' } })).status).toBe(401);
    ctx.db.update(workspace).set({ plan: 'free' }).run();
    try {
      expect((await both('/credits')).status).toBe(403);
    } finally {
      ctx.db.update(workspace).set({ plan: 'paid' }).run();
    }
    expect(atEdge).toEqual([]);
  });

  it('leave a GET with a body to Express, which bounds it first (413 before 429)', async () => {
    await drainGlobal();
    const big = Buffer.alloc(128 * 1024 + 1, 0x20);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${withEdge}/public/v1/credits`,
        { method: 'GET', headers: { 'X-API-Key': TEST_KEY, 'Content-Length': String(big.length) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(big);
    });
    expect(status).toBe(413);
    expect(atEdge).toEqual([]);
  });
});
