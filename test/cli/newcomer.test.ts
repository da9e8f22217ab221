import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import Database from 'better-sqlite3';
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

  it("the 401 message names the command to create a key, but none of the server's paths", async () => {
    for (const key of [undefined, 'sk_test_unknown_000000000000000000000000', 'sk_live_other_environment_000000000000']) {
      const res = await fetch(`${base}/credits`, key ? { headers: { 'X-API-Key': key } } : {});
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).toContain('npx outreach keys create --env test');
      // Neither the database nor where the server is installed: the caller is not authenticated.
      expect(text).not.toContain(serverDir);
      expect(text).not.toContain('outreach.db');
      expect(text).not.toContain(BIN);
    }
    const mcp = await fetch(`${base.replace('/public/v1', '')}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
    expect(await mcp.text()).not.toContain(serverDir);
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

/** Kills a process started with `detached: true` and everything it started (script and the server under it). */
const killGroup = (child: ChildProcess) => {
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // Already gone.
  }
};

/** Resolves with everything the child printed once `done` matches it (a pty turns \n into \r\n). */
function waitFor(child: ChildProcess, done: RegExp): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += String(c).replace(/\r\n/g, '\n');
      if (done.test(out)) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

describe('the start banner, on a terminal and not', () => {
  it('on a terminal: a live one-time link that works, and the command for the next one', async () => {
    const dir = tmp();
    const db = join(dir, 'o.db');
    // `script` gives the server a pseudo-terminal as its standard output, as a person's shell does.
    const child = spawn('script', ['-qfec', `${process.execPath} ${BIN} start --port 0 --db ${db}`, '/dev/null'], {
      cwd: dir,
      env: cleanEnv(),
      detached: true,
    });
    try {
      const out = await waitFor(child, /\/app\/login\?token=[A-Za-z0-9_-]{43}\n/);
      const link = /(http:\/\/127\.0\.0\.1:\d+\/app\/login\?token=[A-Za-z0-9_-]{43})\n/.exec(out)![1]!;
      expect(out).toMatch(new RegExp(`a new one: .* login --db ${db} --base http://127\\.0\\.0\\.1:\\d+\\)`));
      const res = await fetch(link, { redirect: 'manual' });
      expect(res.status).toBe(303);
    } finally {
      killGroup(child);
    }
  });

  it('not on a terminal: no link is minted; it prints the command, which works from another folder', async () => {
    const dir = tmp();
    const db = join(dir, 'o.db');
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--db', db], { cwd: dir, env: cleanEnv(), detached: true });
    try {
      const out = await waitFor(child, /valid 15 minutes\) with:\n.+\n/);
      expect(out).not.toContain('token=');
      const reader = new Database(db, { readonly: true });
      try {
        expect(reader.prepare('SELECT count(*) AS n FROM login_tokens').get()).toEqual({ n: 0 });
      } finally {
        reader.close();
      }
      const command = out.trim().split('\n').at(-1)!.trim();
      const printed = paste(command, tmp());
      expect(printed.status, printed.stderr).toBe(0);
      const link = printed.stdout.trim().split('\n').at(-1)!;
      expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
    } finally {
      killGroup(child);
    }
  });

  it('shows how to add the manage toolset over HTTP and stdio, and both work as shown', async () => {
    const dir = tmp();
    const server = await startServer(['--db', 'o.db'], dir);
    try {
      const key = /sk_test_[0-9A-Za-z]{32}/.exec(server.banner)![0];
      const url = /"url": "(http:\/\/[^"]+\?toolsets=manage)"/.exec(server.banner)?.[1];
      expect(url, server.banner).toBeDefined();
      expect(server.banner).toContain('"OUTREACH_TOOLSETS": "manage"');
      const http = new Client({ name: 'newcomer', version: '1.0.0' });
      await http.connect(new StreamableHTTPClientTransport(new URL(url!), { requestInit: { headers: { 'X-API-Key': key } } }));
      try {
        expect((await http.listTools()).tools.map((t) => t.name)).toContain('create_campaign');
      } finally {
        await http.close();
      }
      const config = jsonAfter(server.banner, 'MCP client config over stdio').mcpServers.outreach;
      const stdio = new Client({ name: 'newcomer', version: '1.0.0' });
      await stdio.connect(
        new StdioClientTransport({
          command: config.command,
          args: config.args,
          env: { ...cleanEnv(), ...config.env, OUTREACH_TOOLSETS: 'manage' },
          stderr: 'pipe',
        }),
      );
      try {
        expect((await stdio.listTools()).tools.map((t) => t.name)).toContain('create_campaign');
      } finally {
        await stdio.close();
      }
    } finally {
      server.child.kill('SIGTERM');
    }
  });

  it('`outreach mcp --help` names OUTREACH_TOOLSETS', () => {
    const r = run(['mcp', '--help'], tmp());
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('OUTREACH_TOOLSETS=manage');
  });
});
