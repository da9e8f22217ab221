import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverHost } from '../../src/server.js';
import { tools } from '../../src/tools/index.js';
import { RELAXED_LIMITS, TEST_KEY, testCtx } from '../helpers.js';

/**
 * MCP POSTs answered before Express (src/mcp/edge.ts) get the answers the Express route gives:
 * the same server over the same database, once with the edge and once Express only, compared
 * status, headers and body, for every kind of request the edge takes; and the edge leaves the
 * rest to Express.
 */
// Two databases from the same fixture, so neither side's requests change what the other answers.
const ctx = testCtx({ limits: RELAXED_LIMITS });
const twin = testCtx({ limits: RELAXED_LIMITS });
const servers: Server[] = [];
let withEdge: string;
let expressOnly: string;
/** How many requests reached Express on the server with the edge. */
let viaExpress = 0;

async function listen(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  // The host's own composition (the faces' edges, then the app), with Express counted: Express
  // gives every response it handles its `locals` as it starts, and an edge that takes a request
  // never hands it on.
  const { handler } = serverHost(ctx, { host: '127.0.0.1', tools });
  withEdge = await listen((req, res) => {
    handler(req, res);
    if ((res as { locals?: unknown }).locals !== undefined) viaExpress++;
  });
  // The same host's Express app alone, without the edges.
  expressOnly = await listen(serverHost(twin, { host: '127.0.0.1', tools }).app);
  // The front door learns the Host from a first request, as on any server.
  for (const base of [withEdge, expressOnly]) await fetch(`http://${base}/health`);
});
afterAll(async () => {
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function post(base: string, path: string, body: string, headers: Record<string, string>): Promise<Reply> {
  const [host, port] = base.split(':');
  return new Promise((resolve, reject) => {
    const req = request({ host, port, method: 'POST', path, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const LEGACY = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modern = (method: string, name?: string) => ({
  ...LEGACY,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});
const rpc = (method: string, params?: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

/** What must agree: everything but the per-request id and date, and the server's own port. */
const comparable = (r: Reply, base: string) => {
  const { 'x-request-id': _id, date: _date, ...headers } = r.headers;
  return JSON.parse(JSON.stringify({ status: r.status, headers, body: r.body }).replaceAll(base, 'HOST')) as unknown;
};

describe('MCP at the edge', () => {
  it.each<[string, string, string, Record<string, string>]>([
    ['2025 tools/call', '/mcp', rpc('tools/call', { name: 'get_campaign', arguments: { campaignId: 'cmp_q4' } }), LEGACY],
    ['2025 tools/call on /', '/', rpc('tools/call', { name: 'get_credits', arguments: {} }), LEGACY],
    ['2025 initialize', '/mcp', rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }), LEGACY],
    ['2025 tools/list', '/mcp', rpc('tools/list'), LEGACY],
    ['2025 invalid arguments', '/mcp', rpc('tools/call', { name: 'list_accounts', arguments: { limit: '5' } }), LEGACY],
    ['2025 malformed call', '/mcp', rpc('tools/call', { name: 'get_credits', arguments: [] }), LEGACY],
    ['2025 batch', '/mcp', `[${rpc('ping', undefined, 1)},${rpc('tools/call', { name: 'get_credits', arguments: {} }, 2)}]`, LEGACY],
    ['2025 notification', '/mcp', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), LEGACY],
    ['2025 Accept without event streams', '/mcp', rpc('ping'), { ...LEGACY, accept: 'application/json' }],
    ['not JSON', '/mcp', '{"jsonrpc":', LEGACY],
    ['a bad key', '/mcp', rpc('ping'), { ...LEGACY, 'x-api-key': 'sk_test_not_a_real_key_000000000000000' }],
    ['a bad bearer token', '/mcp', rpc('ping'), { ...LEGACY, 'x-api-key': '', authorization: 'Bearer nope' }],
    ['2026 server/discover', '/mcp', rpc('server/discover', { _meta: META }), modern('server/discover')],
    ['2026 tools/call', '/mcp', rpc('tools/call', { name: 'get_credits', arguments: {}, _meta: META }), modern('tools/call', 'get_credits')],
    ['2026 unknown tool', '/mcp', rpc('tools/call', { name: 'nope', arguments: {}, _meta: META }), modern('tools/call', 'nope')],
    ['2026 missing envelope', '/mcp', rpc('tools/call', { name: 'get_credits', arguments: {} }), modern('tools/call', 'get_credits')],
    ['another media type', '/mcp', rpc('tools/call', { name: 'get_credits', arguments: {} }), { ...LEGACY, 'content-type': 'text/plain' }],
    ['a JSON media type in another charset', '/mcp', rpc('ping'), { ...LEGACY, 'content-type': 'application/json; charset=latin1' }],
    ['a body over the limit', '/mcp', rpc('tools/call', { name: 'get_credits', arguments: { pad: 'x'.repeat(130 * 1024) } }), LEGACY],
    ['2026 headers that disagree', '/mcp', rpc('tools/call', { name: 'get_credits', arguments: {}, _meta: META }), modern('tools/call', 'list_accounts')],
  ])('%s: the same answer, from the edge', async (_name, path, body, headers) => {
    viaExpress = 0;
    const edge = await post(withEdge, path, body, headers);
    expect(viaExpress).toBe(0);
    const express = await post(expressOnly, path, body, headers);
    expect(comparable(edge, withEdge)).toEqual(comparable(express, expressOnly));
  });

  it.each<[string, string, Record<string, string>]>([
    ['a query string', '/mcp?readonly=1', LEGACY],
    ['no key', '/mcp', { ...LEGACY, 'x-api-key': '' }],
    ['a forwarded request', '/mcp', { ...LEGACY, 'x-forwarded-for': '10.0.0.1' }],
    ['another path', '/mcp/', LEGACY],
  ])('leaves %s to Express', async (_name, path, headers) => {
    viaExpress = 0;
    const r = await post(withEdge, path, rpc('tools/list'), headers);
    expect(viaExpress).toBe(1);
    expect(r.status).toBeGreaterThan(0);
  });

  it('reads a chunked body and a gzip-compressed one as Express does: the same answers, from the edge', async () => {
    const body = Buffer.from(rpc('tools/call', { name: 'get_credits', arguments: {} }));
    const sends: [string, Buffer[], Record<string, string>][] = [
      ['chunked', [body.subarray(0, 20), body.subarray(20)], LEGACY],
      ['gzip', [gzipSync(body)], { ...LEGACY, 'content-encoding': 'gzip' }],
      ['cut short', [body.subarray(0, 20)], { ...LEGACY, 'content-length': String(body.length) }],
    ];
    for (const [name, chunks, headers] of sends) {
      viaExpress = 0;
      const edge = await send(withEdge, chunks, headers);
      expect(viaExpress, name).toBe(0);
      const express = await send(expressOnly, chunks, headers);
      expect(comparable(edge, withEdge), name).toEqual(comparable(express, expressOnly));
    }
  });
});

/** A POST to /mcp written in `chunks` (chunked unless the headers give a length; a shorter body than announced ends the request there). */
function send(base: string, chunks: Buffer[], headers: Record<string, string>): Promise<Reply> {
  const [host, port] = base.split(':');
  return new Promise((resolve, reject) => {
    const req = request({ host, port, method: 'POST', path: '/mcp', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', (err) => (headers['content-length'] ? resolve({ status: 0, headers: {}, body: err.message }) : reject(err)));
    for (const chunk of chunks) req.write(chunk);
    if (headers['content-length']) {
      // The server waits for the rest of the announced body: end the connection under it.
      setTimeout(() => req.destroy(), 200);
    } else req.end();
  });
}
