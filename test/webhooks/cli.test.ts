import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { Ctx } from '../../src/core/context.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { listDeliveries } from '../../src/core/webhooks/deliveries.js';
import { signingSecret } from '../../src/core/webhooks/endpoints.js';
import { openDatabase } from '../../src/db/connection.js';
import { silentLogger } from '../../src/log.js';
import { createContext } from '../../src/server.js';
import { WebhookWorker } from '../../src/workers/webhooks/worker.js';
import { tagLead, webhookWorkspace } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/** The built CLI, as users run it (`npm test` builds first). */
const BIN = fileURLToPath(new URL('../../bin/outreach.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/cli/index.js', import.meta.url));

let dir: string;
const envWithout = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !['OUTREACH_DB', 'OUTREACH_ENV', 'OUTREACH_CONFIG', 'HOST', 'PORT'].includes(k)),
);

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** `node bin/outreach.js webhooks ...`; async, so independent commands can run side by side. */
function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'webhooks', ...args], { encoding: 'utf8', env: envWithout }, (error, out, err) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}
async function json(...args: string[]): Promise<any> {
  const r = await cli(...args, '--json');
  expect(r.err).toBe('');
  return JSON.parse(r.out);
}
/** A refused command: non-zero exit, one stderr line naming what was wrong, nothing on stdout. */
async function refused(run: Promise<Run>, pattern: RegExp): Promise<void> {
  const r = await run;
  expect(r.code, r.err).not.toBe(0);
  expect(r.out).toBe('');
  expect(r.err.trimEnd().split('\n')).toHaveLength(1);
  expect(r.err).toMatch(pattern);
}

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error('dist/ is missing: run `npm run build` (npm test does) before these CLI tests');
  dir = mkdtempSync(join(tmpdir(), 'webhooks-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each command is a fresh Node process; on a loaded 2-core machine that is over a second apiece.
describe('outreach webhooks: endpoints and secret', { timeout: 120_000 }, () => {
  const db = () => join(dir, 'endpoints.db');

  it('adds, lists, enables and removes endpoints', async () => {
    const added = await cli('add', '--url', 'http://127.0.0.1:9999/hook', '--events', 'lead.tagged, lead.replied', '--db', db());
    expect(added.code, added.err).toBe(0);
    const id = /Added webhook endpoint (whe_\w+)/.exec(added.out)?.[1];
    expect(id).toBeDefined();
    const [listed, table, enabled] = await Promise.all([json('list', '--db', db()), cli('list', '--db', db()), cli('enable', id!, '--db', db())]);
    expect(listed).toEqual({
      secretSet: false,
      endpoints: [
        {
          id,
          url: 'http://127.0.0.1:9999/hook',
          events: ['lead.tagged', 'lead.replied'],
          status: 'active',
          disabledReason: null,
          createdAt: expect.any(String),
          pendingDeliveries: 0,
        },
      ],
    });
    expect(table.out).toMatch(new RegExp(`${id}\\s+http://127\\.0\\.0\\.1:9999/hook\\s+lead\\.tagged,lead\\.replied\\s+active`));
    expect(enabled.code).toBe(0);
    expect(await cli('remove', id!, '--db', db())).toMatchObject({ code: 0, out: expect.stringContaining(`Removed ${id}`) });
    expect((await json('list', '--db', db())).endpoints).toEqual([]);
  });

  it('refuses bad input with one line naming the flag and value, and creates no database', async () => {
    const fresh = join(dir, 'never-created.db');
    const add = (url: string | null, events: string | null, ...more: string[]) =>
      cli('add', ...(url === null ? [] : ['--url', url]), ...(events === null ? [] : ['--events', events]), '--db', fresh, ...more);
    await Promise.all([
      refused(add('ftp://example.com/x', 'lead.tagged'), /--url "ftp:\/\/example.com\/x": unsupported url scheme \(ftp\)/),
      refused(add('http://u:p@example.com/', 'lead.tagged'), /--url .*credentials in the url are not allowed/),
      refused(add('not a url', 'lead.tagged'), /--url "not a url": invalid url/),
      refused(add('https://example.com/x', 'lead.tagged,lead.taged'), /--events: "lead.taged" is not an event type \(lead.tagged, lead.replied/),
      refused(add('https://example.com/x', 'lead.tagged,,'), /--events: "lead.tagged,," has an empty event name/),
      refused(add('https://example.com/x', null), /--events: required/),
      refused(add(null, 'lead.tagged'), /--url: required/),
      refused(add('http://169.254.169.254/latest', 'lead.tagged'), /--url .*refused by SSRF guard: metadata address/),
      refused(add('https://example.com/x', 'lead.tagged', '--bogus'), /--bogus/),
      refused(cli('remove', 'whe_nope', '--db', fresh), /--db: .*never-created.db does not exist/),
      refused(cli('deliveries', '--db', fresh), /--db: .*never-created.db does not exist/),
      refused(cli('frobnicate'), /webhooks: unknown subcommand "frobnicate"/),
    ]);
    expect(existsSync(fresh)).toBe(false);
  });

  it('refuses a duplicate URL or an unknown id and leaves the endpoints as they were', async () => {
    expect((await cli('add', '--url', 'https://example.com/hook', '--events', 'lead.tagged', '--db', db())).code).toBe(0);
    const before = await json('list', '--db', db());
    await Promise.all([
      refused(
        cli('add', '--url', 'https://example.com/hook', '--events', 'lead.replied', '--db', db()),
        /--url "https:\/\/example.com\/hook": endpoint whe_\w+ already has this URL/,
      ),
      refused(cli('remove', 'whe_nope', '--db', db()), /webhooks remove whe_nope: no webhook endpoint "whe_nope"/),
      refused(cli('enable', 'whe_nope', '--db', db()), /webhooks enable whe_nope: no webhook endpoint "whe_nope"/),
      refused(cli('remove', '--db', db()), /the endpoint ID is required/),
    ]);
    expect(await json('list', '--db', db())).toEqual(before);
  });

  it('applies the SSRF policy of --env and --config to IP-literal URLs', async () => {
    const config = join(dir, 'allow.json');
    writeFileSync(config, JSON.stringify({ webhooks: { allowHosts: ['10.1.2.3'] } }));
    await Promise.all([
      refused(
        cli('add', '--url', 'http://10.1.2.3/hook', '--events', 'lead.tagged', '--db', db()),
        /refused by SSRF guard: private address; list the host under webhooks.allowHosts/,
      ),
      refused(cli('add', '--url', 'http://127.0.0.1:8080/hook', '--events', 'lead.tagged', '--env', 'production', '--db', db()), /loopback address/),
      refused(cli('add', '--url', 'http://127.0.0.1:8080/hook', '--events', 'lead.tagged', '--env', 'staging', '--db', db()), /--env: "staging"/),
    ]);
    const allowed = await cli('add', '--url', 'http://10.1.2.3/hook', '--events', 'lead.tagged', '--config', config, '--env', 'production', '--db', db());
    expect(allowed.code, allowed.err).toBe(0);
  });

  it('rotate-secret prints a new whsec_ secret once and stores it', async () => {
    const db = () => join(dir, 'secret.db');
    openDatabase(db()).$client.close();
    await refused(cli('rotate-secret', '--db', db()), /the database holds no workspace yet; run npx outreach start or npx outreach seed first/);
    const seeded = createContext({ dbPath: db(), env: 'development' }, silentLogger(), new FakeClock());
    loadWorkspace(seeded, WorkspaceFile.parse(webhookWorkspace([], { secret: null })), { reset: false });
    seeded.db.$client.close();

    const first = await cli('rotate-secret', '--db', db());
    expect(first.code, first.err).toBe(0);
    const secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(first.out)?.[1] ?? '';
    expect(Buffer.from(secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const ctx = createContext({ dbPath: db(), env: 'development' }, silentLogger(), new FakeClock());
    expect(signingSecret(ctx)).toBe(secret);
    ctx.db.$client.close();
    const [listed, listedJson] = await Promise.all([cli('list', '--db', db()), json('list', '--db', db())]);
    expect(listed.out).toContain('Signing secret: set');
    expect(listed.out).not.toContain(secret);
    expect(JSON.stringify(listedJson)).not.toContain(secret);
    expect(listedJson.secretSet).toBe(true);
    const second = /(whsec_[A-Za-z0-9+/=]+)/.exec((await cli('rotate-secret', '--db', db())).out)?.[1];
    expect(second).toBeDefined();
    expect(second).not.toBe(secret);
  });
});

describe('outreach webhooks: delivery log', { timeout: 120_000 }, () => {
  let receiver: Receiver;
  let events: string[];
  let endpointId: string;
  const db = () => join(dir, 'log.db');

  /** Opens the database file as the server would; closed again before the CLI runs. */
  async function withCtx<T>(fn: (ctx: Ctx, clock: FakeClock) => Promise<T> | T): Promise<T> {
    const clock = new FakeClock();
    const ctx = createContext({ dbPath: db(), env: 'development' }, silentLogger(), clock);
    try {
      return await fn(ctx, clock);
    } finally {
      ctx.db.$client.close();
    }
  }

  beforeAll(async () => {
    receiver = await startReceiver((_req, res) => res.writeHead(500).end('try later'));
    await withCtx(async (ctx, clock) => {
      loadWorkspace(ctx, WorkspaceFile.parse(webhookWorkspace([{ url: receiver.url }], { extraLeads: 2 })), { reset: false });
      events = [tagLead(ctx, 'lead_bulk0', 'Interested'), tagLead(ctx, 'lead_bulk1', 'Interested')];
      const worker = new WebhookWorker(ctx, { policy: { mode: 'development', allowHosts: [] }, rng: () => 0.5 });
      await worker.drain();
      clock.advance(5_000);
      await worker.drain();
      await worker.stop();
      endpointId = listDeliveries(ctx)[0]!.endpointId;
    });
  });
  afterAll(() => receiver.close());

  it('lists deliveries with every attempt, filtered and limited', async () => {
    const [all, byEvent, limited, text] = await Promise.all([
      json('deliveries', '--db', db()),
      json('deliveries', '--event', events[0]!, '--db', db()),
      json('deliveries', '--endpoint', endpointId, '--limit', '1', '--db', db()),
      cli('deliveries', '--db', db()),
    ]);
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({ eventId: events[1], state: 'pending', attempts: 2, lastStatus: 500, endpointId, url: receiver.url });
    expect(all[0].log.map((a: any) => [a.attempt, a.status, a.error, a.response])).toEqual([
      [1, 500, 'HTTP 500', 'try later'],
      [2, 500, 'HTTP 500', 'try later'],
    ]);
    expect(byEvent.map((d: any) => d.eventId)).toEqual([events[0]]);
    expect(limited).toHaveLength(1);
    expect(text.code).toBe(0);
    expect(text.out).toContain(`${events[1]} lead.tagged -> ${endpointId} ${receiver.url}  pending, next attempt 2026-11-21T12:05:05.000Z (2 attempts so far)`);
    expect(text.out).toMatch(/ {2}#2 {2}2026-11-21T12:00:05\.000Z {2}HTTP 500 {2}\d+ ms {2}"try later"/);

    await Promise.all([
      refused(cli('deliveries', '--limit', 'ten', '--db', db()), /--limit: "ten" must be an integer from 1 to 1000/),
      refused(cli('deliveries', '--limit', '1001', '--db', db()), /--limit: "1001"/),
      refused(cli('deliveries', '--event', 'evt_nope', '--db', db()), /--event "evt_nope": no webhook event "evt_nope"/),
      refused(cli('deliveries', '--endpoint', 'whe_nope', '--db', db()), /--endpoint "whe_nope": no webhook endpoint/),
    ]);
  });

  it('redeliver makes a pending delivery due now, and names a bad event or endpoint', async () => {
    const before = Date.now();
    const r = await cli('redeliver', events[0]!, '--db', db());
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Redelivering ${events[0]} to ${endpointId} ${receiver.url}: pending delivery`);
    await withCtx((ctx) => {
      const due = Date.parse(listDeliveries(ctx, { eventId: events[0] })[0]?.nextAttemptAt ?? '');
      expect(due).toBeGreaterThanOrEqual(before);
      expect(due).toBeLessThanOrEqual(Date.now());
    });
    await Promise.all([
      refused(cli('redeliver', 'evt_nope', '--db', db()), /EVENT_ID "evt_nope": no webhook event "evt_nope"/),
      refused(cli('redeliver', events[0]!, '--endpoint', 'whe_nope', '--db', db()), /--endpoint "whe_nope": no webhook endpoint "whe_nope"/),
      refused(cli('redeliver', '--db', db()), /the EVENT_ID is required/),
    ]);
  });

  it('is listed in --help', () => {
    const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8', env: envWithout });
    for (const sub of ['add', 'list', 'remove', 'enable', 'rotate-secret', 'deliveries', 'redeliver']) expect(help.stdout).toContain(`webhooks ${sub}`);
  });
});
