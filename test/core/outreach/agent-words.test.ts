import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/core/clock.js';
import { resolveEngineSettings } from '../../../src/core/outreach/settings.js';
import { getLead, loadCampaignInfo } from '../../../src/core/outreach/state.js';
import { afterAgent, agentInput } from '../../../src/core/outreach/work.js';
import { leads } from '../../../src/db/schema.js';
import { engineWorkspace } from '../../engine/helpers.js';
import { testCtx } from '../../helpers.js';

const NOW = Date.parse('2026-11-03T10:00:00Z');
const settings = resolveEngineSettings({ workingHours: null });

describe("an agent's answer with words that cannot be stored as given", () => {
  it.each([
    ['a lone surrogate', 'It is free \ud800'],
    ['a NUL', 'It is\u0000 free.'],
  ])('(%s) is not sent: the conversation goes to a person', (_name, text) => {
    const ctx = testCtx({ workspace: engineWorkspace(['ann', 'bob']), clock: new FakeClock(NOW) });
    ctx.db
      .update(leads)
      .set({ stage: 'replied', replied: true, pendingReplyText: 'Is it free?', chatId: 'chat_1', nextActionAt: NOW })
      .where(eq(leads.id, 'lead_1'))
      .run();
    const info = loadCampaignInfo(ctx, 'cmp')!;
    const lead = () => getLead(ctx, 'lead_1')!;
    expect(afterAgent(ctx, 'lead_1', info, settings, agentInput(lead()), { kind: 'reply', text }, NOW)).toEqual({ kind: 'recorded' });
    expect(lead()).toMatchObject({ stage: 'handed_off', agentSendText: null });
  });
});
