import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/core/clock.js';
import { acquireLease } from '../../../src/core/outreach/lease.js';
import { completeFinished, FULL_COMPLETION_CHECK_EVERY } from '../../../src/core/outreach/queue.js';
import { loadRunningCampaigns } from '../../../src/core/outreach/state.js';
import { leads } from '../../../src/db/schema.js';
import { engineWorkspace } from '../../engine/helpers.js';
import { testCtx } from '../../helpers.js';
import { MINUTE } from './helpers.js';

const NOW = Date.parse('2026-11-03T10:00:00Z');

describe('the completion pass of a tick', () => {
  it('looks only at campaigns touched in the tick, and at every running one on every twentieth tick', () => {
    const ctx = testCtx({ workspace: engineWorkspace(['ann', 'bob']), clock: new FakeClock(NOW) });
    expect(acquireLease(ctx.db, ctx.clock, 'me', MINUTE)).toBe(true);
    const running = () => loadRunningCampaigns(ctx);
    const none = new Set<string>();
    // Work left (new leads): not completed, even when touched and on a full check.
    expect(completeFinished(ctx, running(), new Set(['cmp']), 0, 'me')).toEqual([]);
    ctx.db.update(leads).set({ nextActionAt: null }).run();
    // Out of work, but left alone on an ordinary tick where nothing of it happened.
    expect(completeFinished(ctx, running(), none, 1, 'me')).toEqual([]);
    expect(completeFinished(ctx, running(), none, FULL_COMPLETION_CHECK_EVERY - 1, 'me')).toEqual([]);
    // Another holder's pass completes nothing: only the lease holder completes campaigns.
    expect(completeFinished(ctx, running(), new Set(['cmp']), 1, 'other')).toEqual([]);
    expect(completeFinished(ctx, running(), none, FULL_COMPLETION_CHECK_EVERY, 'me')).toEqual(['cmp']);
    expect(running()).toEqual([]);
  });

  it('completes a campaign touched in the tick once its last work is done', () => {
    const ctx = testCtx({ workspace: engineWorkspace(['ann']), clock: new FakeClock(NOW) });
    acquireLease(ctx.db, ctx.clock, 'me', MINUTE);
    ctx.db.update(leads).set({ nextActionAt: null }).run();
    expect(completeFinished(ctx, loadRunningCampaigns(ctx), new Set(['cmp']), 7, 'me')).toEqual(['cmp']);
  });
});
