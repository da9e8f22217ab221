import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, TEST_KEY } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;
const tmp = () => mkdtempSync(join(tmpdir(), 'outreach-cli-'));

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '', ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One line on stderr, naming the problem, no stack trace. */
function expectUsageError(r: ReturnType<typeof run>, mention: string) {
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain(mention);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
}

describe('outreach seed', () => {
  it('loads a workspace file and refuses a second load without --reset', () => {
    const dir = tmp();
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(fixture()));
    const db = join(dir, 'o.db');
    const first = run(['seed', '--file', file, '--db', db]);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('7 campaign(s)');
    expectUsageError(run(['seed', '--file', file, '--db', db]), '--reset');
    expect(run(['seed', '--file', file, '--db', db, '--reset']).status).toBe(0);
    // The reset is the owner's one event in the trail, which it keeps; the first load made the
    // workspace (nothing to record, as for restore), and the refused one changed nothing.
    const trail = run(['audit', '--json', '--db', db]);
    expect(trail.status).toBe(0);
    const events = JSON.parse(trail.stdout).events as Array<{ action: string; actor: { type: string; name: string }; summary: string }>;
    expect(events.map((e) => e.action)).toEqual(['seed.reset']);
    expect(events[0]!.actor).toMatchObject({ type: 'member', name: 'Owner' });
    expect(events[0]!.summary).toMatch(/^Replace the workspace from a workspace file: .*7 campaign\(s\)/);
  });

  it('names the path of a bad field and writes nothing', () => {
    const dir = tmp();
    const file = join(dir, 'ws.json');
    const f: any = fixture();
    f.campaigns[0].leads[0].tag = 'Maybe';
    writeFileSync(file, JSON.stringify(f));
    const db = join(dir, 'o.db');
    expectUsageError(run(['seed', '--file', file, '--db', db]), 'campaigns[0].leads[0].tag');
    expect(existsSync(db)).toBe(false);
  });

  it('names missing files, bad JSON and unknown flags', () => {
    const dir = tmp();
    expectUsageError(run(['seed']), '--file');
    expectUsageError(run(['seed', '--file', join(dir, 'missing.json')]), 'does not exist');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ nope');
    expectUsageError(run(['seed', '--file', bad, '--db', join(dir, 'o.db')]), 'not valid JSON');
    expectUsageError(run(['seed', '--file', bad, '--frobnicate']), '--frobnicate');
  });
});

describe('outreach writing into a closed pipe', () => {
  it('ends quietly when its reader stops early (| head), with no stack trace', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], { env: { ...process.env, OUTREACH_DB: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader goes away before the command writes a word.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('outreach keys', () => {
  it('creates, lists and revokes keys, never printing a stored key again', () => {
    const db = join(tmp(), 'o.db');
    const created = run(['keys', 'create', '--env', 'live', '--name', 'prod', '--db', db]);
    expect(created.status).toBe(0);
    const key = /sk_live_[0-9A-Za-z]{32}/.exec(created.stdout)?.[0];
    expect(key).toBeDefined();
    const id = /key_[0-9A-Za-z]{16}/.exec(created.stdout)![0];
    const listed = run(['keys', 'list', '--db', db]);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('prod');
    expect(listed.stdout).toContain('live');
    expect(listed.stdout).toContain(key!.slice(0, 12));
    expect(listed.stdout).not.toContain(key!);
    expect(run(['keys', 'revoke', id, '--db', db]).status).toBe(0);
    expect(run(['keys', 'list', '--db', db]).stdout).toContain('revoked');
    expectUsageError(run(['keys', 'revoke', 'key_nope', '--db', db]), 'key_nope');
  });

  it('rejects bad input naming the flag', () => {
    const db = join(tmp(), 'o.db');
    expectUsageError(run(['keys', 'create', '--db', db]), '--env');
    expectUsageError(run(['keys', 'create', '--env', 'prod', '--db', db]), '--env');
    expectUsageError(run(['keys', 'rotate']), 'rotate');
    expectUsageError(run(['keys', 'revoke']), 'ID');
    expect(existsSync(db)).toBe(false);
  });
});

describe('outreach start', () => {
  it('rejects bad flags and variables by name', () => {
    expectUsageError(run(['start', '--port', '99999']), '--port');
    expectUsageError(run(['start', '--env', 'staging']), '--env');
    expectUsageError(run(['start', '--sim-speed', '-2']), '--sim-speed');
    expectUsageError(run(['start'], { PORT: 'eighty' }), 'PORT');
    expectUsageError(run(['start', '--config', '/nonexistent.json']), '--config');
    const cfg = join(tmp(), 'c.json');
    writeFileSync(cfg, JSON.stringify({ port: 1, colour: 'red' }));
    expectUsageError(run(['start', '--config', cfg]), 'colour');
  });

  it('refuses production without the Unipile settings, naming each missing one, over stdio too', () => {
    expectUsageError(run(['start', '--env', 'production', '--db', join(tmp(), 'o.db')]), 'UNIPILE_DSN');
    const db = join(tmp(), 'o.db');
    const mcp = run(['mcp', '--env', 'production', '--db', db, '--create'], { OUTREACH_API_KEY: 'sk_live_000000000000000000000000000000' });
    expectUsageError(mcp, 'UNIPILE_DSN');
    expect(existsSync(db)).toBe(false);
  });

  it('a start refused for a port in use writes nothing: no database, no demo key nobody saw', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = String((busy.address() as AddressInfo).port);
      const dir = tmp();
      const db = join(dir, 'new', 'o.db');
      expectUsageError(run(['start', '--port', port, '--db', db]), '--port: the address is already in use');
      expect(existsSync(db)).toBe(false);
      expect(existsSync(join(dir, 'new'))).toBe(false);
    } finally {
      busy.close();
    }
  });

  it('a refused command on a database that was not there leaves none behind', () => {
    const dir = tmp();
    const db = join(dir, 'deep', 'er', 'o.db');
    expectUsageError(run(['keys', 'create', '--env', 'test', '--expires', 'notadate', '--db', db]), '--expires');
    expectUsageError(run(['keys', 'revoke', 'key_abc', '--db', db]), '--db');
    const file = join(dir, 'ws.json');
    const f: any = fixture();
    f.campaigns[0].assignedTemplateId = 'tpl_nope';
    writeFileSync(file, JSON.stringify(f));
    expectUsageError(run(['seed', '--file', file, '--db', db]), 'tpl_nope');
    expect(existsSync(db)).toBe(false);
    expect(existsSync(join(dir, 'deep'))).toBe(false);
    // An existing database is never removed by a refusal.
    const kept = join(dir, 'kept.db');
    writeFileSync(file, JSON.stringify(fixture()));
    expect(run(['seed', '--file', file, '--db', kept]).status).toBe(0);
    expectUsageError(run(['keys', 'revoke', 'key_abc', '--db', kept]), 'key_abc');
    expect(existsSync(kept)).toBe(true);
  });

  it('creates the demo workspace on first start and prints a key, URLs and a client config', async () => {
    const db = join(tmp(), 'o.db');
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--db', db], { env: { ...process.env, OUTREACH_ENV: '' } });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c) => {
          out += c;
          if (out.includes('Try it:') && /login link \(valid 15 minutes\) with:\n.+\n/.test(out)) resolve();
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const key = /sk_test_[0-9A-Za-z]{32}/.exec(out)![0];
      const base = /REST base: (\S+)/.exec(out)![1]!;
      expect(out).toMatch(/MCP URL: +http:\/\/127\.0\.0\.1:\d+\/mcp/);
      expect(out).toContain('"X-API-Key"');
      const credits = await fetch(`${base}/credits`, { headers: { 'X-API-Key': key } });
      expect(credits.status).toBe(200);
      const campaigns = (await (await fetch(`${base}/campaigns`, { headers: { 'X-API-Key': key } })).json()) as any;
      expect(campaigns.campaigns).toHaveLength(1);
      expect(campaigns.campaigns[0]).toMatchObject({ status: 'READY_TO_SEND', assignedTemplateId: expect.any(String) });
      expect(campaigns.campaigns[0].totalLeads).toBeGreaterThan(0);
      const accounts = (await (await fetch(`${base}/accounts`, { headers: { 'X-API-Key': key } })).json()) as any;
      expect(accounts.accounts[0]).toMatchObject({ status: 'connected', hasSalesNavigator: true });
      expect(key).not.toBe(TEST_KEY);
      // Standard output is a pipe here, not a terminal: no link is minted into what may be a log
      // file. The last line is the command that prints one, and it works as printed.
      expect(out).not.toMatch(/token=/);
      const command = out.trim().split('\n').at(-1)!.trim();
      expect(command).toContain(` login --db ${db} --base http://127.0.0.1:`);
      const printed = spawnSync('/bin/sh', ['-c', command], { cwd: tmp(), encoding: 'utf8', env: { ...process.env, OUTREACH_DB: '' } });
      expect(printed.status, printed.stderr).toBe(0);
      const link = printed.stdout.trim().split('\n').at(-1)!.trim();
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/app\/login\?token=[A-Za-z0-9_-]{43}$/);
      const login = await fetch(link, { redirect: 'manual' });
      expect(login.status).toBe(303);
      expect(login.headers.get('set-cookie')).toContain('HttpOnly');
    } finally {
      child.kill('SIGTERM');
    }
    // A second start on the same database mints no new key.
    const again = spawn(process.execPath, [BIN, 'start', '--port', '0', '--db', db], { env: { ...process.env, OUTREACH_ENV: '' } });
    try {
      let out = '';
      await new Promise<void>((resolve) => {
        again.stdout.on('data', (c) => {
          out += c;
          if (out.includes('Try it:')) resolve();
        });
      });
      expect(out).not.toMatch(/sk_test_[0-9A-Za-z]{32}/);
      expect(out).toContain('keys create');
    } finally {
      again.kill('SIGTERM');
    }
  });
});
