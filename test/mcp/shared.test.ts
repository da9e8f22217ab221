import { Server, type ServerContext } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/core/auth/keys.js';
import { CallChannel, whenAborted } from '../../src/mcp/channel.js';
import type { McpScope } from '../../src/mcp/server.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

/**
 * Plain calls share one server instance per era (src/mcp/http.ts, sharedInstance): the caller's
 * scope travels with each request, requests of several callers that carry the same JSON-RPC id
 * stay apart, and a client that goes away cancels its call.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ limits: RELAXED_LIMITS });
});
afterAll(() => server.close());

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'shared-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One request in either era, as its clients send it (2026-07-28: the envelope and its standard headers). */
async function rpc(era: 'legacy' | 'modern', key: string, method: string, params: Record<string, unknown>): Promise<any> {
  const headers: Record<string, string> = { ...HEADERS, 'x-api-key': key };
  let body = { jsonrpc: '2.0', id: 1, method, params };
  if (era === 'modern') {
    Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method }, typeof params.name === 'string' ? { 'mcp-name': params.name } : {});
    body = { ...body, params: { ...params, _meta: MODERN_META } };
  }
  const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return res.json();
}

describe.each(['legacy', 'modern'] as const)('plain calls on the shared %s instance', (era) => {
  it("list each caller's own tools, and call with each caller's own key, when their requests overlap with the same id", async () => {
    const drafts = createApiKey(server.ctx, 'test', `drafts-${era}`, { toolsets: ['drafts'] }).key;
    const rounds = await Promise.all(
      Array.from({ length: 4 }, () =>
        Promise.all([
          rpc(era, TEST_KEY, 'tools/list', {}),
          rpc(era, drafts, 'tools/list', {}),
          rpc(era, TEST_KEY, 'tools/call', { name: 'get_credits', arguments: {} }),
          rpc(era, drafts, 'tools/call', { name: 'get_credits', arguments: {} }),
        ]),
      ),
    );
    for (const [full, scoped, call, refused] of rounds) {
      for (const reply of [full, scoped, call, refused]) expect(reply.id).toBe(1);
      const fullNames = full.result.tools.map((t: { name: string }) => t.name);
      const scopedNames = scoped.result.tools.map((t: { name: string }) => t.name);
      expect(fullNames).toContain('get_credits');
      expect(scopedNames).toContain('list_drafts');
      expect(scopedNames).not.toContain('get_credits');
      expect(scopedNames.length).toBeLessThan(fullNames.length);
      expect(call.result.structuredContent).toMatchObject({ credits: expect.any(Number) });
      // The drafts key may not read credits: the pipeline's 403, as over REST.
      expect(refused.result.isError).toBe(true);
      expect(JSON.parse(refused.result.content[0].text).error.code).toBe('forbidden');
    }
  });

  it('stop answering a revoked key at once', async () => {
    const { id, key } = createApiKey(server.ctx, 'test', `revoked-${era}`);
    expect((await rpc(era, key, 'tools/call', { name: 'get_credits', arguments: {} })).result.structuredContent).toBeDefined();
    expect(revokeApiKey(server.ctx, id)).toBe(true);
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
  });
});

describe('the in-process connection of a shared instance', () => {
  /** An SDK server behind serveStdio on a CallChannel, as http.ts builds one; its handler waits to be cancelled. */
  function served(): { channel: CallChannel; signals: AbortSignal[]; scopes: unknown[] } {
    const channel = new CallChannel();
    const signals: AbortSignal[] = [];
    const scopes: unknown[] = [];
    serveStdio(
      () => {
        const s = new Server({ name: 'shared-test', version: '1' }, { capabilities: { tools: {} } });
        s.setRequestHandler('tools/list', async (_request, rc: ServerContext) => {
          scopes.push(channel.scopeFor(rc));
          signals.push(rc.mcpReq.signal);
          if ((channel.scopeFor(rc) as unknown as { wait: boolean }).wait) await new Promise((resolve) => rc.mcpReq.signal.addEventListener('abort', resolve));
          return { tools: [] };
        });
        return s;
      },
      { transport: channel },
    );
    return { channel, signals, scopes };
  }
  const request = { jsonrpc: '2.0' as const, id: 7, method: 'tools/list', params: {} };

  it("answers under the client's own id, each request with its own scope", async () => {
    const { channel, scopes } = served();
    const a = { who: 'a' } as unknown as McpScope;
    const b = { who: 'b' } as unknown as McpScope;
    const [ra, rb] = await Promise.all([
      channel.exchange(request, a, whenAborted(new AbortController().signal)),
      channel.exchange(request, b, whenAborted(new AbortController().signal)),
    ]);
    expect(ra).toMatchObject({ id: 7, result: { tools: [] } });
    expect(rb).toMatchObject({ id: 7, result: { tools: [] } });
    expect(scopes).toEqual([a, b]);
  });

  it('cancels the call of a client that went away: its handler is aborted and the exchange settles with no reply', async () => {
    const { channel, signals } = served();
    const gone = new AbortController();
    const reply = channel.exchange(request, { wait: true } as unknown as McpScope, whenAborted(gone.signal));
    await expect.poll(() => signals.length).toBe(1);
    gone.abort();
    expect(await reply).toBeUndefined();
    await expect.poll(() => signals[0]?.aborted).toBe(true);
    // The instance goes on serving others.
    expect(await channel.exchange(request, {} as McpScope, whenAborted(new AbortController().signal))).toMatchObject({ id: 7, result: { tools: [] } });
  });

  it('delivers nothing for a client already gone, and cancels nothing', async () => {
    const { channel, scopes } = served();
    const gone = new AbortController();
    gone.abort();
    expect(await channel.exchange(request, { who: 'gone' } as unknown as McpScope, whenAborted(gone.signal))).toBeUndefined();
    const here = { who: 'here' } as unknown as McpScope;
    expect(await channel.exchange(request, here, whenAborted(new AbortController().signal))).toMatchObject({ id: 7, result: { tools: [] } });
    expect(scopes).toEqual([here]);
  });
});
