import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/config.js';
import { systemClock } from '../../src/core/clock.js';
import { acquireLease } from '../../src/core/outreach/lease.js';
import { silentLogger } from '../../src/log.js';
import { createContext, startServer, type RunningServer } from '../../src/server.js';
import { callTool, TEST_KEY } from '../helpers.js';
import {
  bigCsv,
  type Child,
  dashboardCall,
  dashboardCookie,
  freezeBetweenWrites,
  kill9,
  LEASE_SECONDS,
  peek,
  seededDb,
  spawnCli,
  spawnServer,
  until,
} from './children.js';

/**
 * The importing mark is a lease that lapses when its holder dies, tested by killing real
 * processes: a CLI import and a server running a dashboard import, each with `kill -9` (dead:
 * seen at once, since the process is provably gone) and with SIGSTOP (alive but silent: the
 * lease lapses by its time). The children run with a 3 s import lease.
 */

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const CAMPAIGN = 'cmp_running';

interface Mark {
  importing: number;
  importing_holder: string | null;
  importing_pid: number | null;
  importing_until: number | null;
}
const mark = (dbPath: string) => peek<Mark>(dbPath, 'SELECT importing, importing_holder, importing_pid, importing_until FROM campaigns WHERE id = ?', CAMPAIGN);
const leadCount = (dbPath: string, campaignId = CAMPAIGN) => peek<{ n: number }>(dbPath, 'SELECT count(*) AS n FROM leads WHERE campaign_id = ?', campaignId).n;
const credits = (dbPath: string) => peek<{ c: number }>(dbPath, 'SELECT credits + top_up_credits AS c FROM credit_balance WHERE id = 1').c;
const chargesFor = (dbPath: string, campaignId: string) =>
  peek<{ n: number }>(
    dbPath,
    "SELECT count(*) AS n FROM credit_ledger WHERE reason = 'lead_created' AND ref IN (SELECT id FROM leads WHERE campaign_id = ?)",
    campaignId,
  ).n;

/** A server in this process on the same file, to pause over REST and MCP as a client would. */
async function apiServer(dbPath: string): Promise<RunningServer> {
  const settings: Settings = { host: '127.0.0.1', port: 0, dbPath, env: 'development', simSpeed: 1, config: {} };
  const ctx = createContext(settings, silentLogger());
  const server = await startServer(settings, ctx.log, ctx, { engine: false, lookalike: false });
  cleanup.push(() => server.close());
  return server;
}

const restPause = async (url: string) => {
  const res = await fetch(`${url}/public/v1/campaigns/${CAMPAIGN}/pause`, { method: 'POST', headers: { 'X-API-Key': TEST_KEY } });
  return { status: res.status, body: (await res.json()) as any };
};

async function mcpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'kill-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
  cleanup.push(() => client.close());
  return client;
}

/** A CLI import of a large file, running: its mark is taken and some rows are in. */
async function runningCliImport(dir: string, dbPath: string): Promise<Child> {
  const file = join(dir, 'big.csv');
  writeFileSync(file, bigCsv(30_000));
  const child = spawnCli(['import', '--campaign', CAMPAIGN, '--file', file, '--db', dbPath], dir);
  cleanup.push(() => kill9(child));
  await until(() => {
    if (child.proc.exitCode !== null) throw new Error(`the import ended before it could be killed: ${child.err()}`);
    return mark(dbPath).importing === 1 && leadCount(dbPath) >= 300;
  }, 'the CLI import to be under way');
  expect(mark(dbPath).importing_pid).toBe(child.proc.pid);
  return child;
}

describe('a CLI import that dies', () => {
  it('kill -9: pause (REST) works at once, the holder being provably gone; the rows in stay, charged once', async () => {
    const { dir, dbPath, cleanup: rm } = seededDb();
    cleanup.push(rm);
    const api = await apiServer(dbPath);
    const before = credits(dbPath);
    const child = await runningCliImport(dir, dbPath);
    // While it runs, pause answers 409: leads are still being added.
    expect((await restPause(api.url)).status).toBe(409);

    await kill9(child);
    expect(mark(dbPath).importing).toBe(1); // Left set by the dead process…
    const paused = await restPause(api.url); // …yet it no longer holds the campaign.
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body).toMatchObject({ action: 'paused', status: 'CAMPAIGN_PAUSED' });
    const inserted = leadCount(dbPath);
    expect(inserted).toBeGreaterThan(0);
    expect(inserted).toBeLessThan(30_000);
    expect(before - credits(dbPath)).toBe(inserted);
    expect(chargesFor(dbPath, CAMPAIGN)).toBe(inserted);

    // Importing the same file again adds the rest and charges nothing twice.
    const again = spawnCli(['import', '--campaign', CAMPAIGN, '--file', join(dir, 'big.csv'), '--db', dbPath, '--json'], dir);
    cleanup.push(() => kill9(again));
    const { code } = await again.exited;
    expect(code, again.err()).toBe(0);
    const result = JSON.parse(again.out());
    expect(result.summary).toMatchObject({ total: 30_000, created: 30_000 - inserted, duplicate: inserted });
    expect(leadCount(dbPath)).toBe(30_000);
    expect(before - credits(dbPath)).toBe(30_000);
    expect(mark(dbPath).importing).toBe(0);
  }, 240_000);

  it('SIGSTOP (alive, silent): pause (MCP) answers 409 until the lease lapses, then works', async () => {
    const { dir, dbPath, cleanup: rm } = seededDb();
    cleanup.push(rm);
    const api = await apiServer(dbPath);
    const client = await mcpClient(api.url);
    const child = await runningCliImport(dir, dbPath);
    await freezeBetweenWrites(child, dbPath);
    const { importing_until: until_ } = mark(dbPath);
    expect(until_).not.toBeNull();
    // Right after the freeze the lease still has time left: pause is refused.
    if (Date.now() < (until_ as number) - 500) {
      const early = await callTool(client, 'pause_campaign', { campaignId: CAMPAIGN });
      expect(early.isError).toBe(true);
      expect(early.body.error.code).toBe('conflict');
    }
    // Within the lease (plus a poll), and well within the minute the spec allows, pause works.
    const paused = await until(async () => {
      const r = await callTool(client, 'pause_campaign', { campaignId: CAMPAIGN });
      return r.isError ? undefined : { at: Date.now(), body: r.body };
    }, 'pause to succeed');
    expect(paused.body).toMatchObject({ action: 'paused', status: 'CAMPAIGN_PAUSED' });
    expect(paused.at).toBeGreaterThanOrEqual(until_ as number);
    expect(paused.at - (until_ as number)).toBeLessThan(60_000);
    expect(LEASE_SECONDS * 1000).toBeLessThanOrEqual(60_000);
  }, 240_000);
});

describe('a server that dies while it runs a dashboard import', () => {
  const ROWS = 12_000;

  async function importUnderWay(dir: string, dbPath: string) {
    const server = await spawnServer(dbPath, dir);
    cleanup.push(() => kill9(server));
    const cookie = await dashboardCookie(server.url, dbPath);
    const { importId } = await dashboardCall(server.url, cookie, 'start_import', { campaignId: 'cmp_noagent', csv: bigCsv(ROWS, 'dash') });
    await until(async () => {
      const s = await dashboardCall(server.url, cookie, 'get_import', { importId });
      if (s.status !== 'running') throw new Error(`the import ended before the kill: ${JSON.stringify(s)}`);
      return s.rowsDone >= 300;
    }, 'the dashboard import to be under way');
    return { server, importId: importId as string };
  }

  async function finishedOn(url: string, dbPath: string, importId: string) {
    const cookie = await dashboardCookie(url, dbPath);
    return until(
      async () => {
        const s = await dashboardCall(url, cookie, 'get_import', { importId });
        return s.status === 'running' ? undefined : s;
      },
      'the import to finish on the restarted server',
      120_000,
    );
  }

  function expectChargedOnce(dbPath: string, before: number) {
    expect(leadCount(dbPath, 'cmp_noagent')).toBe(ROWS);
    expect(chargesFor(dbPath, 'cmp_noagent')).toBe(ROWS);
    expect(before - credits(dbPath)).toBe(ROWS);
  }

  it('kill -9 and an immediate restart: the import resumes on that start and finishes, no credit charged twice', async () => {
    const { dir, dbPath, cleanup: rm } = seededDb();
    cleanup.push(rm);
    const before = credits(dbPath);
    const first = await importUnderWay(dir, dbPath);
    await kill9(first.server);
    const second = await spawnServer(dbPath, dir);
    cleanup.push(() => kill9(second));
    const done = await finishedOn(second.url, dbPath, first.importId);
    expect(done).toMatchObject({ status: 'done', rowsTotal: ROWS, rowsDone: ROWS, summary: { total: ROWS } });
    expect(done.summary.created + done.summary.duplicate).toBe(ROWS);
    expectChargedOnce(dbPath, before);
    expect(mark(dbPath).importing).toBe(0);
  }, 300_000);

  it('a hung server (SIGSTOP) and a second one started within the lease: the second resumes it once the lease lapses, without another restart', async () => {
    const { dir, dbPath, cleanup: rm } = seededDb();
    cleanup.push(rm);
    const before = credits(dbPath);
    const first = await importUnderWay(dir, dbPath);
    await freezeBetweenWrites(first.server, dbPath);
    const second = await spawnServer(dbPath, dir);
    cleanup.push(() => kill9(second));
    const done = await finishedOn(second.url, dbPath, first.importId);
    expect(done).toMatchObject({ status: 'done', rowsDone: ROWS });
    // The first server never ran again: it is still stopped.
    expect(first.server.proc.exitCode).toBeNull();
    await kill9(first.server);
    expectChargedOnce(dbPath, before);
  }, 300_000);
});

describe('the engine lease after kill -9', () => {
  it('is taken over at once when its holder is provably gone, and not while it lives', async () => {
    const { dir, dbPath, cleanup: rm } = seededDb();
    cleanup.push(rm);
    const server = await spawnServer(dbPath, dir);
    cleanup.push(() => kill9(server));
    const held = await until(() => {
      const row = peek<{ holder_pid: number | null; lease_expires_at: number } | undefined>(
        dbPath,
        'SELECT holder_pid, lease_expires_at FROM engine_state WHERE id = 1',
      );
      return row?.holder_pid === server.proc.pid ? row : undefined;
    }, "the server's engine to hold the lease");
    const ctx = createContext({ dbPath, env: 'development' }, silentLogger());
    cleanup.push(() => ctx.db.$client.close());
    // While the holder lives, another engine waits.
    expect(acquireLease(ctx.db, systemClock, 'standby', 30_000)).toBe(false);
    await kill9(server);
    // Its lease has most of its time left, but its process is gone: taken over at once.
    expect(Date.now()).toBeLessThan(held.lease_expires_at);
    expect(acquireLease(ctx.db, systemClock, 'standby', 30_000)).toBe(true);
    expect(peek<{ holder: string; holder_pid: number }>(dbPath, 'SELECT holder, holder_pid FROM engine_state WHERE id = 1')).toEqual({
      holder: 'standby',
      holder_pid: process.pid,
    });
  }, 120_000);
});
