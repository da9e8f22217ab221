// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, updateAgent } from '../../src/core/agents/agents.js';
import type { Step } from '../../src/core/agents/steps.js';
import { startQuestion } from '../../src/core/campaigns/lifecycle.js';
import { getSkipReasons } from '../../src/core/sequences/stats.js';
import { recordStep } from '../../src/core/sequences/store.js';
import { eq, inArray } from 'drizzle-orm';
import { leads } from '../../src/db/schema.js';
import { startTestServer, testCtx, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';

const agentWithSteps = (ctx: ReturnType<typeof testCtx>) =>
  createAgent(ctx, {
    name: 'Skips',
    accountId: 'acc_ada',
    steps: [
      { kind: 'like_post' },
      { kind: 'invite', note: 'A', variants: [{ note: 'B' }] },
      { kind: 'if', condition: 'accepted', withinHours: 48, then: [{ kind: 'message', text: 'Hi' }], else: [{ kind: 'withdraw' }] },
    ],
  });

describe('why steps were skipped', () => {
  it('counts the skips per step, variant and reason, over every campaign or one, and only the skips', () => {
    const ctx = testCtx();
    const agent = agentWithSteps(ctx);
    const [like, , branch] = agent.steps as [Step, Step, Extract<Step, { kind: 'if' }>];
    const message = branch.then[0] as Step;
    const skip = (leadId: string, campaignId: string, stepId: string, kind: 'like_post' | 'message', reason: string) =>
      recordStep(ctx, { leadId, campaignId, agentId: agent.id, stepId, kind, variant: 'A', event: 'skipped', reason, at: 1 });
    skip('lead_1', 'cmp_q4', like.id, 'like_post', 'no_posts');
    skip('lead_2', 'cmp_q4', like.id, 'like_post', 'no_posts');
    skip('lead_3', 'cmp_running', like.id, 'like_post', 'no_posts');
    skip('lead_1', 'cmp_q4', message.id, 'message', 'not_connected');
    skip('lead_2', 'cmp_q4', message.id, 'message', 'already_connected');
    skip('lead_4', 'cmp_q4', message.id, 'message', 'not_connected');
    recordStep(ctx, { leadId: 'lead_5', campaignId: 'cmp_q4', agentId: agent.id, stepId: like.id, kind: 'like_post', variant: 'A', event: 'sent', at: 1 });

    const inQ4 = getSkipReasons(ctx, { agentId: agent.id, campaignId: 'cmp_q4' });
    const sorted = (s: typeof inQ4.skips) => [...s].sort((a, b) => `${a.stepId}${a.reason}`.localeCompare(`${b.stepId}${b.reason}`));
    expect(sorted(inQ4.skips)).toEqual(
      sorted([
        { stepId: like.id, variant: 'A', reason: 'no_posts', count: 2 },
        { stepId: message.id, variant: 'A', reason: 'not_connected', count: 2 },
        { stepId: message.id, variant: 'A', reason: 'already_connected', count: 1 },
      ]),
    );
    // Within a step, the commonest reason first.
    expect(inQ4.skips.filter((s) => s.stepId === message.id).map((s) => s.reason)).toEqual(['not_connected', 'already_connected']);
    expect(getSkipReasons(ctx, { agentId: agent.id }).skips.find((s) => s.stepId === like.id)?.count).toBe(3);
    expect(getSkipReasons(ctx, { agentId: agent.id, campaignId: 'cmp_running' }).skips).toEqual([
      { stepId: like.id, variant: 'A', reason: 'no_posts', count: 1 },
    ]);
    expect(() => getSkipReasons(ctx, { agentId: 'tpl_nope' })).toThrow(expect.objectContaining({ code: 'not_found', details: { fields: ['agentId'] } }));
    expect(() => getSkipReasons(ctx, { agentId: agent.id, campaignId: 'cmp_nope' })).toThrow(
      expect.objectContaining({ code: 'not_found', details: { fields: ['campaignId'] } }),
    );
  });

  it('read from an index of the skips alone, so a large campaign’s sends are not scanned', () => {
    const ctx = testCtx();
    const plan = ctx.db.$client
      .prepare(
        "EXPLAIN QUERY PLAN SELECT step_id, variant, reason, count(*) FROM step_events WHERE agent_id = ? AND campaign_id = ? AND event = 'skipped' GROUP BY step_id, variant, reason",
      )
      .all('tpl_a', 'cmp_a') as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toContain('COVERING INDEX step_events_skips');
  });
});

describe('the dashboard’s sequence tools', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());

  it('get_agent_shape tells an agent written with steps from one written with connectionNote and messages', async () => {
    const shape = async (agentId: string) => (await appCall(server.url, cookie, 'get_agent_shape', { agentId })).body.structuredContent;
    expect(await shape('tpl_intro')).toEqual({ agentId: 'tpl_intro', writtenWith: 'note_and_messages' });
    const agent = agentWithSteps(server.ctx);
    expect(await shape(agent.id)).toEqual({ agentId: agent.id, writtenWith: 'steps' });
    // A legacy agent updated with steps (its derived ids sent back) is written with steps from then on.
    const legacy = await appCall(server.url, cookie, 'get_agent', { agentId: 'tpl_intro' });
    updateAgent(server.ctx, 'tpl_intro', { steps: legacy.body.structuredContent.steps });
    expect(await shape('tpl_intro')).toEqual({ agentId: 'tpl_intro', writtenWith: 'steps' });
    expect((await shape('tpl_nope')).error).toMatchObject({ code: 'not_found', details: { fields: ['agentId'] } });
  });

  it('preview_agent_draft renders a sequence not saved yet for a lead, by path, as preview_agent renders a saved one, and writes nothing', async () => {
    const agentsBefore = server.ctx.db.$client.prepare('SELECT count(*) FROM agents').pluck().get();
    const steps = [
      { kind: 'invite', note: 'Hi {{firstName|there}}', variants: [{ note: 'Hello {{firstName}}' }] },
      { kind: 'if', condition: 'accepted', withinHours: 48, then: [{ kind: 'message', text: 'Thanks, {{firstName}}!' }], else: [{ kind: 'withdraw' }] },
    ];
    // A new agent (no agentId): nothing exists yet, but the words render for the lead.
    const fresh = await appCall(server.url, cookie, 'preview_agent_draft', { leadId: 'lead_ada1', steps });
    expect(fresh.body.isError).toBe(false);
    expect(fresh.body.structuredContent).toMatchObject({
      agentId: '',
      leadId: 'lead_ada1',
      connectionNote: 'Hi Ada',
      messages: ['Thanks, Ada!'],
      steps: [
        {
          kind: 'invite',
          path: 'steps[0]',
          variants: [
            { variant: 'A', text: 'Hi Ada' },
            { variant: 'B', text: 'Hello Ada' },
          ],
        },
        { kind: 'if', path: 'steps[1]' },
        { kind: 'message', path: 'steps[1].then[0]', variants: [{ variant: 'A', text: 'Thanks, Ada!' }] },
        { kind: 'withdraw', path: 'steps[1].else[0]' },
      ],
    });
    // The same words saved give the same texts through preview_agent.
    const agent = (await appCall(server.url, cookie, 'create_agent', { name: 'Previewed', accountId: 'acc_ada', steps })).body.structuredContent;
    const saved = await appCall(server.url, cookie, 'preview_agent', { agentId: agent.id, leadId: 'lead_ada1' });
    const texts = (p: { steps: { path: string; variants?: unknown }[] }) => p.steps.map((s) => [s.path, s.variants ?? null]);
    expect(texts(saved.body.structuredContent)).toEqual(texts(fresh.body.structuredContent));
    // A sequence a save would refuse is refused the same way, naming the path.
    const bad = await appCall(server.url, cookie, 'preview_agent_draft', {
      agentId: agent.id,
      leadId: 'lead_ada1',
      steps: [{ kind: 'message', text: 'Hi {{nick}}' }],
    });
    expect(bad.body.isError).toBe(true);
    expect(JSON.parse(bad.body.content[0]!.text).error).toMatchObject({ code: 'validation_error', details: { fields: ['steps[0].text'] } });
    const missing = await appCall(server.url, cookie, 'preview_agent_draft', { leadId: 'lead_nope', steps });
    expect(JSON.parse(missing.body.content[0]!.text).error).toMatchObject({ code: 'not_found', details: { fields: ['leadId'] } });
    expect(server.ctx.db.$client.prepare('SELECT count(*) FROM agents').pluck().get()).toBe((agentsBefore as number) + 1);
  });

  it('get_skip_reasons answers the dashboard with the skips of one campaign', async () => {
    const agent = agentWithSteps(server.ctx);
    const like = agent.steps[0] as Step;
    recordStep(server.ctx, {
      leadId: 'lead_ada1',
      campaignId: 'cmp_q4',
      agentId: agent.id,
      stepId: like.id,
      kind: 'like_post',
      variant: 'A',
      event: 'skipped',
      reason: 'no_posts',
      at: 1,
    });
    const r = await appCall(server.url, cookie, 'get_skip_reasons', { agentId: agent.id, campaignId: 'cmp_q4' });
    expect(r.body.structuredContent).toEqual({ agentId: agent.id, skips: [{ stepId: like.id, variant: 'A', reason: 'no_posts', count: 1 }] });
  });
  it('preview_start_campaign counts the leads per sender, and start_campaign asks with the same counts', async () => {
    const preview = async () => (await appCall(server.url, cookie, 'preview_start_campaign', { campaignId: 'cmp_paused' })).body;
    const question = () => startQuestion(server.ctx, 'cmp_paused');
    const before = (await preview()).structuredContent;
    // One sender (the agent's account, Ada) has every lead: the question names it alone.
    expect(before.accounts).toEqual([{ accountId: 'acc_ada', name: 'Ada', count: before.accounts[0].count, shared: true }]);
    expect(before.leads).toBe(before.accounts[0].count + before.unassigned);
    expect(question()).toBe(
      `Resume campaign "Paused"? It will send connection requests and messages from Ada to its ${before.leads} ${before.leads === 1 ? 'lead' : 'leads'}.`,
    );

    const added = await appCall(server.url, cookie, 'add_leads_batch', {
      campaignId: 'cmp_paused',
      leads: Array.from({ length: 6 }, (_, i) => ({ networkUrl: `https://www.linkedin.com/in/preview-start-${i}`, firstName: 'Lead', lastName: `${i}` })),
    });
    expect(added.body.isError).toBe(false);
    const updated = await appCall(server.url, cookie, 'update_campaign', { campaignId: 'cmp_paused', senderAccountIds: ['acc_ada', 'acc_nav'] });
    expect(updated.body.isError).toBe(false);
    // Every lead unpinned, then two pinned to Navigator (one fixed at its first step, one by hand) and one to Offline, outside the senders.
    server.ctx.db.update(leads).set({ accountId: null }).where(eq(leads.campaignId, 'cmp_paused')).run();
    const ids = server.ctx.db
      .select({ id: leads.id })
      .from(leads)
      .where(eq(leads.campaignId, 'cmp_paused'))
      .all()
      .map((r) => r.id)
      .sort();
    server.ctx.db
      .update(leads)
      .set({ accountId: 'acc_nav' })
      .where(inArray(leads.id, ids.slice(0, 2)))
      .run();
    server.ctx.db
      .update(leads)
      .set({ accountId: 'acc_off' })
      .where(eq(leads.id, ids[2] as string))
      .run();

    const after = (await preview()).structuredContent;
    expect(after).toEqual({
      campaignId: 'cmp_paused',
      leads: ids.length,
      accounts: [
        { accountId: 'acc_ada', name: 'Ada', count: 0, shared: true },
        { accountId: 'acc_nav', name: 'Navigator', count: 2, shared: true },
        { accountId: 'acc_off', name: 'Offline', count: 1, shared: false },
      ],
      unassigned: ids.length - 3,
    });
    expect(question()).toBe(
      `Resume campaign "Paused"? It will send connection requests and messages to its ${ids.length} leads: 2 leads from Navigator; 1 lead from Offline; ${ids.length - 3} leads shared among Ada, Navigator (each goes to the sender with the most invitations left that day).`,
    );
    expect((await appCall(server.url, cookie, 'preview_start_campaign', { campaignId: 'cmp_nope' })).body.structuredContent.error).toMatchObject({
      code: 'not_found',
    });
  });
});
