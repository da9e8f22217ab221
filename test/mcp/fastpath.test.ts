import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { COPIED_FROM } from '../../src/mcp/fast.js';
import { mcpPostHandler } from '../../src/mcp/http.js';
import { readRawBody } from '../../src/http/body.js';
import { tools } from '../../src/tools/index.js';
import { RELAXED_LIMITS, TEST_KEY, testCtx } from '../helpers.js';

/**
 * The fast path (one long-lived server behind a RequestMux) must answer exactly as the SDK's
 * stateless transport does. One app serves both on the same database: /fast with the fast
 * path, /sdk with every request through the SDK transport.
 */
const ctx = testCtx({ limits: RELAXED_LIMITS });
let base = '';
let close: () => Promise<void>;

beforeAll(async () => {
  const app = express();
  app.set('query parser', 'simple');
  app.use((_req, res, next) => {
    res.locals.requestId = 'req-fast';
    next();
  });
  app.post('/fast', readRawBody, mcpPostHandler(ctx, tools));
  app.post('/sdk', readRawBody, mcpPostHandler(ctx, tools, { fastPath: false }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

const sdkHandled = vi.spyOn(StreamableHTTPServerTransport.prototype, 'handleRequest');
// A block body: a function returned from beforeEach would be called as its teardown.
beforeEach(() => {
  sdkHandled.mockClear();
});

interface Reply {
  status: number;
  contentType: string | undefined;
  contentLength: string | undefined;
  body: string;
}

type Headers = Record<string, string | string[]>;
const MCP_HEADERS: Headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY };

/** A POST over node:http, so a header may repeat (an array value). */
function post(path: string, body: string, headers: Headers = MCP_HEADERS): Promise<Reply> {
  const [host, port] = base.split(':');
  return new Promise((resolve, reject) => {
    const req = request({ host, port, method: 'POST', path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          contentLength: res.headers['content-length'],
          body: text,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends the same request to both routes; returns the fast route's reply and whether the SDK transport served it. */
async function both(query: string, body: unknown, headers?: Headers): Promise<{ reply: Reply; viaSdk: boolean }> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const reply = await post(`/fast${query}`, text, headers);
  const viaSdk = sdkHandled.mock.calls.length > 0;
  const sdk = await post(`/sdk${query}`, text, headers);
  expect(sdkHandled.mock.calls.length, 'the /sdk route goes through the SDK transport').toBeGreaterThan(viaSdk ? 1 : 0);
  expect(reply, text).toEqual(sdk);
  return { reply, viaSdk };
}

const call = (id: unknown, name: string, args?: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('the MCP fast path answers as the SDK transport does', () => {
  it('was compared against the installed SDK and HTTP adapter versions', () => {
    for (const [name, version] of Object.entries(COPIED_FROM)) {
      const manifest = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
      const installed = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
      expect(installed, `${name} changed: compare the fast path with the SDK transport again, then update COPIED_FROM in src/mcp/fast.ts`).toBe(version);
    }
  });

  const fast: [string, string, unknown][] = [
    [
      'initialize',
      '',
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    ],
    [
      'initialize, unknown version',
      '',
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    ],
    ['initialize without params', '', { jsonrpc: '2.0', id: 0, method: 'initialize' }],
    ['tools/list', '', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['tools/list narrowed by the query', '?tools=get_credits,get_campaign&readonly=1', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }],
    ['tools/call', '', call(1, 'get_credits', {})],
    ['tools/call, string id', '', call('abc', 'get_campaign', { campaignId: 'cmp_q4' })],
    ['tools/call without arguments', '', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_credits' } }],
    ['tools/call, domain error', '', call(3, 'get_campaign', { campaignId: 'cmp_nope' })],
    ['tools/call, invalid arguments', '', call(4, 'list_accounts', { limit: '5' })],
    ['tools/call, unknown tool', '', call(5, 'no_such_tool', {})],
    ['tools/call, tool outside the query', '?tools=get_credits', call(6, 'get_campaign', { campaignId: 'cmp_q4' })],
    ['tools/call, write replayed by idempotency key', '', call(7, 'pause_campaign', { campaignId: 'cmp_running', idempotencyKey: 'fast-path-1' })],
    ['tools/call, no name', '', { jsonrpc: '2.0', id: 8, method: 'tools/call', params: {} }],
    ['tools/call, arguments not an object', '', call(9, 'get_credits', 'x')],
    ['tools/call, arguments an array', '', call(9, 'get_credits', [])],
    ['tools/call without params', '', { jsonrpc: '2.0', id: 9, method: 'tools/call' }],
    [
      'tools/call with _meta',
      '',
      { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'get_credits', arguments: {}, _meta: { progressToken: 'p' } } },
    ],
    ['tools/call as a task', '', { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'get_credits', arguments: {}, task: { ttl: 1000 } } }],
    ['ping', '', { jsonrpc: '2.0', id: 12, method: 'ping' }],
    ['unknown method', '', { jsonrpc: '2.0', id: 13, method: 'resources/list' }],
    ['logging/setLevel (no logging capability)', '', { jsonrpc: '2.0', id: 14, method: 'logging/setLevel', params: { level: 'info' } }],
  ];
  it.each(fast)('%s (fast path)', async (_name, query, body) => {
    const { reply, viaSdk } = await both(query, body);
    expect(viaSdk).toBe(false);
    expect(reply.status).toBe(200);
  });

  it('accepts a supported MCP-Protocol-Version on the fast path', async () => {
    const { reply, viaSdk } = await both('', call(1, 'get_credits', {}), { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' });
    expect(viaSdk).toBe(false);
    expect(reply.status).toBe(200);
  });

  const sdk: [string, unknown, Headers | undefined, number][] = [
    ['a batch', [call(1, 'get_credits', {}), { jsonrpc: '2.0', id: 2, method: 'ping' }], undefined, 200],
    ['a batch with a malformed tools/call', [call(1, 'get_credits', []), { jsonrpc: '2.0', id: 2, method: 'tools/call' }], undefined, 200],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, undefined, 202],
    ['a response', { jsonrpc: '2.0', id: 1, result: {} }, undefined, 202],
    ['an unknown top-level member', { ...call(1, 'get_credits', {}), extra: true }, undefined, 400],
    ['a fractional id', call(1.5, 'get_credits', {}), undefined, 400],
    ['params that are not an object', { jsonrpc: '2.0', id: 1, method: 'ping', params: 5 }, undefined, 400],
    ['a JSON scalar', 5, undefined, 400],
    ['an unsupported MCP-Protocol-Version', call(1, 'get_credits', {}), { ...MCP_HEADERS, 'mcp-protocol-version': '1999-01-01' }, 400],
    [
      'Accept without text/event-stream',
      call(1, 'get_credits', {}),
      { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': TEST_KEY },
      406,
    ],
    ['no Accept', call(1, 'get_credits', {}), { 'content-type': 'application/json', 'x-api-key': TEST_KEY }, 406],
    ['a repeated Content-Type', call(1, 'get_credits', {}), { ...MCP_HEADERS, 'content-type': ['application/json', 'application/json'] }, 415],
  ];
  it.each(sdk)('%s (SDK transport)', async (_name, body, headers, status) => {
    const { reply, viaSdk } = await both('', body, headers);
    expect(viaSdk).toBe(true);
    expect(reply.status).toBe(status);
  });

  it('keeps concurrent requests that share a JSON-RPC id apart', async () => {
    const asks = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? { query: '?tools=get_credits', body: call(1, 'get_campaign', { campaignId: 'cmp_q4' }), expect: 'not_found' }
        : i % 3 === 1
          ? { query: '', body: call(1, 'get_campaign', { campaignId: 'cmp_q4' }), expect: 'cmp_q4' }
          : { query: '?readonly=1', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, expect: 'list' },
    );
    const replies = await Promise.all(asks.map((a) => post(`/fast${a.query}`, JSON.stringify(a.body))));
    expect(sdkHandled).not.toHaveBeenCalled();
    replies.forEach((r, i) => {
      const m = JSON.parse(r.body);
      expect(m.id).toBe(1);
      const want = asks[i]!.expect;
      if (want === 'list') expect(m.result.tools.every((t: any) => t.annotations.readOnlyHint)).toBe(true);
      else if (want === 'not_found') expect(JSON.parse(m.result.content[0].text).error.code).toBe('not_found');
      else expect(m.result.structuredContent.id).toBe('cmp_q4');
    });
  });
});
