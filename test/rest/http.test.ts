import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import cors from 'cors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

/** The headers a browser may read, as the server exposes them. */
const EXPOSED = ['Mcp-Session-Id', 'WWW-Authenticate', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id', 'Idempotent-Replayed'];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A raw request, for what fetch will not send (chunked bodies, odd Host headers). */
function raw(opts: {
  method: string;
  path: string;
  headers?: Record<string, string>;
  chunks?: Buffer[];
}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: opts.method, path: opts.path, headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve({ status: -1, headers: {}, body: '' }) : reject(err),
    );
    for (const c of opts.chunks ?? []) req.write(c);
    req.end();
  });
}

describe('REST facade', () => {
  it('answers top-level bodies with no data wrapper', async () => {
    const r = await server.rest('/credits');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ credits: 100, topUpCredits: 5, lookalikeCredits: 500, lookalikeTopUpCredits: 20, planId: 'growth' });
    expect(r.headers.get('x-request-id')).toMatch(/[0-9a-f-]{36}/);
  });

  it('names a malformed path id in details.fields', async () => {
    for (const bad of ['has%20space', 'a'.repeat(65), 'semi%3Bcolon', '%C3%A9']) {
      const r = await server.rest(`/campaigns/${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', details: { fields: ['campaignId'] } });
    }
    const ok = await server.rest(`/campaigns/${'a'.repeat(64)}`);
    expect(ok.status).toBe(404);
    expect(ok.body.error.code).toBe('not_found');
    expect(ok.body.error.message).toContain('list_campaigns');
  });

  it('parses query strings into typed arguments and validates them', async () => {
    expect((await server.rest('/accounts?limit=1')).body.accounts).toHaveLength(1);
    for (const q of ['limit=0', 'limit=101', 'limit=1.5', 'limit=abc', 'limit=1&limit=2']) {
      const r = await server.rest(`/accounts?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.details.fields).toEqual(['limit']);
    }
    const s = await server.rest('/campaigns?status=RUNNING');
    expect(s.status).toBe(400);
    expect(s.body.error.details.fields).toEqual(['status']);
    for (const bad of ['nope', 'a.b']) {
      const c = await server.rest(`/campaigns?cursor=${bad}`);
      expect(c.status).toBe(400);
      expect(c.body.error.details.fields).toEqual(['cursor']);
    }
  });

  it('follows nextCursor until null', async () => {
    const seen: string[] = [];
    let path = '/campaigns?limit=2';
    for (;;) {
      const r = await server.rest(path);
      expect(r.status).toBe(200);
      seen.push(...r.body.campaigns.map((c: { id: string }) => c.id));
      if (r.body.nextCursor === null) break;
      path = `/campaigns?limit=2&cursor=${encodeURIComponent(r.body.nextCursor)}`;
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  it('refuses bodies over 128 KiB with 413 before reading them, chunked included', async () => {
    const big = Buffer.alloc(128 * 1024 + 1, 'a');
    const sized = await raw({
      method: 'POST',
      path: '/public/v1/campaigns/cmp_q4/start',
      headers: { 'content-type': 'application/json', 'content-length': String(big.length), 'x-api-key': TEST_KEY },
      chunks: [big],
    });
    expect(sized.status).toBe(413);
    expect(JSON.parse(sized.body).error).toMatchObject({ code: 'validation_error', details: { maxBytes: 131072 } });
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(8 * 1024, 'b'));
    const chunked = await raw({
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-api-key': TEST_KEY },
      chunks,
    });
    expect([413, -1]).toContain(chunked.status);
    if (chunked.status === 413) expect(JSON.parse(chunked.body).error.details.maxBytes).toBe(131072);
  });

  it('reads a body however it arrives: in pieces of a declared length, chunked, gzip-compressed; a client gone mid-body costs nothing', async () => {
    const call = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_credits', arguments: {} } }));
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY };
    const credits = (r: { status: number; body: string }) => {
      expect(r.status).toBe(200);
      const reply = JSON.parse(r.body);
      expect(reply.id).toBe(7);
      return reply.result.structuredContent.credits as number;
    };
    const pieces = [call.subarray(0, 5), call.subarray(5, 40), call.subarray(40)];
    const declared = credits(await raw({ method: 'POST', path: '/mcp', headers: { ...headers, 'content-length': String(call.length) }, chunks: pieces }));
    expect(typeof declared).toBe('number');
    expect(credits(await raw({ method: 'POST', path: '/mcp', headers: { ...headers, 'transfer-encoding': 'chunked' }, chunks: pieces }))).toBe(declared);
    const zipped = gzipSync(call);
    const gz = { ...headers, 'content-encoding': 'gzip', 'content-length': String(zipped.length) };
    expect(credits(await raw({ method: 'POST', path: '/mcp', headers: gz, chunks: [zipped] }))).toBe(declared);
    // Half a declared body, then the connection closes: no answer to give, and the server goes on.
    const url = new URL(server.url);
    await new Promise<void>((resolve) => {
      const req = request({ host: url.hostname, port: url.port, method: 'POST', path: '/mcp', headers: { ...headers, 'content-length': String(call.length) } });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(call.subarray(0, 10), () => setTimeout(() => req.destroy(), 50));
    });
    const empty = await raw({ method: 'POST', path: '/mcp', headers: { ...headers, 'content-length': '0' } });
    expect(empty.status).toBe(400);
    expect(credits(await raw({ method: 'POST', path: '/mcp', headers: { ...headers, 'content-length': String(call.length) }, chunks: [call] }))).toBe(declared);
  });

  it('answers 404 not_found for unknown routes, after checking the key', async () => {
    expect((await server.rest('/nope', { key: null })).status).toBe(401);
    const r = await server.rest('/nope');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    const wrongMethod = await server.rest('/credits', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.body.error.message).toContain('GET');
  });
});

describe('discovery', () => {
  it('serves the key-less overview at / and /.well-known/mcp.json', async () => {
    for (const path of ['/', '/.well-known/mcp.json', '/mcp']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ name: 'outreach-mcp', mcpUrl: `${server.url}/mcp`, restBase: `${server.url}/public/v1` });
      expect(body.tools).toContain('get_credits');
      expect(body.auth.apiKey.header).toBe('X-API-Key');
    }
  });

  it('serves llms.txt and health', async () => {
    const txt = await fetch(`${server.url}/llms.txt`);
    expect(txt.headers.get('content-type')).toContain('text/plain');
    const text = await txt.text();
    expect(text).toContain('get_credits (GET /public/v1/credits)');
    expect(text).toContain('get_campaign (GET /public/v1/campaigns/{campaignId})');
    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  it('answers 405 with Allow to a keyless SSE GET and to a DELETE on the MCP paths; a bad key on the GET is 401', async () => {
    for (const path of ['/', '/mcp']) {
      const sse = await fetch(`${server.url}${path}`, { headers: { accept: 'text/event-stream' } });
      expect(sse.status).toBe(405);
      expect(sse.headers.get('allow')).toBe('POST');
      expect(((await sse.json()) as { error: { message: string } }).error.message).toContain('stateless');
      const bad = await fetch(`${server.url}${path}`, { headers: { accept: 'text/event-stream', 'x-api-key': 'sk_test_nope_000000000000000000000000' } });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toContain('resource_metadata=');
      await bad.body?.cancel();
      const del = await fetch(`${server.url}${path}`, { method: 'DELETE' });
      expect(del.status).toBe(405);
      expect(del.headers.get('allow')).toContain('POST');
    }
  });

  it('lets browser clients send the auth headers (CORS)', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://inspector.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, authorization, mcp-protocol-version, content-type',
      },
    });
    expect(res.status).toBe(204);
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const h of ['x-api-key', 'authorization', 'mcp-protocol-version']) expect(allowed).toContain(h);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('names the methods a known path takes, however its literal segments are cased', async () => {
    for (const path of ['/network/search', '/Network/SEARCH/']) {
      const r = await server.rest(path);
      expect(r.status, path).toBe(404);
      expect(r.body.error.message, path).toBe(`GET is not supported on ${path}; use POST.`);
    }
    expect((await server.rest('/network//search')).body.error.message).toMatch(/^No route GET/);
  });

  it('gives every other request the CORS headers the cors package gives it', async () => {
    // The front door sets these two directly (the package's answer is fixed for origin '*'); compare with the package itself.
    const expected = new Map<string, string>();
    const fake = { setHeader: (k: string, v: string) => expected.set(k.toLowerCase(), v), getHeader: () => undefined } as unknown as ServerResponse;
    await new Promise<void>((resolve) =>
      cors({ origin: '*', exposedHeaders: EXPOSED })({ method: 'GET', headers: { origin: 'https://app.example' } } as IncomingMessage, fake, () => resolve()),
    );
    expect([...expected.keys()].sort()).toEqual(['access-control-allow-origin', 'access-control-expose-headers']);
    for (const path of ['/public/v1/credits', '/health', '/mcp', '/public/v1/nope']) {
      const res = await fetch(`${server.url}${path}`, { headers: { origin: 'https://app.example', 'x-api-key': TEST_KEY } });
      const got = Object.fromEntries([...res.headers].filter(([k]) => k.startsWith('access-control-') || k === 'vary'));
      expect(got, path).toEqual(Object.fromEntries(expected));
    }
  });

  it('lists the headers a script may read only for a request that names an Origin', async () => {
    for (const path of ['/public/v1/credits', '/health', '/public/v1/nope']) {
      const res = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': TEST_KEY } });
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-expose-headers'), path).toBeNull();
    }
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(mcp.headers.get('access-control-allow-origin')).toBe('*');
    expect(mcp.headers.get('access-control-expose-headers')).toBeNull();
  });

  it('refuses foreign Host headers on a loopback bind (DNS rebinding)', async () => {
    const evil = await raw({ method: 'GET', path: '/health', headers: { host: 'evil.example:80' } });
    expect(evil.status).toBe(403);
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const good = await raw({ method: 'GET', path: '/health', headers: { host: 'localhost' } });
    expect(good.status).toBe(200);
    // An accepted Host is remembered; a foreign one still fails after it, every time.
    for (const host of ['localhost', 'evil.example:80', 'localhost:1', 'evil.example:80']) {
      const again = await raw({ method: 'GET', path: '/health', headers: { host } });
      expect(again.status, host).toBe(host.startsWith('evil') ? 403 : 200);
    }
  });
});

describe('bodies', () => {
  const post = (body: string, contentType = 'application/json') =>
    raw({
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': contentType, accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY },
      chunks: [Buffer.from(body)],
    });

  it('gives validation_error for a JSON syntax error or a non-JSON content type', async () => {
    const syntax = await post('{"jsonrpc": ');
    expect(syntax.status).toBe(400);
    expect(JSON.parse(syntax.body).error.code).toBe('validation_error');
    const text = await post('{}', 'text/plain');
    expect(text.status).toBe(400);
    expect(JSON.parse(text.body).error.code).toBe('validation_error');
  });
});
