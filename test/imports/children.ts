import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createLoginToken } from '../../src/core/auth/sessions.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { silentLogger } from '../../src/log.js';
import { createContext } from '../../src/server.js';
import { fixture } from '../helpers.js';

/** Real processes for the kill tests: the CLI and the server as a user runs them, on one database file. */

export const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

/** The import lease the children run with: short, so a lapse is seen in seconds. */
export const LEASE_SECONDS = 3;

export const childEnv = (): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  OUTREACH_DB: '',
  OUTREACH_ENV: 'development',
  OUTREACH_CONFIG: '',
  OUTREACH_SIM_SPEED: '',
  OUTREACH_IMPORT_LEASE_SECONDS: String(LEASE_SECONDS),
});

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns something other than undefined/false. */
export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A database file seeded with the fixture workspace and plenty of credits. */
export function seededDb(credits = 1_000_000): { dir: string; dbPath: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-kill-'));
  const dbPath = join(dir, 'outreach.db');
  const ctx = createContext({ dbPath, env: 'development' }, silentLogger());
  const ws = fixture();
  ws.credits = { credits, topUpCredits: 0 };
  loadWorkspace(ctx, WorkspaceFile.parse(ws), { reset: false });
  ctx.db.$client.close();
  return { dir, dbPath, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A CSV of `n` new profiles, one per row. */
export const bigCsv = (n: number, prefix = 'kill'): string =>
  `LinkedIn URL,First Name,Company\n${Array.from({ length: n }, (_, i) => `https://www.linkedin.com/in/${prefix}-${i},Person ${i},Acme`).join('\n')}\n`;

export interface Child {
  proc: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnCli(args: string[], cwd: string): Child {
  const proc = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv() });
  let out = '';
  let err = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return { proc, out: () => out, err: () => err, exited };
}

/** `outreach start` on the file, on an ephemeral port; resolves with its base URL once it listens. */
export async function spawnServer(dbPath: string, cwd: string): Promise<Child & { url: string }> {
  const child = spawnCli(['start', '--port', '0', '--db', dbPath], cwd);
  const url = await until(
    () => {
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/public\/v1/.exec(child.out());
      if (m) return m[1];
      if (child.proc.exitCode !== null) throw new Error(`the server exited: ${child.err()}`);
      return undefined;
    },
    'the server to listen',
    60_000,
  );
  return { ...child, url: url as string };
}

/** Kills with SIGKILL and waits for the exit. */
export async function kill9(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGKILL');
  const { signal } = await child.exited;
  if (signal !== 'SIGKILL') throw new Error(`expected SIGKILL, got ${signal}`);
}

/**
 * Freezes a process between two of its write transactions (SIGSTOP): alive, so nothing proves
 * it dead, but renewing nothing. Stopped inside a transaction it would hold SQLite's write lock
 * and block every other writer, so the stop is retried until the database is free to write.
 */
export async function freezeBetweenWrites(child: Child, dbPath: string): Promise<void> {
  const probe = new Database(dbPath);
  probe.pragma('busy_timeout = 0');
  try {
    for (let i = 0; i < 2000; i++) {
      child.proc.kill('SIGSTOP');
      await sleep(20);
      try {
        probe.exec('BEGIN IMMEDIATE');
        probe.exec('ROLLBACK');
        return;
      } catch {
        child.proc.kill('SIGCONT');
        await sleep(1 + (i % 7));
      }
    }
    throw new Error('could not stop the process outside a write transaction');
  } finally {
    probe.close();
  }
}

/** A dashboard session on a server's database, minted as `outreach login` does. */
export async function dashboardCookie(url: string, dbPath: string): Promise<string> {
  const ctx = createContext({ dbPath, env: 'development' }, silentLogger());
  const { token } = createLoginToken(ctx);
  ctx.db.$client.close();
  const res = await fetch(`${url}/app/login?token=${token}`, { redirect: 'manual' });
  if (res.status !== 303) throw new Error(`login answered ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

export async function dashboardCall(url: string, cookie: string, name: string, args: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${url}/app/api/call`, {
    method: 'POST',
    headers: { cookie, origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ name, arguments: args }),
  });
  const body = (await res.json()) as { structuredContent: any; isError: boolean };
  if (body.isError) throw new Error(`${name}: ${JSON.stringify(body.structuredContent)}`);
  return body.structuredContent;
}

/** A read-only look at the database while children write it. */
export function peek<T>(dbPath: string, sql: string, ...params: unknown[]): T {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare(sql).get(...params) as T;
  } finally {
    db.close();
  }
}
