import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTools as tools } from '../../src/tools/index.js';
import { callTool, fixture, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

describe('MCP over streamable HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('lists every registered tool with input and output schemas and all four hints', async () => {
    const client = await server.mcp();
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    for (const t of listed) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      // The house rule: every hint explicit, read-only tools included, so no client guesses a default.
      expect(Object.keys(t.annotations ?? {}).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint']);
    }
    expect(client.getServerVersion()?.name).toBe('outreach-mcp');
  });

  it('returns the REST body as structuredContent and text', async () => {
    const client = await server.mcp();
    const m = await callTool(client, 'get_campaign', { campaignId: 'cmp_q4' });
    const r = await server.rest('/campaigns/cmp_q4');
    expect(m.isError).toBe(false);
    expect(m.body).toEqual(r.body);
  });

  it('reports wrongly typed arguments as isError validation_error naming the field', async () => {
    const client = await server.mcp();
    const m = await callTool(client, 'list_accounts', { limit: '5' });
    expect(m).toEqual({ isError: true, body: { error: { code: 'validation_error', message: expect.any(String), details: { fields: ['limit'] } } } });
    const bad = await callTool(client, 'get_campaign', { campaignId: 'no spaces' });
    expect(bad.body.error.details.fields).toEqual(['campaignId']);
    const missing = await callTool(client, 'get_campaign', {});
    expect(missing.body.error.details.fields).toEqual(['campaignId']);
  });

  it('reports domain errors and unknown tools as isError bodies', async () => {
    const client = await server.mcp();
    const nf = await callTool(client, 'get_campaign', { campaignId: 'cmp_nope' });
    expect(nf.isError).toBe(true);
    expect(nf.body.error.code).toBe('not_found');
    const unknown = await callTool(client, 'no_such_tool', {});
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('serves /mcp and / alike', async () => {
    const post = (path: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const [a, b] = await Promise.all([post('/'), post('/mcp')]);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(a.body.result.tools.length).toBe(tools.length);
  });
});

describe('MCP over stdio (npx outreach mcp)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-stdio-'));
  const db = join(dir, 'o.db');
  const file = join(dir, 'ws.json');

  beforeAll(() => {
    writeFileSync(file, JSON.stringify(fixture()));
    execFileSync(process.execPath, [BIN, 'seed', '--file', file, '--db', db]);
  });

  const connect = async (key: string) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--db', db],
      env: { ...(process.env as Record<string, string>), OUTREACH_API_KEY: key, OUTREACH_ENV: '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };

  it('lists tools and calls them with the key from OUTREACH_API_KEY', async () => {
    const client = await connect(TEST_KEY);
    try {
      const { tools: listed } = await client.listTools();
      expect(listed.map((t) => t.name)).toEqual(tools.map((t) => t.name));
      const m = await callTool(client, 'get_credits');
      expect(m.body.credits).toBe(100);
    } finally {
      await client.close();
    }
  });

  it('answers tool calls with unauthorized for a bad key', async () => {
    const client = await connect('sk_test_not_a_real_key_000000000000000');
    try {
      const m = await callTool(client, 'get_credits');
      expect(m.isError).toBe(true);
      expect(m.body.error.code).toBe('unauthorized');
    } finally {
      await client.close();
    }
  });

  it('refuses to start without OUTREACH_API_KEY, saying so on stderr', () => {
    let stderr = '';
    let status = 0;
    try {
      execFileSync(process.execPath, [BIN, 'mcp', '--db', db], { env: { ...process.env, OUTREACH_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      const e = err as { status: number; stderr: Buffer; stdout: Buffer };
      status = e.status;
      stderr = e.stderr.toString();
      expect(e.stdout.toString()).toBe('');
    }
    expect(status).not.toBe(0);
    expect(stderr).toContain('OUTREACH_API_KEY');
    expect(stderr).not.toContain('    at ');
  });
});
