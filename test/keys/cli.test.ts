import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiKeyState, authenticateKey, createApiKey, listApiKeys, revokeApiKey } from '../../src/core/auth/keys.js';
import { FakeClock } from '../../src/core/clock.js';
import type { Ctx } from '../../src/core/context.js';
import { openDatabase } from '../../src/db/connection.js';
import { fixture, testCtx } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '' }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function seeded(): string {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-keys-'));
  const file = join(dir, 'ws.json');
  writeFileSync(file, JSON.stringify(fixture()));
  const db = join(dir, 'o.db');
  expect(run(['seed', '--file', file, '--db', db]).status).toBe(0);
  return db;
}

/** One line on stderr naming the flag, no stack trace, exit non-zero. */
function expectUsageError(r: ReturnType<typeof run>, flag: string) {
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain(flag);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
}

describe('outreach keys create with a scope', () => {
  it('stores the scope the flags give, and keys list shows it', () => {
    const db = seeded();
    const created = run([
      'keys',
      'create',
      '--env',
      'test',
      '--name',
      'agency client',
      '--read-only',
      '--toolsets',
      'standard,drafts',
      '--campaign',
      'cmp_q4',
      '--campaign',
      'cmp_paused',
      '--expires',
      '2030-01-01T00:00:00Z',
      '--db',
      db,
    ]);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain('Scope: read-only; toolsets standard,drafts; campaigns cmp_q4,cmp_paused; expires 2030-01-01T00:00:00.000Z');
    const key = /sk_test_[0-9A-Za-z]{32}/.exec(created.stdout)![0];
    const listed = run(['keys', 'list', '--db', db]);
    expect(listed.stdout).toContain('SCOPE');
    expect(listed.stdout).toMatch(/agency client.*read-only; toolsets standard,drafts; campaigns cmp_q4,cmp_paused; expires 2030-01-01T00:00:00\.000Z/);
    // Keys without a scope say so.
    expect(listed.stdout).toMatch(/\ball\b/);
    // The server reads the same scope from the database.
    const ctx = { db: openDatabase(db), clock: new FakeClock(), env: 'development' } as unknown as Ctx;
    const who = authenticateKey(ctx, key);
    expect(who.reach?.readOnly).toBe(true);
    expect([...(who.reach?.campaignIds ?? [])]).toEqual(['cmp_q4', 'cmp_paused']);
    expect([...(who.reach?.toolsets ?? [])].sort()).toEqual(['drafts', 'standard']);
    ctx.db.$client.close();
  });

  it('takes any ISO-8601 instant for --expires: a date alone is its start in UTC, a time without an offset is UTC', () => {
    const db = seeded();
    for (const [given, stored] of [
      ['2031-06-01', '2031-06-01T00:00:00.000Z'],
      ['2031-06-01T12:30', '2031-06-01T12:30:00.000Z'],
      ['2031-06-01T12:30:15.5', '2031-06-01T12:30:15.500Z'],
      ['2031-06-01T12:30:00+02:00', '2031-06-01T10:30:00.000Z'],
    ]) {
      const created = run(['keys', 'create', '--env', 'test', '--expires', given as string, '--db', db]);
      expect(created.status, created.stderr).toBe(0);
      expect(created.stdout).toContain(`expires ${stored}`);
    }
    expectUsageError(run(['keys', 'create', '--env', 'test', '--expires', '2031-13-01', '--db', db]), '--expires');
  });

  it('refuses a bad scope naming the flag, and creates no key', () => {
    const db = seeded();
    const before = run(['keys', 'list', '--db', db]).stdout.trim().split('\n').length;
    expectUsageError(run(['keys', 'create', '--env', 'test', '--toolsets', 'everything', '--db', db]), '--toolsets');
    expectUsageError(run(['keys', 'create', '--env', 'test', '--campaign', 'cmp_nowhere', '--db', db]), '--campaign');
    expectUsageError(run(['keys', 'create', '--env', 'test', '--expires', 'next week', '--db', db]), '--expires');
    expectUsageError(run(['keys', 'create', '--env', 'test', '--expires', '2001-01-01T00:00:00Z', '--db', db]), '--expires');
    expect(run(['keys', 'list', '--db', db]).stdout.trim().split('\n')).toHaveLength(before);
  });
});

describe('a key’s state, as keys list shows it', () => {
  it('is expired once its scope’s expiry has passed, revoked once revoked, else active', () => {
    const ctx = testCtx();
    const soon = new Date(ctx.clock.now() + 60_000).toISOString();
    const { id, key } = createApiKey(ctx, 'test', 'brief', { expiresAt: soon });
    const view = () => listApiKeys(ctx).find((k) => k.id === id)!;
    expect(apiKeyState(ctx, view())).toBe('active');
    ctx.clock.advance(60_000);
    expect(apiKeyState(ctx, view())).toBe('expired');
    // The same moment the pipeline refuses it.
    expect(() => authenticateKey(ctx, key)).toThrow(/expired/);
    revokeApiKey(ctx, id);
    expect(apiKeyState(ctx, view())).toBe('revoked');
  });
});

describe('keys list and keys revoke with a --db that is not there', () => {
  it('refuse naming --db, exit non-zero and leave no database behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-keys-'));
    const missing = join(dir, 'typo.db');
    expectUsageError(run(['keys', 'list', '--db', missing]), '--db');
    expectUsageError(run(['keys', 'revoke', 'key_x', '--db', missing]), '--db');
    expect(readdirSync(dir)).toEqual([]);
  });
});
