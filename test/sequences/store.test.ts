// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/core/agents/agents.js';
import type { Step } from '../../src/core/agents/steps.js';
import {
  drawVariant,
  endSequence,
  getPosition,
  leadsAtSteps,
  moveToStep,
  recordAccepted,
  recordReplied,
  recordStep,
  startSequence,
  stepEventsOf,
  variantOf,
} from '../../src/core/sequences/store.js';
import { getAgentStats } from '../../src/core/sequences/stats.js';
import { callTool, RELAXED_LIMITS, startTestServer, testCtx, type TestServer } from '../helpers.js';

const stepsAgent = (ctx: ReturnType<typeof testCtx>) =>
  createAgent(ctx, {
    name: 'Funnel',
    accountId: 'acc_ada',
    steps: [
      { kind: 'visit' },
      { kind: 'invite', note: 'A note', variants: [{ note: 'B note' }] },
      { kind: 'if', condition: 'accepted', withinHours: 48, then: [{ kind: 'message', text: 'Hi' }], else: [{ kind: 'withdraw' }] },
    ],
  });

describe('lead positions', () => {
  it('start, move and end; a started lead keeps its position, an ended one stays ended', () => {
    const ctx = testCtx();
    const start = startSequence(ctx, { leadId: 'lead_1', campaignId: 'cmp_q4', agentId: 'tpl_a', stepId: 'stp_1', at: 100 });
    expect(start).toEqual({ leadId: 'lead_1', campaignId: 'cmp_q4', agentId: 'tpl_a', stepId: 'stp_1', enteredAt: 100, endReason: null, endedAt: null });
    expect(startSequence(ctx, { leadId: 'lead_1', campaignId: 'cmp_q4', agentId: 'tpl_a', stepId: 'stp_9', at: 500 })).toEqual(start);
    expect(moveToStep(ctx, { leadId: 'lead_1', stepId: 'stp_2', at: 200 })).toBe(true);
    expect(getPosition(ctx, 'lead_1')).toMatchObject({ stepId: 'stp_2', enteredAt: 200 });
    expect(leadsAtSteps(ctx, 'tpl_a', ['stp_2', 'stp_3'])).toEqual([{ leadId: 'lead_1', stepId: 'stp_2' }]);
    expect(endSequence(ctx, { leadId: 'lead_1', reason: 'replied', at: 300 })).toBe(true);
    expect(endSequence(ctx, { leadId: 'lead_1', reason: 'completed', at: 400 })).toBe(false);
    expect(moveToStep(ctx, { leadId: 'lead_1', stepId: 'stp_3', at: 500 })).toBe(false);
    expect(getPosition(ctx, 'lead_1')).toMatchObject({ stepId: null, endReason: 'replied', endedAt: 300 });
    expect(getPosition(ctx, 'lead_none')).toBeUndefined();
  });
});

describe('variants', () => {
  it('are drawn once per lead and step, and kept whatever the step later holds', () => {
    const ctx = testCtx();
    const first = drawVariant(ctx, { leadId: 'lead_1', stepId: 'stp_x', count: 4, at: 1 });
    for (let i = 0; i < 5; i++) expect(drawVariant(ctx, { leadId: 'lead_1', stepId: 'stp_x', count: 4, at: 2 + i })).toBe(first);
    expect(drawVariant(ctx, { leadId: 'lead_1', stepId: 'stp_x', count: 1, at: 9 })).toBe(first);
    expect(variantOf(ctx, 'lead_1', 'stp_x')).toBe(first);
    expect(variantOf(ctx, 'lead_1', 'stp_other')).toBeUndefined();
    expect(drawVariant(ctx, { leadId: 'lead_2', stepId: 'stp_x', count: 1, at: 1 })).toBe('A');
  });

  it('come out even over 1,000 leads', () => {
    const ctx = testCtx();
    for (const count of [2, 3, 5]) {
      const tally = new Map<string, number>();
      for (let i = 0; i < 1000; i++) {
        const v = drawVariant(ctx, { leadId: `lead_${count}_${i}`, stepId: 'stp_ab', count, at: 1 });
        tally.set(v, (tally.get(v) ?? 0) + 1);
      }
      expect(tally.size).toBe(count);
      // Chi-square with count-1 degrees of freedom, well inside the 99.9% bound (13.8 for 2 df, 18.5 for 4).
      const expected = 1000 / count;
      const chi = [...tally.values()].reduce((s, n) => s + (n - expected) ** 2 / expected, 0);
      expect(chi).toBeLessThan(18.5);
    }
  });
});

describe('step events and stats', () => {
  it('count sends, skips, acceptances for the invite and a reply for the last step sent before it', () => {
    const ctx = testCtx();
    const agent = stepsAgent(ctx);
    const [visit, invite, branch] = agent.steps as [Step, Step, Extract<Step, { kind: 'if' }>];
    const message = branch.then[0]!;
    const base = { campaignId: 'cmp_q4', agentId: agent.id };
    for (const [leadId, variant] of [
      ['lead_a', 'A'],
      ['lead_b', 'B'],
      ['lead_c', 'B'],
    ] as const) {
      recordStep(ctx, { ...base, leadId, stepId: visit.id, kind: 'visit', variant: 'A', event: 'sent', at: 10 });
      recordStep(ctx, { ...base, leadId, stepId: invite.id, kind: 'invite', variant, event: 'sent', at: 20 });
    }
    expect(recordAccepted(ctx, { leadId: 'lead_b', at: 30 })).toMatchObject({ stepId: invite.id, variant: 'B', event: 'accepted' });
    expect(recordAccepted(ctx, { leadId: 'lead_b', at: 31 })).toBeNull();
    recordStep(ctx, { ...base, leadId: 'lead_b', stepId: message.id, kind: 'message', variant: 'A', event: 'sent', at: 40 });
    recordStep(ctx, { ...base, leadId: 'lead_c', stepId: message.id, kind: 'message', variant: 'A', event: 'skipped', reason: 'not_connected', at: 40 });
    // The reply counts for the message, the last step sent before it; a second reply counts nothing.
    expect(recordReplied(ctx, { leadId: 'lead_b', at: 50 })).toMatchObject({ stepId: message.id, event: 'replied' });
    expect(recordReplied(ctx, { leadId: 'lead_b', at: 60 })).toBeNull();
    // lead_a replied to the invitation note itself (before any message).
    expect(recordReplied(ctx, { leadId: 'lead_a', at: 25 })).toMatchObject({ stepId: invite.id, variant: 'A' });
    expect(recordReplied(ctx, { leadId: 'lead_nothing', at: 25 })).toBeNull();
    expect(stepEventsOf(ctx, 'lead_c').map((e) => [e.kind, e.event, e.reason])).toEqual([
      ['visit', 'sent', null],
      ['invite', 'sent', null],
      ['message', 'skipped', 'not_connected'],
    ]);

    const stats = getAgentStats(ctx, { agentId: agent.id });
    expect(stats.steps.map((s) => [s.path, s.kind])).toEqual([
      ['steps[0]', 'visit'],
      ['steps[1]', 'invite'],
      ['steps[2]', 'if'],
      ['steps[2].then[0]', 'message'],
      ['steps[2].else[0]', 'withdraw'],
    ]);
    expect(stats.steps[1]!.variants).toEqual([
      { variant: 'A', sent: 1, accepted: 0, replied: 1, skipped: 0 },
      { variant: 'B', sent: 2, accepted: 1, replied: 0, skipped: 0 },
    ]);
    expect(stats.steps[3]!.variants).toEqual([{ variant: 'A', sent: 1, accepted: 0, replied: 1, skipped: 1 }]);
    expect(stats.steps[0]!.variants).toEqual([{ variant: 'A', sent: 3, accepted: 0, replied: 0, skipped: 0 }]);
    expect(stats.steps[4]!.variants).toEqual([{ variant: 'A', sent: 0, accepted: 0, replied: 0, skipped: 0 }]);
    // Per campaign: another campaign has none of these.
    expect(getAgentStats(ctx, { agentId: agent.id, campaignId: 'cmp_running' }).steps[1]!.variants[1]).toMatchObject({ sent: 0 });
    expect(getAgentStats(ctx, { agentId: agent.id, campaignId: 'cmp_q4' }).steps[1]!.variants[1]).toMatchObject({ sent: 2 });
  });
});

describe('get_agent_stats over REST and MCP', () => {
  let server: TestServer;
  let mcp: Client;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    mcp = await server.mcp(undefined, 'toolsets=manage');
  });
  afterAll(() => server.close());

  it('returns the shape of the spec, the same on both transports, and 404s name the field', async () => {
    const agent = stepsAgent(server.ctx);
    const invite = agent.steps[1]!;
    recordStep(server.ctx, {
      leadId: 'lead_ada1',
      campaignId: 'cmp_q4',
      agentId: agent.id,
      stepId: invite.id,
      kind: 'invite',
      variant: 'B',
      event: 'sent',
      at: 1,
    });
    const r = await server.rest(`/agents/${agent.id}/stats?campaignId=cmp_q4`);
    expect(r.status).toBe(200);
    expect(r.body.agentId).toBe(agent.id);
    expect(r.body.steps[1]).toEqual({
      stepId: invite.id,
      kind: 'invite',
      path: 'steps[1]',
      variants: [
        { variant: 'A', sent: 0, accepted: 0, replied: 0, skipped: 0 },
        { variant: 'B', sent: 1, accepted: 0, replied: 0, skipped: 0 },
      ],
    });
    const m = await callTool(mcp, 'get_agent_stats', { agentId: agent.id, campaignId: 'cmp_q4' });
    expect(m.body).toEqual(r.body);
    const all = await server.rest(`/agents/${agent.id}/stats`);
    expect(all.body.steps[1].variants[1].sent).toBe(1);
    // An agent written with connectionNote and messages has stats per derived step too.
    const legacy = await server.rest('/agents/tpl_intro/stats');
    expect(legacy.status).toBe(200);
    expect(legacy.body.steps.map((s: { kind: string }) => s.kind).slice(0, 2)).toEqual(['invite', 'if']);
    const noAgent = await server.rest('/agents/tpl_nope/stats');
    expect(noAgent.status).toBe(404);
    const noCampaign = await server.rest(`/agents/${agent.id}/stats?campaignId=cmp_nope`);
    expect(noCampaign.status).toBe(404);
    expect(noCampaign.body.error.details.fields).toEqual(['campaignId']);
    expect((await server.rest(`/agents/${agent.id}/stats?campaign=x`)).status).toBe(400);
  });
});
