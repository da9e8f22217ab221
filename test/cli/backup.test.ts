import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, TEST_KEY } from '../helpers.js';

/**
 * `outreach backup` and `outreach restore` against real processes: a server taking writes while
 * the backup runs, a restore refused while that server holds the database, and a server started
 * on the restored database answering what the backup held.
 */

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;
const env = () => ({ ...(process.env as Record<string, string>), OUTREACH_DB: '', OUTREACH_ENV: '', OUTREACH_CONFIG: '' });
const run = (args: string[], cwd?: string) => spawnSync(process.execPath, [BIN, ...args], { env: env(), encoding: 'utf8', cwd });
const runAsync = (args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });

interface Server {
  child: ChildProcessWithoutNullStreams;
  base: string;
  stop(): Promise<void>;
}

async function startServer(db: string, config: string): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--db', db, '--config', config], { env: { ...env(), LOG_LEVEL: 'warn' } });
  let out = '';
  let errors = '';
  child.stderr.on('data', (c) => (errors += c));
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const m = /REST base: (\S+)/.exec(out);
      if (m && out.includes('Try it:')) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`start exited ${code}: ${out}${errors}`)));
  });
  return {
    child,
    base,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A connection per request: between tests the servers sit idle for seconds, and a kept-alive
 * connection the server is closing just then fails the next request on a loaded machine.
 */
const fresh = new Agent({ pipelining: 0 });

const rest = async (base: string, path: string, init: { method?: string; body?: string } = {}) => {
  const res = await undiciFetch(`${base}${path}`, { ...init, dispatcher: fresh, headers: { 'X-API-Key': TEST_KEY, 'content-type': 'application/json' } });
  return { status: res.status, body: (await res.json()) as any };
};

/** What a consistent copy of the workspace must satisfy, read straight from a database file. */
function facts(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const leads = (db.prepare("SELECT count(*) AS n FROM leads WHERE campaign_id = 'cmp_q4'").get() as { n: number }).n;
    const charged = (
      db
        .prepare("SELECT count(*) AS n FROM credit_ledger WHERE reason = 'lead_created' AND ref IN (SELECT id FROM leads WHERE campaign_id = 'cmp_q4')")
        .get() as { n: number }
    ).n;
    const balance = (db.prepare('SELECT credits FROM credit_balance').get() as { credits: number }).credits;
    const ledger = (db.prepare("SELECT coalesce(sum(delta), 0) AS s FROM credit_ledger WHERE bucket = 'credits'").get() as { s: number }).s;
    return { leads, charged, balance, ledger, check: db.pragma('integrity_check', { simple: true }) };
  } finally {
    db.close();
  }
}

describe('outreach backup and restore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-backup-'));
  const db = join(dir, 'live.db');
  const copy = join(dir, 'backup.db');
  const config = join(dir, 'config.json');
  const CREDITS = 1_000_000;
  let server: Server;
  let seedLeads: number;

  beforeAll(async () => {
    const ws = fixture();
    ws.credits = { ...ws.credits, credits: CREDITS };
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(ws));
    expect(run(['seed', '--file', file, '--db', db]).status).toBe(0);
    const high = 1_000_000;
    writeFileSync(config, JSON.stringify({ limits: { globalPerMinute: high, perMinute: { leads_batch_add: high }, authFailuresPerMinute: high } }));
    seedLeads = facts(db).leads;
    server = await startServer(db, config);
  });
  afterAll(async () => server?.stop());

  it('backs up a consistent copy while the server takes writes', async () => {
    let stop = false;
    let batches = 0;
    let afterBackup = 0;
    let backupDone = false;
    let failure: unknown = null;
    const waitUntil = async (done: () => boolean) => {
      while (!done()) {
        if (failure) throw failure;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    // The write load: batches of leads, each one transaction that inserts leads and charges credits.
    const writer = (async () => {
      while (!stop && !failure) {
        const leads = Array.from({ length: 25 }, (_, i) => ({
          networkUrl: `https://www.linkedin.com/in/load-${batches}-${i}`,
          firstName: 'Load',
          lastName: `${i}`,
        }));
        const r = await rest(server.base, '/campaigns/cmp_q4/leads/batch', { method: 'POST', body: JSON.stringify({ leads }) });
        if (r.status !== 200) failure = new Error(`batch answered ${r.status}: ${JSON.stringify(r.body)}`);
        batches++;
        if (backupDone) afterBackup++;
      }
    })();
    // Let the load get going, then back up in another process while it runs.
    await waitUntil(() => batches >= 5);
    const before = batches;
    const backup = await runAsync(['backup', '--db', db, '--to', copy]);
    backupDone = true;
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`to ${copy}`);
    await waitUntil(() => afterBackup >= 3);
    stop = true;
    await writer;
    if (failure) throw failure;
    expect(batches).toBeGreaterThan(before);

    // One self-contained file, with every lead it holds charged, and the balance matching the ledger.
    expect(readdirSync(dir).filter((f) => f.startsWith('backup.db'))).toEqual(['backup.db']);
    // The copy holds every key hash, lead and message: its owner alone may read it.
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    const held = facts(copy);
    expect(held.check).toBe('ok');
    expect(held.leads).toBeGreaterThan(seedLeads);
    expect((held.leads - seedLeads) % 25).toBe(0);
    expect(held.charged).toBe(held.leads - seedLeads);
    expect(held.balance).toBe(CREDITS - held.charged);
    // The live database went on after it.
    expect(facts(db).leads).toBeGreaterThan(held.leads);
  });

  it('refuses to overwrite a file, and names the flag', () => {
    const r = run(['backup', '--db', db, '--to', copy]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^outreach: --to: .*already exists/);
    const missing = run(['backup', '--db', db]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--to');
  });

  it('refuses to restore while the server holds the database, and changes nothing', async () => {
    const before = facts(db).leads;
    const r = run(['restore', '--db', db, '--from', copy]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('open in another process');
    expect(server.child.exitCode).toBeNull();
    expect((await rest(server.base, '/campaigns/cmp_q4')).status).toBe(200);
    expect(facts(db).leads).toBe(before);
    expect(readdirSync(dir).filter((f) => f.includes('before-restore') || f.includes('restoring'))).toEqual([]);
  });

  it('restores into the stopped server’s database, which then answers what the backup held', async () => {
    const held = facts(copy);
    await server.stop();
    const r = run(['restore', '--db', db, '--from', copy]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`into ${db}`);
    const previous = readdirSync(dir).filter((f) => f.startsWith('live.db.before-restore-'));
    expect(previous).toHaveLength(1);
    expect(facts(join(dir, previous[0]!)).leads).toBeGreaterThan(held.leads);

    server = await startServer(db, config);
    const credits = await rest(server.base, '/credits');
    expect(credits.status).toBe(200);
    expect(credits.body.credits).toBe(held.balance);
    const campaign = await rest(server.base, '/campaigns/cmp_q4');
    expect(campaign.body.totalLeads).toBe(held.leads);
    let listed = 0;
    let cursor: string | null = null;
    do {
      const page = await rest(server.base, `/campaigns/cmp_q4/leads?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      listed += page.body.leads.length;
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(listed).toBe(held.leads);
  });
});

describe('outreach restore refuses a file that is not a backup of this project', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-restore-'));
  const target = join(dir, 'target.db');
  let targetBytes: Buffer;

  beforeAll(() => {
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(fixture()));
    expect(run(['seed', '--file', file, '--db', target]).status).toBe(0);
    targetBytes = readFileSync(target);
  });

  const refused = (from: string, message: RegExp) => {
    const r = run(['restore', '--db', target, '--from', from]);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    // Nothing was written: the database is as it was, and nothing was left beside it.
    expect(readFileSync(target).equals(targetBytes)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith('target.db') && f !== 'target.db')).toEqual([]);
  };

  it('a missing file, a text file, an SQLite database of something else', () => {
    refused(join(dir, 'nope.db'), /--from: .*does not exist/);
    writeFileSync(join(dir, 'notes.txt'), 'not a database at all, just some text that is long enough to look like a header'.repeat(20));
    refused(join(dir, 'notes.txt'), /not an SQLite database/);
    const other = new Database(join(dir, 'other.db'));
    other.exec('CREATE TABLE things (id INTEGER PRIMARY KEY)');
    other.close();
    refused(join(dir, 'other.db'), /not an outreach-mcp database/);
  });

  it('a backup from a newer version (a migration this one does not know)', () => {
    const newer = join(dir, 'newer.db');
    copyFileSync(target, newer);
    const db = new Database(newer);
    db.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('f'.repeat(64), 9_999_999_999_999);
    db.close();
    refused(newer, /newer than this version knows/);
  });

  it('restores into a database that does not exist yet', () => {
    const fresh = join(dir, 'sub', 'fresh.db');
    const r = run(['restore', '--db', fresh, '--from', target]);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(fresh)).toBe(true);
    expect(r.stdout).not.toContain('before-restore');
  });
});
