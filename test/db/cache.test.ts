import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { countAccountDaily } from '../../src/core/activity/record.js';
import { findAccount } from '../../src/core/accounts/resolve.js';
import { authenticateKey, revokeApiKey } from '../../src/core/auth/keys.js';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { applyCampaignEvent } from '../../src/core/campaigns/state-machine.js';
import { getCredits } from '../../src/core/credits/get.js';
import { ApiError } from '../../src/core/errors.js';
import { isOnExclusionList } from '../../src/core/leads/exclude.js';
import { loadCampaignInfo, loadRunningCampaigns } from '../../src/core/outreach/state.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { cached, cachedBy, versionOf } from '../../src/db/cache.js';
import { openDatabase } from '../../src/db/connection.js';
import * as schema from '../../src/db/schema.js';
import { accounts, agents, apiKeys, campaigns, creditBalance, exclusions, mailboxes, workspace } from '../../src/db/schema.js';
import { savepoint, transaction } from '../../src/db/tx.js';
import { fixture, setCampaignState, TEST_KEY, testCtx } from '../helpers.js';
import { freshHandle } from '../plans.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A migrated database file holding the fixture workspace, and a context on it. */
function seededFile() {
  const dir = mkdtempSync(join(tmpdir(), 'cache-'));
  dirs.push(dir);
  const file = join(dir, 'a.db');
  const ctx = { ...testCtx({ workspace: null }), db: openDatabase(file) };
  loadWorkspace(ctx, WorkspaceFile.parse(fixture()), { reset: false });
  return { file, ctx };
}

/** Two connections on one file: a server's and, say, the operator's CLI. */
function twoConnections() {
  const { file, ctx: server } = seededFile();
  const cli = { ...server, db: openDatabase(file) };
  return { server, cli };
}

const refused = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof ApiError ? err.code : String(err);
  }
};

describe('the cache signal (a generation per group, per connection)', () => {
  it('moves on the writes a kept value depends on, and stands still on the others', () => {
    const ctx = testCtx();
    const db = ctx.db;
    const moved = (counter: Parameters<typeof versionOf>[1], write: () => unknown): boolean => {
      const before = versionOf(db, counter);
      write();
      return versionOf(db, counter) !== before;
    };
    const [campaign] = db.select().from(campaigns).all();
    // A send bumps a campaign's stats and the workspace's lifetime stats: nothing kept depends on them.
    expect(moved('campaigns', () => db.update(campaigns).set({ connectionRequestsSent: 5, updatedAt: 1 }).where(eq(campaigns.id, campaign!.id)).run())).toBe(
      false,
    );
    expect(moved('workspace', () => db.update(workspace).set({ messagesSent: 9 }).run())).toBe(false);
    expect(moved('campaigns', () => setCampaignState({ db }, campaign!.id, { status: 'CAMPAIGN_PAUSED' }))).toBe(true);
    expect(moved('campaigns', () => db.update(agents).set({ connectionNote: 'Hello' }).run())).toBe(true);
    expect(moved('campaigns', () => db.update(campaigns).set({ approval: 'required' }).where(eq(campaigns.id, campaign!.id)).run())).toBe(true);
    // Its senders are kept with a campaign; its name is not.
    expect(moved('campaigns', () => updateCampaign(ctx, campaign!.id, { senderAccountIds: ['acc_nav'] }))).toBe(true);
    expect(moved('campaigns', () => updateCampaign(ctx, campaign!.id, { name: 'Renamed' }))).toBe(false);
    expect(moved('accounts', () => db.update(accounts).set({ messageLimit: 7 }).run())).toBe(true);
    // Every write to a mailbox moves its group: a kept row is the whole row, the inbox's cursor included.
    expect(moved('mailboxes', () => db.update(mailboxes).set({ inboxLastUid: 7 }).where(eq(mailboxes.id, 'mbx_sales')).run())).toBe(true);
    expect(moved('mailboxes', () => db.update(mailboxes).set({ dailyLimit: 7 }).where(eq(mailboxes.id, 'mbx_sales')).run())).toBe(true);
    expect(moved('exclusions', () => db.insert(exclusions).values({ networkUrl: 'https://www.linkedin.com/in/x', createdAt: 1 }).run())).toBe(true);
    expect(moved('exclusions', () => db.delete(exclusions).run())).toBe(true);
    expect(moved('keys', () => db.update(apiKeys).set({ lastUsedAt: 5 }).run())).toBe(true);
    expect(moved('workspace', () => db.update(workspace).set({ plan: 'free' }).run())).toBe(true);
    expect(moved('credits', () => db.update(creditBalance).set({ credits: 3 }).run())).toBe(true);
    // A send counted on an account's day (the engine reuses a tick's counters only while this stands).
    expect(moved('daily', () => countAccountDaily(ctx, 'acc_a', 'messagesSent'))).toBe(true);
    expect(moved('daily', () => countAccountDaily(ctx, 'acc_a', 'messagesSent'))).toBe(true);
    // An update that changes no row fires no trigger.
    expect(moved('accounts', () => db.update(accounts).set({ messageLimit: 1 }).where(eq(accounts.id, 'nobody')).run())).toBe(false);
  });

  it('is told by TEMP triggers of this connection alone, which write no table', () => {
    const { db } = testCtx();
    const temp = db.$client.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM temp.sqlite_master WHERE type = 'trigger'").all();
    expect(temp.length).toBe(27);
    for (const t of temp) expect(t.sql, t.name).toMatch(/BEGIN SELECT cache_touched\('[a-z]+'\); END$/);
    // Nothing of it is in the file: another connection, or the sqlite3 shell, sees no trigger of the cache.
    expect(db.$client.prepare("SELECT count(*) FROM main.sqlite_master WHERE type = 'trigger' AND sql LIKE '%cache_touched%'").pluck().get()).toBe(0);
  });

  it('never comes back to an earlier value: each write moves it on', () => {
    const { db } = testCtx();
    const seen = new Set<number | undefined>([versionOf(db, 'accounts')]);
    for (let i = 0; i < 50; i++) {
      db.update(accounts)
        .set({ messageLimit: i % 2 })
        .run();
      seen.add(versionOf(db, 'accounts'));
    }
    expect(seen.size).toBe(51);
  });

  it('holds through a workspace reset, which empties every table', () => {
    const ctx = testCtx();
    loadWorkspace(ctx, WorkspaceFile.parse(fixture()), { reset: true });
    for (const c of ['campaigns', 'accounts', 'mailboxes', 'exclusions', 'keys', 'workspace', 'credits'] as const)
      expect(versionOf(ctx.db, c), c).toBeDefined();
  });
});

describe('the cache', () => {
  it('keeps a value while its counter stands still, and loads it again after a change', () => {
    const ctx = testCtx();
    let loads = 0;
    const kept = cached('accounts', () => ++loads);
    expect(kept(ctx.db)).toBe(1);
    expect(kept(ctx.db)).toBe(1);
    for (const c of ctx.db.select().from(campaigns).all()) setCampaignState(ctx, c.id, { status: 'CAMPAIGN_PAUSED' });
    expect(kept(ctx.db)).toBe(1);
    ctx.db.update(accounts).set({ messageLimit: 9 }).run();
    expect(kept(ctx.db)).toBe(2);
    expect(kept(ctx.db)).toBe(2);
  });

  it('keeps values by key, but no missing one', () => {
    const ctx = testCtx();
    let loads = 0;
    const kept = cachedBy('keys', (_db, key) => (key === 'missing' ? (loads++, undefined) : `${key}:${++loads}`));
    expect(kept(ctx.db, 'a')).toBe('a:1');
    expect(kept(ctx.db, 'b')).toBe('b:2');
    expect(kept(ctx.db, 'a')).toBe('a:1');
    expect(kept(ctx.db, 'missing')).toBeUndefined();
    expect(kept(ctx.db, 'missing')).toBeUndefined();
    expect(loads).toBe(4);
    ctx.db.update(apiKeys).set({ lastUsedAt: 1 }).run();
    expect(kept(ctx.db, 'a')).toBe('a:5');
  });

  it('keeps a value loaded inside a transaction until the transaction writes its tables', () => {
    const ctx = testCtx();
    let loads = 0;
    const kept = cached('accounts', () => ++loads);
    transaction(ctx.db, () => {
      expect(kept(ctx.db)).toBe(1);
      expect(kept(ctx.db)).toBe(1);
      ctx.db.update(accounts).set({ messageLimit: 9 }).run();
      // After its own write, a transaction reads the value as it stands in it, and keeps none of it.
      expect(kept(ctx.db)).toBe(2);
      expect(kept(ctx.db)).toBe(3);
    });
    // Once it has ended the value is loaded once more, then kept.
    expect(kept(ctx.db)).toBe(4);
    expect(kept(ctx.db)).toBe(4);
    // Read only inside transactions that do not write it, a value is loaded once per change (the trap of f197dcf).
    transaction(ctx.db, () => expect(kept(ctx.db)).toBe(4));
    transaction(ctx.db, () => expect(kept(ctx.db)).toBe(4));
    ctx.db.update(accounts).set({ messageLimit: 10 }).run();
    transaction(ctx.db, () => expect(kept(ctx.db)).toBe(5));
    transaction(ctx.db, () => expect(kept(ctx.db)).toBe(5));
  });

  it('never serves a value loaded after a write a savepoint took back', () => {
    const ctx = testCtx();
    const kept = cached('accounts', (db) => db.select().from(accounts).get()!.messageLimit);
    transaction(ctx.db, () => {
      expect(kept(ctx.db)).toBe(50);
      expect(() =>
        savepoint(ctx.db, () => {
          ctx.db.update(accounts).set({ messageLimit: 9 }).run();
          expect(kept(ctx.db)).toBe(9);
          throw new Error('undo this item');
        }),
      ).toThrow('undo this item');
      expect(kept(ctx.db)).toBe(50);
    });
    expect(kept(ctx.db)).toBe(50);
  });

  it('never serves a value a rolled-back transaction loaded, even after another write', () => {
    const ctx = testCtx();
    let loads = 0;
    const kept = cached('accounts', (db) => ({ n: ++loads, limit: db.select().from(accounts).get()!.messageLimit }));
    expect(kept(ctx.db)).toEqual({ n: 1, limit: 50 });
    expect(() =>
      transaction(ctx.db, () => {
        ctx.db.update(accounts).set({ messageLimit: 9 }).run();
        expect(kept(ctx.db)).toEqual({ n: 2, limit: 9 });
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    // The rolled-back change never happened, and no kept value carries it.
    expect(kept(ctx.db)).toEqual({ n: 3, limit: 50 });
    expect(kept(ctx.db)).toEqual({ n: 3, limit: 50 });
    // A different change committed now must not meet the rolled-back value.
    ctx.db.update(accounts).set({ messageLimit: 12 }).run();
    expect(kept(ctx.db)).toEqual({ n: 4, limit: 12 });
  });

  it('sees a change committed by another connection from the next stretch of work on', async () => {
    const { server, cli } = twoConnections();
    const [running] = loadRunningCampaigns(server);
    expect(running).toBeDefined();
    const accountId = server.db.select().from(accounts).get()!.id;
    expect(findAccount(server, accountId)?.active).toBe(true);
    const person = 'https://www.linkedin.com/in/someone-else';
    expect(isOnExclusionList(server, person)).toBe(false);
    const { keyId } = authenticateKey(server, TEST_KEY);
    const plan = getWorkspace(server)?.plan;
    expect(plan).toBeDefined();
    const credits = getCredits(server, getWorkspace(server)!).credits;

    expect(applyCampaignEvent(cli, running!.id, 'pause')).toBe(true);
    cli.db.update(accounts).set({ active: false }).where(eq(accounts.id, accountId)).run();
    cli.db.insert(exclusions).values({ networkUrl: person, createdAt: 1 }).run();
    revokeApiKey(cli, keyId);
    cli.db.update(workspace).set({ plan: 'free' }).run();
    cli.db
      .update(creditBalance)
      .set({ credits: credits + 7 })
      .run();
    cli.db.$client.close();
    // Another connection's commits are looked for once per synchronous stretch of work: the next request sees them.
    await new Promise((resolve) => setImmediate(resolve));

    expect(loadRunningCampaigns(server).map((c) => c.id)).not.toContain(running!.id);
    expect(loadCampaignInfo(server, running!.id)?.status).toBe('CAMPAIGN_PAUSED');
    expect(findAccount(server, accountId)?.active).toBe(false);
    expect(isOnExclusionList(server, person)).toBe(true);
    expect(refused(() => authenticateKey(server, TEST_KEY))).toBe('unauthorized');
    expect(getWorkspace(server)?.plan).toBe('free');
    expect(getCredits(server, getWorkspace(server)!).credits).toBe(credits + 7);
    server.db.$client.close();
  });

  it("serves a running campaign's new senders at once, whoever wrote them", async () => {
    const { server, cli } = twoConnections();
    const [running] = loadRunningCampaigns(server);
    expect(loadCampaignInfo(server, running!.id)?.senderIds).toEqual([]);
    // update_campaign refuses it while the campaign runs; the cache does not rely on that.
    server.db.update(campaigns).set({ senderAccountIds: '["acc_nav"]' }).where(eq(campaigns.id, running!.id)).run();
    expect(loadCampaignInfo(server, running!.id)?.senderIds).toEqual(['acc_nav']);
    expect(loadRunningCampaigns(server).find((c) => c.id === running!.id)?.senderIds).toEqual(['acc_nav']);
    // And from another connection (the CLI), from the next stretch of work on.
    expect(applyCampaignEvent(cli, running!.id, 'pause')).toBe(true);
    updateCampaign(cli, running!.id, { senderAccountIds: ['acc_ada', 'acc_nav'] });
    expect(applyCampaignEvent(cli, running!.id, 'resume')).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(loadCampaignInfo(server, running!.id)?.senderIds).toEqual(['acc_ada', 'acc_nav']);
    server.db.$client.close();
  });

  it('hands out frozen rows, so no caller can change what others are served', () => {
    const ctx = testCtx();
    const account = ctx.db.select().from(accounts).get()!;
    const kept = findAccount(ctx, account.id)!;
    expect(Object.isFrozen(kept)).toBe(true);
    expect(() => {
      (kept as { messageLimit: number }).messageLimit = 1;
    }).toThrow(TypeError);
    const [info] = loadRunningCampaigns(ctx);
    expect(Object.isFrozen(info)).toBe(true);
  });
});

describe('what a lookup costs', () => {
  /** A connection on a migrated file that logs every statement it runs, as a server's would run them. */
  function loggedConnection() {
    const { file, ctx: seeded } = seededFile();
    const statements: string[] = [];
    const sqlite = new Database(file, { verbose: (sql) => statements.push(String(sql)) });
    const db = drizzle(sqlite, { schema }) as unknown as typeof seeded.db;
    return { ctx: { ...seeded, db }, statements, other: seeded };
  }
  const turn = () => new Promise<void>((resolve) => queueMicrotask(resolve));

  it("runs one statement per stretch of work for a request's lookups, and none for a write no counter follows", async () => {
    const { ctx, statements, other } = loggedConnection();
    const lookups = () => {
      authenticateKey(ctx, TEST_KEY);
      getCredits(ctx, getWorkspace(ctx)!);
    };
    // The first use writes the key's lastUsedAt, which moves the keys counter: the next load is the last.
    lookups();
    lookups();
    await turn();
    statements.length = 0;
    lookups();
    expect(statements).toEqual(['PRAGMA data_version']);
    await turn();
    statements.length = 0;
    lookups();
    lookups();
    expect(statements).toEqual(['PRAGMA data_version']);
    // A write that moves no counter (a campaign's stats) sends no one back to the counters.
    const [campaign] = ctx.db.select().from(campaigns).all();
    ctx.db.update(campaigns).set({ connectionRequestsSent: 3 }).where(eq(campaigns.id, campaign!.id)).run();
    statements.length = 0;
    lookups();
    expect(statements).toEqual([]);
    // Another connection's commit is found by the one statement, in the next stretch.
    other.db.update(creditBalance).set({ credits: 77 }).run();
    await turn();
    statements.length = 0;
    expect(getCredits(ctx, getWorkspace(ctx)!).credits).toBe(77);
    expect(statements[0]).toBe('PRAGMA data_version');
    expect(statements.length).toBeGreaterThan(1);
    other.db.$client.close();
    ctx.db.$client.close();
  });

  it("sees this connection's own writes at once, through any handle and raw SQL alike", () => {
    const ctx = testCtx();
    let loads = 0;
    const kept = cached('credits', () => ++loads);
    expect(kept(ctx.db)).toBe(1);
    // Another drizzle handle on the same connection, in the same stretch of work.
    freshHandle(ctx.db).update(creditBalance).set({ credits: 5 }).run();
    expect(kept(ctx.db)).toBe(2);
    ctx.db.$client.prepare('UPDATE credit_balance SET credits = credits + 1').run();
    expect(kept(ctx.db)).toBe(3);
    // Kept per handle: a second handle loads its own, and the first keeps serving its value.
    expect(kept(freshHandle(ctx.db))).toBe(4);
    expect(kept(ctx.db)).toBe(3);
    // A write rolled back outside the cache's sight (no transaction() of ours) still moves the group: a fresh load, never a stale value.
    expect(() =>
      ctx.db.$client.transaction(() => {
        ctx.db.$client.prepare('UPDATE credit_balance SET credits = 0').run();
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(kept(ctx.db)).toBe(5);
    expect(kept(ctx.db)).toBe(5);
    ctx.db.update(creditBalance).set({ credits: 8 }).run();
    expect(kept(ctx.db)).toBe(6);
  });

  it('a key revoked on this connection or another stops working on the next lookup', async () => {
    const { server, cli } = twoConnections();
    const { keyId } = authenticateKey(server, TEST_KEY);
    revokeApiKey(server, keyId);
    expect(refused(() => authenticateKey(server, TEST_KEY))).toBe('unauthorized');
    server.db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, keyId)).run();
    expect(authenticateKey(server, TEST_KEY).keyId).toBe(keyId);
    revokeApiKey(cli, keyId);
    await new Promise((resolve) => setImmediate(resolve));
    expect(refused(() => authenticateKey(server, TEST_KEY))).toBe('unauthorized');
    cli.db.$client.close();
    server.db.$client.close();
  });
});
