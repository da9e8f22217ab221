import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTools as tools } from '../../src/tools/index.js';
import { fixture, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { signIn } from '../oauth/helpers.js';
import { requireTool } from '../optional.js';

/**
 * The MCP Inspector CLI, an independent client, lists and calls our tools over HTTP (key and
 * OAuth bearer) and stdio. `--strict` makes it exit 6 on a tool schema that is not portable
 * across model providers. Skipped only when @modelcontextprotocol/inspector is not installed, and never in CI.
 */

function inspectorBin(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json');
    return join(dirname(pkg), 'clients/launcher/build/index.js');
  } catch {
    return null;
  }
}
const bin = inspectorBin();
const outreach = fileURLToPath(new URL('../../bin/outreach.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe.skipIf(!requireTool('@modelcontextprotocol/inspector', bin !== null))('MCP Inspector CLI --strict', () => {
  let server: TestServer;
  let home: string;

  beforeAll(async () => {
    server = await startTestServer();
    home = mkdtempSync(join(tmpdir(), 'inspector-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** Runs the inspector with its own HOME, so it neither reads nor writes the user's catalog. */
  const inspect = (args: string[]) =>
    new Promise<Run>((resolve) => {
      const p = spawn(process.execPath, [bin!, '--cli', ...args], {
        env: { ...process.env, HOME: home, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  /** With --format json the CLI prints one object: { result } on success. */
  const listedNames = (r: Run) => (JSON.parse(r.stdout) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);

  it('HTTP with X-API-Key: tools/list passes --strict and lists the registry', async () => {
    const r = await inspect([`${server.url}/mcp`, '--method', 'tools/list', '--strict', '--format', 'json', '--header', `X-API-Key: ${TEST_KEY}`]);
    expect(r.code, r.stderr).toBe(0);
    // --strict passes with warnings too; the listing must give none (nullable fields as anyOf).
    expect(r.stderr).not.toMatch(/warning/i);
    expect(listedNames(r)).toEqual(tools.map((t) => t.name));
  });

  it('HTTP with an OAuth bearer token: tools/list and a tool call', async () => {
    const { tokens } = await signIn(server);
    const auth = `Authorization: Bearer ${tokens.access_token}`;
    const list = await inspect([`${server.url}/mcp`, '--method', 'tools/list', '--strict', '--format', 'json', '--header', auth]);
    expect(list.code, list.stderr).toBe(0);
    expect(listedNames(list)).toEqual(tools.map((t) => t.name));
    const call = await inspect([`${server.url}/mcp`, '--method', 'tools/call', '--tool-name', 'get_credits', '--format', 'json', '--header', auth]);
    expect(call.code, call.stderr).toBe(0);
    const result = (JSON.parse(call.stdout) as { result: { structuredContent: unknown } }).result;
    expect(result.structuredContent).toEqual((await server.rest('/credits')).body);
  });

  it('HTTP with a bad key fails (the test can fail)', async () => {
    const r = await inspect([
      `${server.url}/mcp`,
      '--method',
      'tools/list',
      '--format',
      'json',
      '--stored-auth-only',
      '--header',
      'X-API-Key: sk_test_wrong_key_000000000000000000000',
    ]);
    expect(r.code).not.toBe(0);
  });

  it('stdio: tools/list passes --strict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inspector-stdio-'));
    try {
      const file = join(dir, 'ws.json');
      const db = join(dir, 'outreach.db');
      writeFileSync(file, JSON.stringify(fixture()));
      const seeded = await new Promise<number | null>((resolve) =>
        spawn(process.execPath, [outreach, 'seed', '--file', file, '--db', db], { stdio: 'ignore' }).on('close', resolve),
      );
      expect(seeded).toBe(0);
      const r = await inspect([
        '--strict',
        '--format',
        'json',
        '-e',
        `OUTREACH_API_KEY=${TEST_KEY}`,
        '-e',
        `OUTREACH_DB=${db}`,
        '-e',
        'LOG_LEVEL=warn',
        '--method',
        'tools/list',
        process.execPath,
        outreach,
        'mcp',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(listedNames(r)).toEqual(tools.map((t) => t.name));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
