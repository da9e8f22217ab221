import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { findAccount } from '../../src/core/accounts/resolve.js';
import { isOnExclusionList } from '../../src/core/leads/exclude.js';
import { loadCampaignInfo, loadRunningCampaigns } from '../../src/core/outreach/state.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { openDatabase } from '../../src/db/connection.js';
import { counted } from '../../src/db/counted.js';
import { accounts, agents, campaigns, changeCounters, exclusions } from '../../src/db/schema.js';
import { fixture, testCtx } from '../helpers.js';
import { setCampaignState } from '../helpers.js';
import { applyCampaignEvent } from '../../src/core/campaigns/state-machine.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const counter = (ctx: ReturnType<typeof testCtx>, name: string) => ctx.db.select().from(changeCounters).where(eq(changeCounters.name, name)).get()?.value;

/** Two connections on one file: a server's and, say, the operator's CLI. */
function twoConnections() {
  const dir = mkdtempSync(join(tmpdir(), 'counted-'));
  dirs.push(dir);
  const file = join(dir, 'a.db');
  const server = { ...testCtx({ workspace: null }), db: openDatabase(file) };
  loadWorkspace(server, WorkspaceFile.parse(fixture()), { reset: false });
  const cli = { ...server, db: openDatabase(file) };
  return { server, cli };
}

describe('trigger-kept change counters', () => {
  it('move on the writes the engine cares about, and stand still on the others', () => {
    const ctx = testCtx();
    const [campaign] = ctx.db.select().from(campaigns).all();
    const c0 = counter(ctx, 'campaigns')!;
    // A send bumps the campaign's counters: not a change to what the engine keeps.
    ctx.db.update(campaigns).set({ connectionRequestsSent: 5, updatedAt: 1 }).where(eq(campaigns.id, campaign!.id)).run();
    expect(counter(ctx, 'campaigns')).toBe(c0);
    setCampaignState(ctx, campaign!.id, { status: 'CAMPAIGN_PAUSED' });
    expect(counter(ctx, 'campaigns')).toBe(c0 + 1);
    ctx.db.update(agents).set({ connectionNote: 'Hello' }).run();
    expect(counter(ctx, 'campaigns')!).toBeGreaterThan(c0 + 1);

    const a0 = counter(ctx, 'accounts')!;
    ctx.db.update(accounts).set({ messageLimit: 7 }).run();
    expect(counter(ctx, 'accounts')!).toBeGreaterThan(a0);

    const e0 = counter(ctx, 'exclusions')!;
    ctx.db.insert(exclusions).values({ networkUrl: 'https://www.linkedin.com/in/x', createdAt: 1 }).run();
    expect(counter(ctx, 'exclusions')).toBe(e0 + 1);
    ctx.db.delete(exclusions).where(eq(exclusions.networkUrl, 'https://www.linkedin.com/in/x')).run();
    expect(counter(ctx, 'exclusions')).toBe(e0 + 2);
  });

  it('keep a value while the counter stands still, and reload it after a change', () => {
    const ctx = testCtx();
    let loads = 0;
    const kept = counted('accounts', () => ++loads);
    expect(kept(ctx.db)).toBe(1);
    expect(kept(ctx.db)).toBe(1);
    ctx.db.update(accounts).set({ messageLimit: 9 }).run();
    expect(kept(ctx.db)).toBe(2);
    expect(kept(ctx.db)).toBe(2);
  });

  it('keep nothing loaded inside a transaction, which may yet roll back', () => {
    const ctx = testCtx();
    let loads = 0;
    const kept = counted('accounts', () => ++loads);
    expect(kept(ctx.db)).toBe(1);
    expect(() =>
      ctx.db.$client.transaction(() => {
        // Valid inside: nothing changed yet.
        expect(kept(ctx.db)).toBe(1);
        ctx.db.update(accounts).set({ messageLimit: 9 }).run();
        expect(kept(ctx.db)).toBe(2);
        expect(kept(ctx.db)).toBe(3);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    // The rolled-back change never happened: the value kept before it still holds.
    expect(kept(ctx.db)).toBe(1);
  });

  it('see a change committed by another connection on the next read', () => {
    const { server, cli } = twoConnections();
    const [running] = loadRunningCampaigns(server);
    expect(running).toBeDefined();
    const accountId = server.db.select().from(accounts).get()!.id;
    expect(findAccount(server, accountId)?.active).toBe(true);
    const person = 'https://www.linkedin.com/in/someone-else';
    expect(isOnExclusionList(server, person)).toBe(false);

    expect(applyCampaignEvent(cli, running!.id, 'pause')).toBe(true);
    cli.db.update(accounts).set({ active: false }).where(eq(accounts.id, accountId)).run();
    cli.db.insert(exclusions).values({ networkUrl: person, createdAt: 1 }).run();

    expect(loadRunningCampaigns(server).map((c) => c.id)).not.toContain(running!.id);
    expect(loadCampaignInfo(server, running!.id)?.status).toBe('CAMPAIGN_PAUSED');
    expect(findAccount(server, accountId)?.active).toBe(false);
    expect(isOnExclusionList(server, person)).toBe(true);
  });

  it('survive a workspace reset, which empties every other table', () => {
    const ctx = testCtx();
    const before = counter(ctx, 'campaigns')!;
    loadWorkspace(ctx, WorkspaceFile.parse(fixture()), { reset: true });
    expect(counter(ctx, 'campaigns')!).toBeGreaterThan(before);
    expect(counter(ctx, 'accounts')).toBeDefined();
    expect(counter(ctx, 'exclusions')).toBeDefined();
  });

  it('hand out frozen rows, so no caller can change what others are served', () => {
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
