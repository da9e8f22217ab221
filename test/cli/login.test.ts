import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/log.js';
import { createContext, startServer, type RunningServer } from '../../src/server.js';
import { fixture } from '../helpers.js';
import { fakeUiDir } from '../web/helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '', HOST: '', PORT: '' }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const lastLine = (out: string): string => out.trim().split('\n').at(-1) ?? '';

describe('outreach login', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-login-'));
  const db = join(dir, 'o.db');
  let server: RunningServer;
  beforeAll(async () => {
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(fixture()));
    expect(run(['seed', '--file', file, '--db', db]).status).toBe(0);
    const settings = { host: '127.0.0.1', port: 0, dbPath: db, env: 'development' as const, simSpeed: 1, config: {} };
    server = await startServer(settings, silentLogger(), createContext(settings, silentLogger(), new FakeClock(Date.now())), {
      engine: false,
      lookalike: false,
      uiDir: fakeUiDir(),
    });
  });
  afterAll(() => server.close());

  it('prints a one-time link as its last line that a running server accepts once', async () => {
    const r = run(['login', '--db', db, '--base', server.url]);
    expect(r.status).toBe(0);
    const link = lastLine(r.stdout);
    expect(link).toMatch(new RegExp(`^${server.url}/app/login\\?token=[A-Za-z0-9_-]{43}$`));
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(303);
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await fetch(`${server.url}/app/api/session`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(401);

    // --revoke-all ends that session at once, in the running server too, and prints a fresh link.
    const revoked = run(['login', '--db', db, '--base', server.url, '--revoke-all']);
    expect(revoked.status).toBe(0);
    expect(revoked.stdout).toContain('Ended 1 dashboard session');
    expect((await fetch(`${server.url}/app/api/session`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(lastLine(revoked.stdout), { redirect: 'manual' })).status).toBe(303);
  });

  it('defaults the base to HOST and PORT, and refuses a bad --base or a missing database', () => {
    expect(lastLine(run(['login', '--db', db]).stdout)).toMatch(/^http:\/\/127\.0\.0\.1:3000\/app\/login\?token=/);
    const bad = run(['login', '--db', db, '--base', 'not a url']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--base');
    const missing = join(dir, 'missing.db');
    const none = run(['login', '--db', missing]);
    expect(none.status).not.toBe(0);
    expect(none.stderr).toContain('--db');
    expect(existsSync(missing)).toBe(false);
  });

  it('documents itself under --help', () => {
    const r = run(['login', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--revoke-all');
  });
});
