// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { StepInput } from '../../src/core/agents/steps.js';
import { createAgent, updateAgent } from '../../src/core/agents/agents.js';
import { pauseCampaign, startCampaign } from '../../src/core/campaigns/lifecycle.js';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { listDrafts } from '../../src/core/drafts/list.js';
import { getAgentStats } from '../../src/core/sequences/stats.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { accounts } from '../../src/db/schema.js';
import { Engine } from '../../src/workers/outreach/index.js';
import { DAY, engineSettings, HOUR, MINUTE } from '../engine/helpers.js';
import { stepsHarness, type StepsHarness } from './runner-helpers.js';

const BEN = 'ben-sim-never-accepts';

const drafts = (h: StepsHarness) => listDrafts(h.ctx, 'secret', { campaignId: 'cmp', limit: 100 }).drafts;

async function run(h: StepsHarness, span: number, step = 10 * MINUTE, engine?: Engine): Promise<void> {
  for (let t = 0; t < span; t += step) {
    await (engine ? engine.tick() : h.tick());
    h.ctx.clock.advance(step);
  }
}

const setSalesNavigator = (h: StepsHarness, on: boolean) => h.ctx.db.update(accounts).set({ hasSalesNavigator: on }).where(eq(accounts.id, 'acc_a')).run();

const INMAIL_THEN_VISIT: StepInput[] = [{ kind: 'inmail', subject: 'For {{firstName}}', text: 'Hi {{firstName}}, one idea.' }, { kind: 'visit' }];

describe('a draft is made only for a step that can be sent', () => {
  it('an InMail from a sender without Sales Navigator gets no draft: the step is skipped with its reason and the lead goes on', async () => {
    const h = await stepsHarness(INMAIL_THEN_VISIT, [{ slug: BEN, firstName: 'Ben' }], {
      approval: 'required',
      workspace: (ws) => Object.assign(ws.accounts![0]!, { hasSalesNavigator: false }),
    });
    await run(h, 2 * HOUR);
    expect(drafts(h)).toEqual([]);
    expect(h.eventsOf('lead_1')).toEqual(['inmail:skipped:no_sales_navigator', 'visit:sent']);
  });

  it('a message to a lead who is not a connection gets no draft', async () => {
    const h = await stepsHarness([{ kind: 'message', text: 'Hi {{firstName}}' }, { kind: 'visit' }], [{ slug: BEN, firstName: 'Ben' }], {
      approval: 'required',
    });
    await run(h, 2 * HOUR);
    expect(drafts(h)).toEqual([]);
    expect(h.eventsOf('lead_1')).toEqual(['message:skipped:not_connected', 'visit:sent']);
  });
});

describe('no draft waits forever', () => {
  it('an approved InMail whose sender lost Sales Navigator ends skipped (no_sales_navigator), across two weeks and a restart; the lead goes on', async () => {
    const h = await stepsHarness(INMAIL_THEN_VISIT, [{ slug: BEN, firstName: 'Ben' }], { approval: 'required' });
    await run(h, HOUR);
    const [draft] = drafts(h);
    expect(draft).toMatchObject({ kind: 'inmail', status: 'pending' });
    expect(updateDrafts(h.ctx, [{ id: draft!.id, status: 'approved' }]).summary.updated).toBe(1);
    setSalesNavigator(h, false);
    await run(h, 7 * DAY, HOUR);
    const restarted = new Engine(h.ctx, { settings: engineSettings({ replyWaitDays: 0 }), random: () => 0, holder: 'engine-after-restart' });
    h.ctx.clock.advance(31_000);
    await run(h, 7 * DAY, HOUR, restarted);
    expect(drafts(h)).toMatchObject([{ id: draft!.id, status: 'skipped', skipReason: 'no_sales_navigator' }]);
    // Listed under status=skipped, and no longer anywhere else.
    const only = (status: 'skipped' | 'approved') => listDrafts(h.ctx, 'secret', { status, limit: 10 }).drafts.map((d) => d.id);
    expect(only('skipped')).toEqual([draft!.id]);
    expect(only('approved')).toEqual([]);
    expect(h.net.calls.map((c) => c.op)).toEqual(['visit']);
    expect(h.eventsOf('lead_1')).toEqual(['inmail:skipped:no_sales_navigator', 'visit:sent']);
  });
});

describe('a draft whose step can no longer be sent ends skipped, and the lead goes on', () => {
  it('the lead replied: the pending draft of its next message is skipped (replied) and counted in get_agent_stats', async () => {
    const h = await stepsHarness(
      [
        { kind: 'invite', note: null },
        {
          kind: 'if',
          condition: 'accepted',
          withinHours: 48,
          then: [
            { kind: 'message', text: 'First, {{firstName}}' },
            { kind: 'message', text: 'Second, {{firstName}}' },
          ],
        },
      ],
      [{ slug: 'amy-sim-accepts-after-1h-sim-replies-after-1', firstName: 'Amy' }],
      { approval: 'required', config: { replyWaitDays: 7 } },
    );
    await h.runUntil(() => drafts(h).some((d) => d.status === 'pending'), 10 * MINUTE, 500);
    const [first] = drafts(h).filter((d) => d.status === 'pending');
    expect(first).toMatchObject({ kind: 'message', text: 'First, Amy' });
    updateDrafts(h.ctx, [{ id: first!.id, status: 'approved', revision: first!.revision }]);
    await h.runUntil(() => drafts(h).some((d) => d.status === 'pending' && d.text === 'Second, Amy'), 10 * MINUTE, 500);
    await h.runUntil(() => h.lead('lead_1').replied, 10 * MINUTE, 500);
    const second = drafts(h).find((d) => d.text === 'Second, Amy');
    expect(second).toMatchObject({ status: 'skipped', skipReason: 'replied' });
    const stats = getAgentStats(h.ctx, { agentId: 'tpl' });
    const secondStep = stats.steps.find((s) => s.stepId === second!.stepId)!;
    expect(secondStep.variants[0]).toMatchObject({ sent: 0, skipped: 1 });
    expect(h.net.calls.filter((c) => c.op === 'message').map((c) => c.text)).toEqual(['First, Amy']);
  });

  it('the step was removed from the agent: its pending draft is skipped (step_removed)', async () => {
    const h = await stepsHarness([{ kind: 'visit' }, { kind: 'invite', note: 'Hi {{firstName}}' }], [{ slug: BEN, firstName: 'Ben' }], {
      approval: 'required',
    });
    await run(h, HOUR);
    const [draft] = drafts(h);
    expect(draft).toMatchObject({ kind: 'invite', status: 'pending' });
    updateAgent(h.ctx, 'tpl', { steps: [{ id: h.steps[0]!.id, kind: 'visit' }] });
    await run(h, 2 * DAY, HOUR);
    expect(drafts(h)).toMatchObject([{ id: draft!.id, status: 'skipped', skipReason: 'step_removed' }]);
    expect(h.position('lead_1')).toMatchObject({ stepId: null, endReason: 'step_removed' });
    expect(h.net.calls.map((c) => c.op)).toEqual(['visit']);
  });

  it("the campaign's agent changed: the approved draft of the old agent's step is skipped (agent_changed), and the lead starts the new steps", async () => {
    const h = await stepsHarness([{ kind: 'invite', note: 'Hi {{firstName}}' }], [{ slug: BEN, firstName: 'Ben' }], { approval: 'required' });
    await run(h, HOUR);
    const [draft] = drafts(h);
    updateDrafts(h.ctx, [{ id: draft!.id, status: 'approved', revision: draft!.revision }]);
    pauseCampaign(h.ctx, 'cmp');
    const other = createAgent(h.ctx, { name: 'Visits only', accountId: 'acc_a', steps: [{ kind: 'visit' }] });
    updateCampaign(h.ctx, 'cmp', { assignedTemplateId: other.id });
    await startCampaign(h.ctx, 'cmp');
    await run(h, 2 * DAY, HOUR);
    expect(drafts(h)).toMatchObject([{ id: draft!.id, status: 'skipped', skipReason: 'agent_changed' }]);
    expect(h.net.calls.map((c) => c.op)).toEqual(['visit']);
    expect(h.audit().violations).toEqual([]);
    // Recorded, not silent: the old agent's stats count the invitation that was never sent.
    const invite = getAgentStats(h.ctx, { agentId: 'tpl' }).steps.find((s) => s.stepId === h.steps[0]!.id)!;
    expect(invite.variants[0]).toMatchObject({ sent: 0, skipped: 1 });
    expect(getAgentStats(h.ctx, { agentId: 'tpl', campaignId: 'cmp' }).steps[0]!.variants[0]).toMatchObject({ sent: 0, skipped: 1 });
  });

  it('the provider refused the approved InMail: the draft ends skipped with the step, not approved forever', async () => {
    const h = await stepsHarness(INMAIL_THEN_VISIT, [{ slug: 'ben-sim-no-inmail', firstName: 'Ben' }], { approval: 'required' });
    await run(h, HOUR);
    const [draft] = drafts(h);
    updateDrafts(h.ctx, [{ id: draft!.id, status: 'approved', revision: 1 }]);
    await run(h, 2 * HOUR);
    expect(drafts(h)).toMatchObject([{ id: draft!.id, status: 'skipped', skipReason: 'inmail_unreachable' }]);
    expect(h.eventsOf('lead_1')).toEqual(['inmail:skipped:inmail_unreachable', 'visit:sent']);
  });
});
