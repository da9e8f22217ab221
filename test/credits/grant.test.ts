import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantCredits } from '../../src/core/credits/grant.js';
import { addLead } from '../../src/core/leads/add.js';
import { creditLedger } from '../../src/db/schema.js';
import { callTool, startTestServer, testCtx, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';
import { BIN, childEnv, kill9, seededDb, spawnServer } from '../imports/children.js';

function run(args: string[], cwd = tmpdir()) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: childEnv(), encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every row of every table, to prove a refused command wrote nothing. */
function dump(db: string): string {
  const conn = new Database(db, { readonly: true });
  try {
    const names = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    return JSON.stringify(names.map(({ name }) => [name, conn.prepare(`SELECT * FROM "${name}"`).all()]));
  } finally {
    conn.close();
  }
}

describe('grantCredits (the one operator verb)', () => {
  it.each([
    [{}, 'credits', 'credits'],
    [{ topUp: true }, 'topUpCredits', 'top_up_credits'],
    [{ lookalike: true }, 'lookalikeCredits', 'lookalike_credits'],
    [{ lookalike: true, topUp: true }, 'lookalikeTopUpCredits', 'lookalike_top_up_credits'],
  ] as const)('%j adds to %s with one ledger entry', (flags, balance, bucket) => {
    const ctx = testCtx();
    const before = grantCredits(ctx, { amount: 1, ...flags }).credits;
    const r = grantCredits(ctx, { amount: 250, ...flags });
    expect(r).toMatchObject({ granted: 250, balance });
    expect(r.credits[balance]).toBe(before[balance] + 250);
    for (const other of ['credits', 'topUpCredits', 'lookalikeCredits', 'lookalikeTopUpCredits'] as const) {
      if (other !== balance) expect(r.credits[other]).toBe(before[other]);
    }
    const ledger = ctx.db
      .select()
      .from(creditLedger)
      .all()
      .filter((l) => l.reason === 'grant');
    expect(ledger.at(-1)).toMatchObject({ bucket, delta: 250, reason: 'grant', ref: 'operator' });
    expect(ledger).toHaveLength(2);
  });

  it('refuses 0, more than 10,000,000 and fractions, changing nothing', () => {
    const ctx = testCtx();
    const before = grantCredits(ctx, { amount: 1 }).credits;
    for (const amount of [0, -5, 10_000_001, 2.5]) expect(() => grantCredits(ctx, { amount })).toThrow();
    expect(grantCredits(ctx, { amount: 10_000_000 }).credits.credits).toBe(before.credits + 10_000_000);
  });

  it('lets a workspace that had none add leads at once, and the no-credit error names the command', () => {
    const ctx = testCtx();
    ctx.db.$client.prepare('UPDATE credit_balance SET credits = 0, top_up_credits = 0').run();
    expect(() => addLead(ctx, 'cmp_q4', { networkUrl: 'https://www.linkedin.com/in/needs-a-credit' })).toThrow(/`outreach credits add N`/);
    grantCredits(ctx, { amount: 1 });
    expect(addLead(ctx, 'cmp_q4', { networkUrl: 'https://www.linkedin.com/in/needs-a-credit' }).status).toBe('created');
  });
});

describe('the grant_credits operator tool', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());

  it('grants through the dashboard, is refused to API keys, and replays an idempotency key', async () => {
    const before = (await server.rest('/credits')).body;
    const r = await appCall(server.url, cookie, 'grant_credits', { amount: 40, lookalike: true, idempotencyKey: 'grant-once' });
    expect(r.body.isError, JSON.stringify(r.body.structuredContent)).toBe(false);
    expect(r.body.structuredContent).toMatchObject({ granted: 40, balance: 'lookalikeCredits', credits: { lookalikeCredits: before.lookalikeCredits + 40 } });
    const replay = await appCall(server.url, cookie, 'grant_credits', { amount: 40, lookalike: true, idempotencyKey: 'grant-once' });
    expect(replay.body.structuredContent).toEqual(r.body.structuredContent);
    expect((await server.rest('/credits')).body.lookalikeCredits).toBe(before.lookalikeCredits + 40);
    const bad = await appCall(server.url, cookie, 'grant_credits', { amount: 0 });
    expect(bad.body.structuredContent.error).toMatchObject({ code: 'validation_error', details: { fields: ['amount'] } });
    // Not a public tool: no REST route, not listed over MCP.
    expect((await server.rest('/app/tools/grant_credits', { method: 'POST', body: '{"amount":5}' })).status).toBe(404);
    const client = await server.mcp();
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('grant_credits');
  });
});

describe('outreach credits (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-credits-cli-'));
  const db = join(dir, 'first.db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the first hour: keys create on an empty database makes a workspace with no credits and says how to add them', () => {
    const r = run(['keys', 'create', '--env', 'test', '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Created a new workspace in ${db}. It has no credits yet.`);
    expect(r.stdout).toMatch(/sk_test_\w+/);
    expect(r.stdout).toContain('Add credits with `outreach credits add N`');
    expect(r.stdout).toMatch(new RegExp(`credits add 1000 --db ${db.replace(/[/.]/g, '\\$&')}`));
    // A second key does not repeat it.
    const again = run(['keys', 'create', '--env', 'test', '--db', db]);
    expect(again.stdout).not.toContain('workspace');
    const balances = run(['credits', '--db', db]);
    expect(balances.status, balances.stderr).toBe(0);
    expect(balances.stdout).toMatch(/Plan: growth \(paid\)\n {2}Credits: +0 /);
    expect(balances.stdout).toContain('No credits to add leads with. Grant some:');
  });

  it('credits add N [--lookalike] [--top-up] prints the new balances; --json gives them as JSON', () => {
    const add = run(['credits', 'add', '1000', '--db', db]);
    expect(add.status, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/^Granted 1,000 credits\. Balances now:\nPlan: growth \(paid\)\n {2}Credits: +1,000 /);
    const both = run(['credits', 'add', '7', '--lookalike', '--top-up', '--json', '--db', db]);
    expect(JSON.parse(both.stdout)).toMatchObject({ granted: 7, balance: 'lookalikeTopUpCredits', credits: { credits: 1000, lookalikeTopUpCredits: 7 } });
    expect(JSON.parse(run(['credits', '--json', '--db', db]).stdout)).toEqual({
      credits: 1000,
      topUpCredits: 0,
      lookalikeCredits: 0,
      lookalikeTopUpCredits: 7,
      planId: 'growth',
    });
    const conn = new Database(db, { readonly: true });
    const grants = conn.prepare("SELECT bucket, delta FROM credit_ledger WHERE reason = 'grant' ORDER BY seq").all();
    conn.close();
    expect(grants).toEqual([
      { bucket: 'credits', delta: 1000 },
      { bucket: 'lookalike_top_up_credits', delta: 7 },
    ]);
  });

  it('credits add with --idempotency-key grants once: a repeat prints the first result and says so, another amount is refused', () => {
    const first = run(['credits', 'add', '300', '--idempotency-key', 'grant-nov', '--json', '--db', db]);
    expect(first.status, first.stderr).toBe(0);
    const granted = JSON.parse(first.stdout);
    const again = run(['credits', 'add', '300', '--idempotency-key', 'grant-nov', '--json', '--db', db]);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(granted);
    expect(again.stderr).toContain('--idempotency-key grant-nov was used before');
    const before = dump(db);
    const other = run(['credits', 'add', '5', '--idempotency-key', 'grant-nov', '--db', db]);
    expect(other.status).not.toBe(0);
    expect(other.stderr).toMatch(/^outreach: --idempotency-key: /);
    expect(other.stderr.trim().split('\n')).toHaveLength(1);
    expect(dump(db)).toBe(before);
    const conn = new Database(db, { readonly: true });
    const grants = conn.prepare("SELECT delta FROM credit_ledger WHERE reason = 'grant' AND delta = 300").all();
    conn.close();
    expect(grants).toHaveLength(1);
  });

  it.each([
    [['credits', 'add'], 'N is required'],
    [['credits', 'add', '0'], 'N: "0" must be a whole number from 1 to 10,000,000'],
    [['credits', 'add', '10000001'], 'N: "10000001"'],
    [['credits', 'add', '2.5'], 'N: "2.5"'],
    [['credits', 'add', 'lots'], 'N: "lots"'],
    [['credits', 'add', '5', '--top-ups'], '--top-ups'],
    [['credits', 'add', '5', '6'], 'unexpected argument "6"'],
    [['credits', 'give', '5'], 'unknown subcommand "give"'],
  ])('refuses %j with one line, writing nothing', (args, mention) => {
    const before = dump(db);
    const r = run([...args, '--db', db]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(mention);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(dump(db)).toBe(before);
  });

  it('refuses a database that does not exist without creating it, and documents itself', () => {
    const missing = join(dir, 'missing.db');
    const r = run(['credits', 'add', '5', '--db', missing]);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(missing)).toBe(false);
    const help = run(['credits', 'add', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('credits add N [--lookalike] [--top-up]');
    expect(help.stdout).toContain('both the Lookalike top-up');
    expect(run(['--help']).stdout).toContain('credits add N');
  });
});

describe('a grant while the server runs', () => {
  it('shows in get_credits over REST and MCP at once', async () => {
    const { dir, dbPath, cleanup } = seededDb(10);
    const server = await spawnServer(dbPath, dir);
    try {
      const rest = async () =>
        (await (await fetch(`${server.url}/public/v1/credits`, { headers: { 'X-API-Key': 'sk_test_fixture_key_000000000000000001' } })).json()) as {
          credits: number;
        };
      expect((await rest()).credits).toBe(10);
      const { Client } = await import('@modelcontextprotocol/client');
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
      const client = new Client({ name: 'grant-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { 'X-API-Key': 'sk_test_fixture_key_000000000000000001' } },
        }),
      );
      expect((await callTool(client, 'get_credits')).body.credits).toBe(10);
      const grant = run(['credits', 'add', '5000', '--db', dbPath], dir);
      expect(grant.status, grant.stderr).toBe(0);
      // The very next reads, with no wait: REST and MCP both see the grant.
      expect((await rest()).credits).toBe(5010);
      expect((await callTool(client, 'get_credits')).body.credits).toBe(5010);
      await client.close();
    } finally {
      await kill9(server);
      cleanup();
    }
  }, 120_000);
});
