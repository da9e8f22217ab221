import { describe, expect, it } from 'vitest';
import { listDrafts } from '../../src/core/drafts/list.js';
import { excludeAddress } from '../../src/core/email/unsubscribe.js';
import { updateLead } from '../../src/core/leads/update.js';
import { getAgentStats } from '../../src/core/sequences/stats.js';
import { DAY, HOUR, MINUTE } from '../engine/helpers.js';
import { stepsHarness, type StepsHarness } from './runner-helpers.js';

/**
 * The engine's side of an exclusion's drafts: a lead waiting at a step for its draft's approval
 * is excluded; the draft ends skipped (`excluded`) at once, counted once as a skipped step in
 * get_agent_stats, and nothing is ever sent for it.
 */

const drafts = (h: StepsHarness) => listDrafts(h.ctx, 'secret', { campaignId: 'cmp', limit: 100 }).drafts;

async function run(h: StepsHarness, span: number, step = 10 * MINUTE): Promise<void> {
  for (let t = 0; t < span; t += step) {
    await h.tick();
    h.ctx.clock.advance(step);
  }
}

const NOTE_THEN_VISIT = [{ kind: 'invite' as const, note: 'Hi {{firstName}}' }, { kind: 'visit' as const }];
const LEADS = [
  { slug: 'ben-sim-never-accepts', firstName: 'Ben' },
  { slug: 'cara-sim-never-accepts', firstName: 'Cara' },
];

async function waitingForApproval(): Promise<{ h: StepsHarness; ben: string; cara: string }> {
  const h = await stepsHarness(NOTE_THEN_VISIT, LEADS, {
    approval: 'required',
    workspace: (ws) => Object.assign(ws.campaigns![0]!.leads![1]!, { email: 'cara@example.com' }),
  });
  await run(h, HOUR);
  const byLead = new Map(drafts(h).map((d) => [d.leadId, d]));
  expect(byLead.get('lead_1')).toMatchObject({ kind: 'invite', status: 'pending' });
  expect(byLead.get('lead_2')).toMatchObject({ kind: 'invite', status: 'pending' });
  return { h, ben: byLead.get('lead_1')!.id, cara: byLead.get('lead_2')!.id };
}

const skippedOf = (h: StepsHarness) => getAgentStats(h.ctx, { agentId: 'tpl' }).steps.find((s) => s.kind === 'invite')!.variants[0]!.skipped;

describe("an excluded lead's draft, with the engine running", () => {
  it('update_lead excluded: the pending draft ends skipped (excluded), counted once in get_agent_stats, and never sent', async () => {
    const { h, ben, cara } = await waitingForApproval();
    updateLead(h.ctx, 'cmp', 'lead_1', { excluded: true });
    expect(drafts(h).find((d) => d.id === ben)).toMatchObject({ status: 'skipped', skipReason: 'excluded' });
    expect(h.eventsOf('lead_1')).toEqual(['invite:skipped:excluded']);
    expect(skippedOf(h)).toBe(1);
    await run(h, 2 * DAY, HOUR);
    // Nothing went to the excluded lead; the other lead still waits for its person.
    expect(h.callsOf('ben-sim-never-accepts')).toEqual([]);
    expect(drafts(h).find((d) => d.id === cara)).toMatchObject({ status: 'pending' });
    expect(h.eventsOf('lead_1')).toEqual(['invite:skipped:excluded']);
    expect(skippedOf(h)).toBe(1);
    expect(h.audit().violations).toEqual([]);
  });

  it('a lead included again goes on past its closed draft, and its step stays counted once', async () => {
    const { h, ben } = await waitingForApproval();
    updateLead(h.ctx, 'cmp', 'lead_1', { excluded: true });
    expect(skippedOf(h)).toBe(1);
    updateLead(h.ctx, 'cmp', 'lead_1', { excluded: false });
    await run(h, 2 * DAY, HOUR);
    expect(drafts(h).find((d) => d.id === ben)).toMatchObject({ status: 'skipped', skipReason: 'excluded' });
    // The walk passed the step without counting it again, sent no invitation, and went on to the next step.
    expect(h.eventsOf('lead_1')).toEqual(['invite:skipped:excluded', 'visit:sent']);
    expect(skippedOf(h)).toBe(1);
    expect(h.callsOf('ben-sim-never-accepts').map((c) => c.op)).not.toContain('connect');
  });

  it('an unsubscribe (which also ends the sequence) skips the draft once: the exclusion closes it, and it is counted once', async () => {
    const { h, ben, cara } = await waitingForApproval();
    excludeAddress(h.ctx, 'cara@example.com', 'unsubscribed');
    expect(drafts(h).find((d) => d.id === cara)).toMatchObject({ status: 'skipped', skipReason: 'excluded' });
    expect(h.position('lead_2')).toMatchObject({ stepId: null, endReason: 'excluded' });
    expect(h.eventsOf('lead_2')).toEqual(['invite:skipped:excluded']);
    expect(skippedOf(h)).toBe(1);
    expect(drafts(h).find((d) => d.id === ben)).toMatchObject({ status: 'pending' });
  });
});
