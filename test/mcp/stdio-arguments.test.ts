import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, TEST_KEY } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

/**
 * MCP over stdio with raw JSON-RPC lines (an SDK client would rebuild the arguments object and
 * lose the key under test): a `__proto__` argument and a 5,000-deep one, as over HTTP.
 */
describe('MCP over stdio: arguments refused as over HTTP and REST', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-stdio-args-'));
  const db = join(dir, 'o.db');
  let child: ChildProcessWithoutNullStreams;
  const replies = new Map<number, (reply: any) => void>();
  const send = (id: number, method: string, params: string): Promise<any> =>
    new Promise((resolve) => {
      replies.set(id, resolve);
      child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}\n`);
    });

  beforeAll(async () => {
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(fixture()));
    execFileSync(process.execPath, [BIN, 'seed', '--file', file, '--db', db]);
    child = spawn(process.execPath, [BIN, 'mcp', '--db', db], {
      env: { ...(process.env as Record<string, string>), OUTREACH_API_KEY: TEST_KEY, OUTREACH_ENV: '', OUTREACH_TOOLSETS: 'manage', LOG_LEVEL: 'warn' },
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const reply = JSON.parse(line) as { id?: number };
      if (typeof reply.id === 'number') replies.get(reply.id)?.(reply);
    });
    const init = await send(1, 'initialize', '{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}');
    expect(init.result.serverInfo.name).toBeTruthy();
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  });
  afterAll(() => {
    child?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  const errorOf = (reply: any) => {
    expect(reply.error, JSON.stringify(reply.error)).toBeUndefined();
    expect(reply.result.isError).toBe(true);
    return JSON.parse(reply.result.content[0].text).error;
  };

  it('refuses a top-level __proto__ by name', async () => {
    const reply = await send(2, 'tools/call', '{"name":"create_campaign","arguments":{"__proto__":{"x":1},"name":"Proto"}}');
    expect(errorOf(reply)).toMatchObject({ code: 'validation_error', details: { fields: ['__proto__'] } });
  });

  it('answers a 5,000-deep argument of a tool that confirms with a validation_error, not -32603', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const reply = await send(3, 'tools/call', `{"name":"start_campaign","arguments":{"campaignId":"cmp_q4","x":${deep}}}`);
    expect(errorOf(reply)).toMatchObject({ code: 'validation_error' });
  });

  it('refuses a message over the 128 KiB body limit, as HTTP does with 413, and runs nothing of it', async () => {
    const leads = Array.from({ length: 100 }, (_, i) => ({ networkUrl: `https://www.linkedin.com/in/big-${i}`, personalization: 'x'.repeat(1400) }));
    const big = JSON.stringify({ name: 'add_leads_batch', arguments: { campaignId: 'cmp_q4', leads } });
    expect(big.length).toBeGreaterThan(128 * 1024);
    const reply = await send(4, 'tools/call', big);
    expect(reply.result).toBeUndefined();
    expect(reply.error).toMatchObject({ code: -32600, data: { error: { code: 'validation_error', details: { maxBytes: 131072 } } } });
    // Nothing of it was added.
    const listed = await send(5, 'tools/call', '{"name":"list_leads","arguments":{"campaignId":"cmp_q4","limit":100}}');
    const urls = JSON.parse(listed.result.content[0].text).leads.map((l: { networkUrl: string }) => l.networkUrl);
    expect(urls.filter((u: string) => u.includes('/in/big-'))).toEqual([]);
    // Just under the limit is served.
    const small = JSON.stringify({ name: 'add_leads_batch', arguments: { campaignId: 'cmp_q4', leads: leads.slice(0, 80) } });
    expect(small.length).toBeLessThan(120 * 1024);
    const served = await send(6, 'tools/call', small);
    expect(served.error).toBeUndefined();
    expect(JSON.parse(served.result.content[0].text).summary.created).toBe(80);
  });
});
