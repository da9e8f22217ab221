import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pauseCampaign } from '../../../src/core/campaigns/lifecycle.js';
import { draftFor } from '../../../src/core/drafts/prepare.js';
import { updateDrafts } from '../../../src/core/drafts/update.js';
import { anyoneListening, listenToChanges, type LiveChange } from '../../../src/core/live/feed.js';
import { WorkspaceFile } from '../../../src/core/seed/file.js';
import { loadWorkspace } from '../../../src/core/seed/load.js';
import { openDatabase } from '../../../src/db/connection.js';
import { testCtx } from '../../helpers.js';
import { noteFor, reviewWorkspace } from '../../drafts/helpers.js';

/** Collects the batches a listener hears; `next()` waits for the next one. */
function recorder(ctx: Parameters<typeof listenToChanges>[0]) {
  const batches: (readonly LiveChange[])[] = [];
  let wake: (() => void) | undefined;
  const stop = listenToChanges(ctx, (batch) => {
    batches.push(batch);
    wake?.();
  });
  const next = async (): Promise<readonly LiveChange[]> => {
    const seen = batches.length;
    while (batches.length === seen) await new Promise<void>((resolve) => (wake = resolve));
    return batches[batches.length - 1] as readonly LiveChange[];
  };
  return { batches, next, stop };
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('the change feed', () => {
  it('costs nothing and holds nothing while nobody listens', () => {
    const ctx = testCtx({ workspace: reviewWorkspace(2) });
    expect(anyoneListening(ctx)).toBe(false);
    draftFor(ctx, noteFor('lead_r0'));
    expect(anyoneListening(ctx)).toBe(false);
  });

  it('names the draft queue a new draft lands in, once for a burst of drafts (coalesced)', async () => {
    const ctx = testCtx({ workspace: reviewWorkspace(3) });
    const rec = recorder(ctx);
    stops.push(rec.stop);
    for (const lead of ['lead_r0', 'lead_r1', 'lead_r2']) draftFor(ctx, noteFor(lead));
    const batch = await rec.next();
    const queues = batch.filter((c) => c.resource === 'drafts');
    expect(queues).toEqual([{ resource: 'drafts', campaignId: 'cmp_review' }]);
  });

  it('names the queue when a draft is approved, edited or rejected', async () => {
    const ctx = testCtx({ workspace: reviewWorkspace(2) });
    const a = draftFor(ctx, noteFor('lead_r0'));
    const b = draftFor(ctx, noteFor('lead_r1'));
    const rec = recorder(ctx);
    stops.push(rec.stop);
    updateDrafts(ctx, [{ id: a.id, status: 'approved' }]);
    expect(await rec.next()).toContainEqual({ resource: 'drafts', campaignId: 'cmp_review' });
    updateDrafts(ctx, [{ id: b.id, status: 'rejected' }]);
    expect(await rec.next()).toContainEqual({ resource: 'drafts', campaignId: 'cmp_review' });
  });

  it('names a campaign whose state changes', async () => {
    const ctx = testCtx({ workspace: reviewWorkspace(1) });
    const rec = recorder(ctx);
    stops.push(rec.stop);
    pauseCampaign(ctx, 'cmp_review');
    expect(await rec.next()).toContainEqual({ resource: 'campaign', campaignId: 'cmp_review' });
  });

  it('stops telling a listener once it stops listening', async () => {
    const ctx = testCtx({ workspace: reviewWorkspace(2) });
    const gone = recorder(ctx);
    const stays = recorder(ctx);
    stops.push(stays.stop);
    gone.stop();
    draftFor(ctx, noteFor('lead_r0'));
    await stays.next();
    expect(gone.batches).toEqual([]);
  });

  it('hears of another connection’s commit (another process on the same file) as a workspace change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-feed-'));
    const file = join(dir, 'o.db');
    const server = openDatabase(file);
    const cli = openDatabase(file);
    try {
      const serverCtx = { ...testCtx({ workspace: null }), db: server };
      const cliCtx = { ...testCtx({ workspace: null }), db: cli };
      loadWorkspace(cliCtx, WorkspaceFile.parse(reviewWorkspace(1)), { reset: false });
      const rec = recorder(serverCtx);
      stops.push(rec.stop);
      draftFor(cliCtx, noteFor('lead_r0'));
      expect(await rec.next()).toContainEqual({ resource: 'workspace' });
      // Its own writes are not another process's: they name what changed.
      updateDrafts(serverCtx, [{ id: draftFor(serverCtx, noteFor('lead_r0')).id, status: 'approved' }]);
      expect(await rec.next()).toEqual([{ resource: 'drafts', campaignId: 'cmp_review' }]);
    } finally {
      for (const stop of stops.splice(0)) stop();
      server.$client.close();
      cli.$client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
