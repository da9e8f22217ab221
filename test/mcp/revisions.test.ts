import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { modernRpc } from '../transports.js';

/**
 * How the server answers across revisions: a JSON-RPC error on a 2025 revision is an answer
 * (HTTP 200), never the 404 a 2025 client takes for a lost session; and server/discover names
 * every revision served.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const legacyPost = (body: unknown, version = '2025-11-25', accept = 'application/json, text/event-stream') =>
  fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, 'x-api-key': TEST_KEY, 'mcp-protocol-version': version },
    body: JSON.stringify(body),
  });

describe('JSON-RPC errors on the 2025 revisions', () => {
  it('gives the v1 client at 2025-11-25 an McpError -32601 for an unknown method, not a transport error', async () => {
    // The v1 client on purpose: a deployed 2025 client read a 404 as a lost session.
    const client = new ClientV1({ name: 'revisions-v1', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    onTestFinished(() => client.close());
    expect(client.getServerCapabilities()).toBeDefined();
    const error = await client.request({ method: 'outreach/nothing', params: {} }, EmptyResultSchema).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32601);
    // The connection is still good after it.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])('answers -32601 with HTTP 200 on %s, alone and in a batch', async (version) => {
    const single = await legacyPost({ jsonrpc: '2.0', id: 7, method: 'outreach/nothing', params: {} }, version);
    expect(single.status).toBe(200);
    expect(await single.json()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } });
    const batch = await legacyPost([{ jsonrpc: '2.0', id: 8, method: 'outreach/nothing', params: {} }], version);
    expect(batch.status).toBe(200);
    // (The SDK's transport answers a batch of one with the bare reply.)
    const replies = (await batch.json()) as unknown;
    const [reply] = (Array.isArray(replies) ? replies : [replies]) as { id: number; error: { code: number } }[];
    expect(reply).toMatchObject({ id: 8, error: { code: -32601 } });
  });

  it('answers a handler error (an unknown prompt) with HTTP 200 too', async () => {
    const res = await legacyPost({ jsonrpc: '2.0', id: 9, method: 'prompts/get', params: { name: 'no_such_prompt' } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32602);
  });

  it("keeps the transport's own refusals: a body that is not JSON-RPC is 400, a missing Accept type 406", async () => {
    const bad = await legacyPost({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: 3 });
    expect(bad.status).toBe(400);
    const accept = await legacyPost({ jsonrpc: '2.0', id: 1, method: 'outreach/nothing', params: {} }, '2025-11-25', 'text/plain');
    expect(accept.status).toBe(406);
  });

  it('still answers removed methods on 2026-07-28 with 404, as that revision says', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': TEST_KEY,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'ping',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ping',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32601);
  });
});

describe('server/discover', () => {
  it('lists the 2026-07-28 revision, the one it negotiates (the 2025 ones open with initialize)', async () => {
    const found = await modernRpc(
      `${server.url}/mcp`,
      'server/discover',
      {},
      { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    );
    expect(found.result.supportedVersions).toEqual(['2026-07-28']);
    expect(found.result.capabilities.tools).toBeDefined();
    expect(found.result.instructions).toMatch(/Outreach/);
  });

  it('still leads the v2 client, negotiating on its own, to 2026-07-28', async () => {
    const client = new ModernClient({ name: 'revisions-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new ModernTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});
