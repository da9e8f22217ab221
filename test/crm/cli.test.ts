import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crm } from '../../src/cli/crm.js';
import { FakeClock } from '../../src/core/clock.js';
import type { Ctx } from '../../src/core/context.js';
import { crmSyncOf } from '../../src/core/crm/config.js';
import { claimPushes, pushOnce } from '../../src/core/crm/outbox.js';
import { pullOnce } from '../../src/core/crm/pull.js';
import { updateLead } from '../../src/core/leads/update.js';
import { createLimiter, resolveLimits } from '../../src/core/ratelimit/index.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { openDatabase } from '../../src/db/connection.js';
import { silentLogger } from '../../src/log.js';
import { HubSpotCrm } from '../../src/network/crm/index.js';
import { fixture } from '../helpers.js';
import { HubSpotStandIn } from '../network/hubspot/stand-in.js';

const dir = mkdtempSync(join(tmpdir(), 'outreach-crm-cli-'));
const db = join(dir, 'o.db');
const TOKEN_ENV = 'CRM_CLI_TEST_HUBSPOT_TOKEN';
let hs: HubSpotStandIn;
let leadId: string;

/** Runs `outreach crm …` in process and answers what it printed. */
async function run(args: string[]): Promise<string> {
  const out: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: unknown) => {
    out.push(String(chunk));
    return true;
  }) as typeof process.stdout.write);
  try {
    await crm(args);
  } finally {
    spy.mockRestore();
  }
  return out.join('');
}

beforeAll(async () => {
  // A file database with the fixture, and a real sync into the stand-in: a failed first attempt,
  // the retries that carry every push, and a pull that ends the lead's sequence.
  hs = new HubSpotStandIn();
  await hs.start();
  const clock = new FakeClock();
  const database = openDatabase(db);
  const ctx = {
    db: database,
    clock,
    log: silentLogger(),
    env: 'development',
    limits: createLimiter(clock, resolveLimits(undefined)),
    simClock: clock,
  } as unknown as Ctx;
  loadWorkspace(ctx, WorkspaceFile.parse(fixture()), { reset: false });
  ctx.crm = crmSyncOf({ hubspot: { tokenEnv: TOKEN_ENV } });
  const port = new HubSpotCrm({ tokenEnv: TOKEN_ENV, env: { [TOKEN_ENV]: hs.token }, basePath: hs.url });
  leadId = 'lead_ada1';
  updateLead(ctx, 'cmp_q4', leadId, { tag: 'Interested' });
  hs.fail({ kind: 'contacts.search', status: 503 });
  for (let round = 0; round < 10; round++) {
    for (const push of claimPushes(ctx, 10, 60_000)) await pushOnce(ctx, port, push, () => 0.5);
    clock.advance(60 * 60_000);
  }
  const contact = [...hs.objects.contacts.values()][0];
  expect(contact).toBeDefined();
  hs.setLifecycleStage(contact!.id, 'customer');
  await pullOnce(ctx, port);
  database.$client.close();
});

afterAll(async () => {
  await hs.stop();
});

describe('outreach crm log', () => {
  it('lists pushes and pulls newest first, in a table with their outcome', async () => {
    const text = await run(['log', '--db', db]);
    const lines = text.trim().split('\n');
    expect(lines[0]).toMatch(/^AT\s+DIRECTION\s+KIND\s+OUTCOME\s+LEAD\s+CONTACT\s+DETAIL$/);
    expect(text).toMatch(/push\s+contact\s+retrying\s+lead_ada1\s+-\s+attempt 1 failed: HubSpot answered 503/);
    expect(text).toMatch(/push\s+contact\s+succeeded\s+lead_ada1\s+\d+\s+contact \d+ created \(attempt 2\)/);
    expect(text).toMatch(/push\s+deal\s+succeeded/);
    expect(text).toMatch(/pull\s+/);
  });

  it('filters by direction and outcome, and says so when nothing matches', async () => {
    const push = JSON.parse(await run(['log', '--direction', 'push', '--json', '--db', db])) as { entries: { direction: string }[] };
    expect(push.entries.length).toBeGreaterThan(0);
    expect(push.entries.every((e) => e.direction === 'push')).toBe(true);
    const retrying = JSON.parse(await run(['log', '--outcome', 'retrying', '--json', '--db', db])) as { entries: { outcome: string; kind: string }[] };
    expect(retrying.entries).toEqual([expect.objectContaining({ outcome: 'retrying', kind: 'contact' })]);
    expect(await run(['log', '--outcome', 'failed', '--db', db])).toBe('No sync log entry matches.\n');
  });

  it('pages with --limit and the printed --cursor, and refuses bad flags by name', async () => {
    const all = JSON.parse(await run(['log', '--json', '--db', db])) as { entries: { id: string }[] };
    const first = await run(['log', '--limit', '2', '--db', db]);
    const cursor = /More: --cursor (\S+)/.exec(first)?.[1];
    expect(cursor).toBeDefined();
    const second = JSON.parse(await run(['log', '--limit', '2', '--cursor', cursor as string, '--json', '--db', db])) as { entries: { id: string }[] };
    expect(second.entries.map((e) => e.id)).toEqual(all.entries.slice(2, 4).map((e) => e.id));
    await expect(run(['log', '--direction', 'sideways', '--db', db])).rejects.toThrow(/--direction: "sideways" must be one of push, pull/);
    await expect(run(['log', '--limit', '0', '--db', db])).rejects.toThrow(/--limit: "0" must be a whole number from 1 to 200/);
    await expect(run(['log', '--outcome', 'failed', '--cursor', cursor as string, '--db', db])).rejects.toThrow(/cursor/i);
  });
});

describe('outreach crm status', () => {
  it('names the token variable and whether it is set, never its value, with the backlog', async () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ crm: { hubspot: { tokenEnv: TOKEN_ENV } } }));
    process.env[TOKEN_ENV] = hs.token;
    try {
      const text = await run(['status', '--db', db, '--config', config]);
      expect(text).toContain(`CRM: hubspot, token from ${TOKEN_ENV} (set)`);
      expect(text).toMatch(/OUTBOX\s+PENDING\s+DUE\s+IN FLIGHT\s+SUCCEEDED\s+FAILED\s+OLDEST PENDING/);
      expect(text).toMatch(/pushes\s+0\s+0\s+0\s+[1-9]\d*\s+0\s+-/);
      expect(text).not.toContain(hs.token);
    } finally {
      delete process.env[TOKEN_ENV];
    }
    const unset = JSON.parse(await run(['status', '--json', '--db', db, '--config', config])) as { connection: unknown };
    expect(unset.connection).toEqual({ crm: 'hubspot', tokenEnv: TOKEN_ENV, tokenSet: false });
    expect(await run(['status', '--db', db])).toMatch(/^CRM: not configured/);
  });
});
