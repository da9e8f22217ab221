import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../helpers.js';

/** What a new user meets: the start banner, the hints it prints, and the stdio command. */

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;
const tmp = () => mkdtempSync(join(tmpdir(), 'outreach-newcomer-'));
const cleanEnv = () => ({ ...(process.env as Record<string, string>), OUTREACH_DB: '', OUTREACH_ENV: '', OUTREACH_SIM_SPEED: '', OUTREACH_API_KEY: '' });

function run(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...cleanEnv(), ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs a printed command line through the shell, from `cwd`, as a user pasting it would. */
function paste(command: string, cwd: string) {
  const r = spawnSync('/bin/sh', ['-c', command], { cwd, env: cleanEnv(), encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts a server in `cwd` and resolves with its banner once it is complete. */
async function startServer(args: string[], cwd: string): Promise<{ child: ChildProcessWithoutNullStreams; banner: string }> {
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', ...args], { cwd, env: cleanEnv() });
  let banner = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      banner += c;
      if (/Try it:\n.*\/public\/v1\/credits/.test(banner)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`start exited ${code}`)));
  });
  return { child, banner };
}

/** The JSON object printed after a heading line of the banner. */
function jsonAfter(banner: string, heading: string): any {
  const start = banner.indexOf('{', banner.indexOf(heading));
  let depth = 0;
  for (let i = start; i < banner.length; i++) {
    if (banner[i] === '{') depth++;
    if (banner[i] === '}' && --depth === 0) return JSON.parse(banner.slice(start, i + 1));
  }
  throw new Error(`no JSON after "${heading}"`);
}

describe('the start banner, from a server started in one folder, used from another', () => {
  const serverDir = tmp();
  const clientDir = tmp();
  let server: Awaited<ReturnType<typeof startServer>>;
  let base: string;

  beforeAll(async () => {
    // A relative --db, as a user types it: the banner must still name one file wherever it is read.
    server = await startServer(['--db', 'here/outreach.db'], serverDir);
    base = /REST base: (\S+)/.exec(server.banner)![1]!;
  });
  afterAll(() => server.child.kill('SIGTERM'));

  it('prints a stdio config with absolute paths and the database in use, which works from any folder', async () => {
    const config = jsonAfter(server.banner, 'MCP client config over stdio').mcpServers.outreach;
    expect(config.command).toBe(process.execPath);
    expect(config.args).toEqual([expect.stringMatching(/^\//), 'mcp', '--db', join(serverDir, 'here/outreach.db'), '--env', 'development']);
    expect(config.env.OUTREACH_API_KEY).toMatch(/^sk_test_/);
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: { ...cleanEnv(), ...config.env },
      cwd: clientDir,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'newcomer', version: '1.0.0' });
    await client.connect(transport);
    try {
      const credits = await callTool(client, 'get_credits');
      expect(credits.isError).toBe(false);
    } finally {
      await client.close();
    }
    expect(readdirSync(clientDir)).toEqual([]);
  });

  it('says how to watch the demo move at --sim-speed 1', () => {
    expect(server.banner).toMatch(/--sim-speed 1\b/);
    expect(server.banner).toMatch(/restart with --sim-speed \d+/);
  });

  it("the 401 message's hint is a command that works as printed, from another folder", async () => {
    const res = await fetch(`${base}/credits`);
    expect(res.status).toBe(401);
    const message = ((await res.json()) as any).error.message as string;
    const command = /`([^`]+keys create[^`]+)`/.exec(message)?.[1];
    expect(command, message).toBeDefined();
    expect(command).toContain('--env test');
    expect(command).toContain(`--db ${join(serverDir, 'here/outreach.db')}`);
    const created = paste(command!, clientDir);
    expect(created.status, created.stderr).toBe(0);
    const key = /sk_test_[0-9A-Za-z]{32}/.exec(created.stdout)![0];
    expect((await fetch(`${base}/credits`, { headers: { 'X-API-Key': key } })).status).toBe(200);
    expect(readdirSync(clientDir)).toEqual([]);
  });

  it("a second start's key hint is a command that works as printed", async () => {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    server = await startServer(['--db', 'here/outreach.db'], serverDir);
    base = /REST base: (\S+)/.exec(server.banner)![1]!;
    expect(server.banner).not.toMatch(/sk_test_[0-9A-Za-z]{32}/);
    const command = /create one with:\n\s+(.+)\n/.exec(server.banner)?.[1];
    expect(command, server.banner).toContain('keys create --env test --db ');
    const created = paste(command!, clientDir);
    expect(created.status, created.stderr).toBe(0);
    const key = /sk_test_[0-9A-Za-z]{32}/.exec(created.stdout)![0];
    expect((await fetch(`${base}/credits`, { headers: { 'X-API-Key': key } })).status).toBe(200);
  });

  it('says nothing about the sim speed when the demo already moves fast', async () => {
    const fast = await startServer(['--db', 'fast.db', '--sim-speed', '3600'], serverDir);
    fast.child.kill('SIGTERM');
    expect(fast.banner).not.toContain('restart with --sim-speed');
  });
});

describe('outreach mcp and a database that does not exist', () => {
  it('refuses to create one, naming the path it looked at, and writes nothing', () => {
    const dir = tmp();
    const r = run(['mcp'], dir, { OUTREACH_API_KEY: 'sk_test_whatever' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--db: no database at ${join(dir, 'data/outreach.db')}`);
    expect(r.stderr).toContain('--create');
    expect(readdirSync(dir)).toEqual([]);
    const named = run(['mcp', '--db', 'other.db'], dir, { OUTREACH_API_KEY: 'sk_test_whatever' });
    expect(named.stderr).toContain(join(dir, 'other.db'));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('creates it with --create', async () => {
    const dir = tmp();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--create', '--db', 'new.db'],
      cwd: dir,
      env: { ...cleanEnv(), OUTREACH_API_KEY: 'sk_test_000000000000000000000000000000aa' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'newcomer', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await callTool(client, 'get_credits');
      expect(r.body.error.code).toBe('unauthorized');
    } finally {
      await client.close();
    }
    expect(existsSync(join(dir, 'new.db'))).toBe(true);
  });
});

describe('outreach start refuses bad input by flag name, writing nothing', () => {
  it.each([
    [['--host', 'no-such-host.invalid'], '--host'],
    [['--sim-speed', '-1'], '--sim-speed'],
    [['--sim-speed', '0'], '--sim-speed'],
    [['--port', '-1'], '--port'],
  ])('%j', (args, flag) => {
    const dir = tmp();
    const r = run(['start', '--port', '0', ...args], dir);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^outreach: ${flag}: `));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an unwritable --db', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'a-file'), '');
    const r = run(['start', '--port', '0', '--db', 'a-file/outreach.db'], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^outreach: --db: cannot open or create .*a-file\/outreach\.db/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
