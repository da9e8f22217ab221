import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { restoreCampaign } from '../../../src/core/campaigns/state-machine.js';
import { FakeClock, utcDay } from '../../../src/core/clock.js';
import { freshLeadQuotas, probeSizes } from '../../../src/core/outreach/quotas.js';
import { resolveEngineSettings } from '../../../src/core/outreach/settings.js';
import { loadRunningCampaigns } from '../../../src/core/outreach/state.js';
import { accountDaily, agents } from '../../../src/db/schema.js';
import { engineWorkspace } from '../../engine/helpers.js';
import { testCtx } from '../../helpers.js';

const NOW = Date.parse('2026-11-03T10:00:00Z');

describe('fresh-lead quotas', () => {
  it('reads two due leads per campaign when sends are spaced, a batch without spacing, and at most five new ones', () => {
    expect(probeSizes(resolveEngineSettings({}))).toEqual({ perWake: 2, fresh: 2 });
    expect(probeSizes(resolveEngineSettings({ spacingSeconds: { min: 0, max: 0 }, batchSize: 50 }))).toEqual({ perWake: 50, fresh: 5 });
    expect(probeSizes(resolveEngineSettings({ spacingSeconds: { min: 0, max: 0 }, batchSize: 3 }))).toEqual({ perWake: 3, fresh: 3 });
  });

  it('takes no more new leads than the sender may still invite today, and none from a sender known to be full', () => {
    const ctx = testCtx({ workspace: engineWorkspace([], { limits: { connectionRequestLimit: 3 } }), clock: new FakeClock(NOW) });
    const safety = resolveEngineSettings({}).safety;
    // A second campaign without an agent takes the whole room at once (its leads fail or wait for an account).
    restoreCampaign(ctx, { id: 'cmp_none', name: 'None', status: 'CAMPAIGN_IN_PROGRESS', createdAt: 1, updatedAt: 1 });
    const running = loadRunningCampaigns(ctx);
    const quotas = (room: number, full: (id: string) => boolean = () => false) => freshLeadQuotas(ctx, safety, running, NOW, room, full);
    expect(quotas(5)).toEqual({
      quotas: new Map([
        ['cmp', 3],
        ['cmp_none', 5],
      ]),
      full: new Map(),
    });
    expect(quotas(2).quotas.get('cmp')).toBe(2);
    ctx.db
      .insert(accountDaily)
      .values({ accountId: 'acc_a', day: utcDay(NOW), connectionRequestsSent: 3 })
      .run();
    expect(quotas(5)).toEqual({
      quotas: new Map([
        ['cmp', 0],
        ['cmp_none', 5],
      ]),
      full: new Map([['acc_a', Date.parse('2026-11-04T00:00:00Z')]]),
    });
    // Known to be full: not read again, and nothing taken.
    ctx.db.update(accountDaily).set({ connectionRequestsSent: 0 }).run();
    expect(quotas(5, (id) => id === 'acc_a')).toEqual({
      quotas: new Map([
        ['cmp', 0],
        ['cmp_none', 5],
      ]),
      full: new Map(),
    });
    // A sender that is not connected takes nothing.
    ctx.db.update(agents).set({ accountId: 'acc_gone' }).where(eq(agents.id, 'tpl')).run();
    expect(freshLeadQuotas(ctx, safety, loadRunningCampaigns(ctx), NOW, 5, () => false).quotas.get('cmp')).toBe(0);
  });
});
