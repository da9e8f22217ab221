import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tools } from '../../src/tools/index.js';
import { fixture } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;
const SCOPED = 'sk_test_scoped_stdio_key_000000000000001';

/**
 * MCP over stdio with a scoped key from a workspace file: the listing holds only its tools,
 * it sees only its campaign, and a write is refused with forbidden, as over HTTP.
 */
describe('MCP over stdio with a scoped key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-stdio-scope-'));
  const db = join(dir, 'o.db');
  let child: ChildProcessWithoutNullStreams;
  const replies = new Map<number, (reply: any) => void>();
  let next = 1;
  const send = (method: string, params: unknown): Promise<any> =>
    new Promise((resolve) => {
      const id = next++;
      replies.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const call = async (name: string, args: Record<string, unknown>) => {
    const reply = await send('tools/call', { name, arguments: args });
    return { isError: reply.result.isError === true, body: JSON.parse(reply.result.content[0].text) };
  };

  beforeAll(async () => {
    const ws = fixture() as any;
    ws.apiKeys.push({ key: SCOPED, name: 'client', scope: { readOnly: true, campaignIds: ['cmp_paused'] } });
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(ws));
    execFileSync(process.execPath, [BIN, 'seed', '--file', file, '--db', db]);
    child = spawn(process.execPath, [BIN, 'mcp', '--db', db], {
      env: {
        ...(process.env as Record<string, string>),
        OUTREACH_API_KEY: SCOPED,
        OUTREACH_ENV: '',
        OUTREACH_TOOLSETS: 'manage,triage,audit',
        LOG_LEVEL: 'warn',
      },
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const reply = JSON.parse(line) as { id?: number };
      if (typeof reply.id === 'number') replies.get(reply.id)?.(reply);
    });
    const init = await send('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    expect(init.result.serverInfo.name).toBeTruthy();
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }, 60_000);
  afterAll(() => {
    child?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists only the read tools, sees only its campaign, and is refused a write', async () => {
    const listed = (await send('tools/list', {})).result.tools.map((t: { name: string }) => t.name);
    expect(listed.sort()).toEqual(
      tools
        // Held to a campaign, the key is refused the workspace-wide audit trail.
        .filter((t) => t.annotations.readOnlyHint && t.toolset !== 'audit')
        .map((t) => t.name)
        .sort(),
    );
    const campaigns = await call('list_campaigns', {});
    expect(campaigns.body.campaigns.map((c: { id: string }) => c.id)).toEqual(['cmp_paused']);
    expect((await call('get_campaign', { campaignId: 'cmp_q4' })).body.error.code).toBe('not_found');
    const write = await call('pause_campaign', { campaignId: 'cmp_paused' });
    expect([write.isError, write.body.error.code]).toEqual([true, 'forbidden']);
  });
});
