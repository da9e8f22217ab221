import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { startCampaign } from '../../src/core/campaigns/lifecycle.js';
import { ensureDemo } from '../../src/core/seed/demo.js';
import { activity, campaigns } from '../../src/db/schema.js';
import { Engine } from '../../src/workers/outreach/index.js';
import { testCtx } from '../helpers.js';
import { engineSettings, MINUTE } from './helpers.js';

describe('demo workspace', () => {
  it('shows activity at once and every kind of response once started', async () => {
    const ctx = testCtx({ workspace: null });
    expect(ensureDemo(ctx)).toMatch(/^sk_test_/);
    expect((await startCampaign(ctx, 'cmp_demo')).action).toBe('started');
    const engine = new Engine(ctx, { settings: engineSettings(), random: () => 0 });
    await engine.tick();
    const types = () =>
      new Set(
        ctx.db
          .select({ type: activity.type })
          .from(activity)
          .all()
          .map((e) => e.type),
      );
    expect(types()).toContain('connection_request_sent');
    for (let i = 0; i < 6 * 24 * 8 && types().size < 7; i++) {
      ctx.clock.advance(10 * MINUTE);
      await engine.tick();
    }
    expect([...types()].sort()).toEqual(
      ['agent_handed_off', 'agent_replied', 'connection_accepted', 'connection_request_sent', 'cta_sent', 'message_sent', 'reply_received'].sort(),
    );
    expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, 'cmp_demo')).get()?.status).toBe('CAMPAIGN_IN_PROGRESS');
  });
});
