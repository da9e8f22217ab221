// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { describe, expect, it } from 'vitest';
import { updateAgent } from '../../src/core/agents/agents.js';
import type { StepInput } from '../../src/core/agents/steps.js';
import { pauseCampaign, startCampaign } from '../../src/core/campaigns/lifecycle.js';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { getAgentStats } from '../../src/core/sequences/stats.js';
import { Engine } from '../../src/workers/outreach/index.js';
import { DAY, engineSettings, HOUR, MINUTE } from '../engine/helpers.js';
import { stepsHarness } from './runner-helpers.js';

const ANN = 'amy-sim-accepts-after-3h-sim-no-reply';
const BOB = 'ben-sim-never-accepts';
const CAT = 'cat-sim-never-accepts-sim-no-posts-sim-no-inmail';

describe('the step runner through the simulator', () => {
  it('runs every step kind; the lead who accepts takes then, the one who never does takes else and is withdrawn', async () => {
    const h = await stepsHarness(
      [
        { kind: 'visit' },
        { kind: 'like_post' },
        { kind: 'invite', note: 'Hi {{firstName}}, glad to connect.', variants: [{ note: 'Hello {{firstName}}!' }] },
        {
          kind: 'if',
          condition: 'accepted',
          withinHours: 48,
          then: [
            { kind: 'wait', hours: 2 },
            { kind: 'message', text: 'Thanks for connecting, {{firstName}}.', variants: [{ text: 'Great to be connected, {{firstName}}.' }] },
          ],
          else: [{ kind: 'withdraw' }, { kind: 'inmail', subject: 'A quick idea, {{firstName}}', text: 'Hi {{firstName}}, one idea for Acme.' }],
        },
      ],
      [
        { slug: ANN, firstName: 'Ann' },
        { slug: BOB, firstName: 'Bob' },
        { slug: CAT, firstName: 'Cat' },
      ],
    );
    const start = h.ctx.clock.now();
    await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE, 2000);

    expect(h.callsOf(ANN).map((c) => c.op)).toEqual(['visit', 'like_post', 'connect', 'message']);
    expect(h.callsOf(BOB).map((c) => c.op)).toEqual(['visit', 'like_post', 'connect', 'withdraw', 'inmail']);
    expect(h.callsOf(CAT).map((c) => c.op)).toEqual(['visit', 'like_post', 'connect', 'withdraw', 'inmail']);
    expect(['Hi Ann, glad to connect.', 'Hello Ann!']).toContain(h.callsOf(ANN)[2]!.text);
    expect(['Thanks for connecting, Ann.', 'Great to be connected, Ann.']).toContain(h.callsOf(ANN)[3]!.text);
    expect(h.callsOf(BOB)[4]!.text).toBe('Hi Bob, one idea for Acme.');

    expect(h.eventsOf('lead_1')).toEqual(['visit:sent', 'like_post:sent', 'invite:sent', 'if:sent', 'invite:accepted', 'wait:sent', 'message:sent']);
    expect(h.eventsOf('lead_2')).toEqual(['visit:sent', 'like_post:sent', 'invite:sent', 'if:sent', 'withdraw:sent', 'inmail:sent']);
    expect(h.eventsOf('lead_3')).toEqual([
      'visit:sent',
      'like_post:skipped:no_posts',
      'invite:sent',
      'if:sent',
      'withdraw:sent',
      'inmail:skipped:inmail_unreachable',
    ]);
    for (const id of ['lead_1', 'lead_2', 'lead_3']) expect(h.position(id)).toMatchObject({ stepId: null, endReason: 'completed' });

    // Timing: the message 2 hours after the acceptance; the withdrawal when the 48 hours ran out.
    const ann = h.lead('lead_1');
    expect(ann.stage).toBe('messaged');
    expect(ann.lastSequenceSentAt! - ann.connectedAt!).toBeGreaterThanOrEqual(2 * HOUR);
    expect(ann.lastSequenceSentAt! - ann.connectedAt!).toBeLessThan(2 * HOUR + 20 * MINUTE);
    const bob = h.lead('lead_2');
    expect(bob.invitationWithdrawnAt! - bob.invitedAt!).toBeGreaterThanOrEqual(48 * HOUR);
    expect(bob.invitationWithdrawnAt! - bob.invitedAt!).toBeLessThan(48 * HOUR + 20 * MINUTE);
    expect(bob.stage).toBe('connection_sent');
    expect(h.ctx.clock.now() - start).toBeLessThan(4 * DAY);

    const stats = getAgentStats(h.ctx, { agentId: 'tpl' });
    const byKind = (kind: string) => stats.steps.filter((s) => s.kind === kind).flatMap((s) => s.variants);
    const sum = (kind: string, key: 'sent' | 'skipped' | 'accepted') => byKind(kind).reduce((n, v) => n + v[key], 0);
    expect([sum('visit', 'sent'), sum('like_post', 'sent'), sum('like_post', 'skipped')]).toEqual([3, 2, 1]);
    expect([sum('invite', 'sent'), sum('invite', 'accepted'), sum('message', 'sent')]).toEqual([3, 1, 1]);
    expect([sum('withdraw', 'sent'), sum('inmail', 'sent'), sum('inmail', 'skipped')]).toEqual([2, 1, 1]);
    expect(h.audit().violations).toEqual([]);
  });
});

describe('variants', () => {
  it('are drawn evenly over 1,000 leads, once per lead and step, and the note sent is the drawn one', async () => {
    const leads = Array.from({ length: 1000 }, (_, i) => ({ slug: `v${i}-sim-never-accepts`, firstName: `P${i}` }));
    const h = await stepsHarness([{ kind: 'invite', note: 'A for {{firstName}}', variants: [{ note: 'B for {{firstName}}' }] }], leads, {
      config: { spacingSeconds: { min: 0, max: 0 }, weeklyConnectionRequestLimit: 1000 },
      workspace: (ws) => Object.assign(ws.accounts![0]!, { weeklyConnectionRequestLimit: 1000 }),
    });
    // Test setup only: a day's invitations past the 100 any account may be given, so 1,000 leads are drawn in a run.
    h.ctx.db.$client.prepare('UPDATE accounts SET connection_request_limit = 1000').run();
    await h.runUntil(() => h.net.calls.length === 1000, MINUTE, 1000);
    const drawn = new Map(
      h.ctx.db.$client
        .prepare('SELECT lead_id, variant FROM lead_step_variants')
        .all()
        .map((r: any) => [r.lead_id, r.variant]),
    );
    expect(drawn.size).toBe(1000);
    const a = [...drawn.values()].filter((v) => v === 'A').length;
    // Binomial(1000, 1/2): sd 15.8; four of them either side.
    expect(Math.abs(a - 500)).toBeLessThan(64);
    for (const intent of h.intents()) {
      const n = Number(intent.leadId.slice(5)) - 1;
      expect(intent.text).toBe(`${drawn.get(intent.leadId)} for P${n}`);
    }
    const invite = getAgentStats(h.ctx, { agentId: 'tpl' }).steps[0]!;
    expect(invite.variants.map((v) => [v.variant, v.sent])).toEqual([
      ['A', a],
      ['B', 1000 - a],
    ]);
  });
});

describe('senders', () => {
  it('two senders each stay within their own caps while the campaign uses both; every lead keeps its sender', async () => {
    const leads = Array.from({ length: 20 }, (_, i) => `s${i}-sim-never-accepts`);
    const h = await stepsHarness([{ kind: 'visit' }, { kind: 'invite', note: null }], leads, {
      senders: ['acc_a', 'acc_b'],
      workspace: (ws) => {
        Object.assign(ws.accounts![0]!, { connectionRequestLimit: 4, profileVisitLimit: 6 });
        ws.accounts!.push({ id: 'acc_b', name: 'B', status: 'connected', connectionRequestLimit: 3, profileVisitLimit: 5 });
      },
    });
    await h.runUntil(() => h.intents().filter((i) => i.kind === 'connection_request').length === 20, 10 * MINUTE, 2000);

    const perDay = new Map<string, number>();
    for (const i of h.intents()) {
      const key = `${i.accountId}:${i.kind}:${new Date(i.createdAt).toISOString().slice(0, 10)}`;
      perDay.set(key, (perDay.get(key) ?? 0) + 1);
    }
    const limit = { 'acc_a:connection_request': 4, 'acc_a:visit': 6, 'acc_b:connection_request': 3, 'acc_b:visit': 5 } as Record<string, number>;
    for (const [key, n] of perDay) expect(n, key).toBeLessThanOrEqual(limit[key.split(':').slice(0, 2).join(':')]!);
    // Both senders worked on the first day, each up to its own invitation cap.
    const day0 = new Date(h.intents()[0]!.createdAt).toISOString().slice(0, 10);
    expect(perDay.get(`acc_a:connection_request:${day0}`)).toBe(4);
    expect(perDay.get(`acc_b:connection_request:${day0}`)).toBe(3);
    for (let n = 1; n <= 20; n++) {
      const lead = h.lead(`lead_${n}`);
      expect(['acc_a', 'acc_b']).toContain(lead.accountId);
      expect(new Set(h.intents(lead.id).map((i) => i.accountId))).toEqual(new Set([lead.accountId]));
    }
    expect(h.audit().violations).toEqual([]);
  });

  it('a new sender given to a paused campaign sends its next leads at once, with no engine restart', async () => {
    const leads = Array.from({ length: 4 }, (_, i) => `n${i}-sim-never-accepts`);
    const h = await stepsHarness([{ kind: 'invite', note: null }], leads, {
      senders: ['acc_a'],
      workspace: (ws) => {
        Object.assign(ws.accounts![0]!, { connectionRequestLimit: 2 });
        ws.accounts!.push({ id: 'acc_b', name: 'B', status: 'connected', connectionRequestLimit: 20 });
      },
    });
    const invites = () => h.intents().filter((i) => i.kind === 'connection_request');
    await h.runUntil(() => invites().length === 2, 10 * MINUTE, 200);
    // acc_a's cap is spent for the day; the leads it did not reach wait, some with no sender yet.
    await h.runUntil(() => true, 10 * MINUTE, 6);
    expect(invites().map((i) => i.accountId)).toEqual(['acc_a', 'acc_a']);
    const waiting = [1, 2, 3, 4].map((n) => h.lead(`lead_${n}`)).filter((l) => l.accountId === null);
    expect(waiting.length).toBeGreaterThan(0);

    await pauseCampaign(h.ctx, 'cmp');
    updateCampaign(h.ctx, 'cmp', { senderAccountIds: ['acc_b'] });
    await startCampaign(h.ctx, 'cmp');
    // The same engine, never restarted: they go from acc_b the same day.
    const invitedFrom = (leadId: string) =>
      invites()
        .filter((i) => i.leadId === leadId)
        .map((i) => i.accountId);
    await h.runUntil(() => waiting.every((l) => invitedFrom(l.id).length > 0), 10 * MINUTE, 12);
    for (const l of waiting) {
      expect(invitedFrom(l.id)).toEqual(['acc_b']);
      expect(h.lead(l.id).accountId).toBe('acc_b');
    }
    expect(h.audit().violations).toEqual([]);
  });
});

const FULL_PATH: StepInput[] = [
  { kind: 'visit' },
  { kind: 'like_post' },
  { kind: 'invite', note: 'Hi {{firstName}}', variants: [{ note: 'Hello {{firstName}}' }] },
  {
    kind: 'if',
    condition: 'accepted',
    withinHours: 24,
    then: [
      { kind: 'wait', hours: 1 },
      { kind: 'message', text: 'Thanks {{firstName}}', variants: [{ text: 'Cheers {{firstName}}' }] },
    ],
    else: [{ kind: 'withdraw' }, { kind: 'inmail', subject: 'Hello', text: 'Hi {{firstName}}, one idea.' }],
  },
];

describe('restarts, kills, pauses and edits mid-sequence', () => {
  it('kills at any point never do a step twice nor pass one without a record', async () => {
    const slugs = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? `k${i}-sim-accepts-after-2h-sim-no-reply` : `k${i}-sim-never-accepts`));
    const h = await stepsHarness(FULL_PATH, slugs);
    let engine = h.engine;
    let holders = 0;
    const restart = () => {
      // The process is gone without a word: its lease lapses, a new engine takes over.
      h.ctx.clock.advance(31_000);
      engine = new Engine(h.ctx, { settings: engineSettings({ replyWaitDays: 0 }), random: () => 0, holder: `engine-${++holders}` });
    };
    let seed = 7;
    const rand = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (let round = 0; round < 400 && h.campaign().status !== 'COMPLETED'; round++) {
      if (round % 5 === 4) {
        // Killed while a call is on the wire: the call goes out, its result is never recorded.
        h.net.hold();
        const crashed = engine.tick();
        const arrived = await Promise.race([h.net.arrived.then(() => true), crashed.then(() => false)]);
        restart();
        await engine.tick();
        h.net.release();
        await crashed;
        if (!arrived) continue;
      } else if (rand() < 0.2) restart();
      await engine.tick();
      h.ctx.clock.advance(Math.floor(rand() * 40) * MINUTE);
    }
    expect(h.campaign().status).toBe('COMPLETED');
    expect(holders).toBeGreaterThan(20);
    for (const [i, slug] of slugs.entries()) {
      const ops = h.callsOf(slug).map((c) => c.op);
      const accepted = i % 2 === 0;
      expect(ops, slug).toEqual(accepted ? ['visit', 'like_post', 'connect', 'message'] : ['visit', 'like_post', 'connect', 'withdraw', 'inmail']);
      const events = h
        .eventsOf(`lead_${i + 1}`)
        .filter((e) => !e.startsWith('invite:accepted'))
        .map((e) => e.split(':')[0]);
      expect(events, slug).toEqual(
        accepted ? ['visit', 'like_post', 'invite', 'if', 'wait', 'message'] : ['visit', 'like_post', 'invite', 'if', 'withdraw', 'inmail'],
      );
    }
    expect(h.intents().some((i) => i.state === 'assumed_sent')).toBe(true);
    expect(h.audit().violations).toEqual([]);
  });

  it('a pause holds a lead at its wait; on resume it goes on from there, once', async () => {
    const h = await stepsHarness([{ kind: 'visit' }, { kind: 'wait', hours: 5 }, { kind: 'like_post' }], ['amy-sim-never-accepts']);
    await h.runUntil(() => h.callsOf('amy-sim-never-accepts').length === 1);
    const visitedAt = h.ctx.clock.now();
    h.ctx.clock.advance(2 * HOUR);
    await h.tick();
    expect(pauseCampaign(h.ctx, 'cmp').action).toBe('paused');
    for (let i = 0; i < 12; i++) {
      h.ctx.clock.advance(HOUR);
      await h.tick();
    }
    expect(h.callsOf('amy-sim-never-accepts')).toHaveLength(1);
    expect(h.position('lead_1')).toMatchObject({ stepId: h.steps[1]!.id, enteredAt: visitedAt });
    expect((await startCampaign(h.ctx, 'cmp')).action).toBe('resumed');
    await h.runUntil(() => h.campaign().status === 'COMPLETED');
    expect(h.callsOf('amy-sim-never-accepts').map((c) => c.op)).toEqual(['visit', 'like_post']);
    expect(h.eventsOf('lead_1')).toEqual(['visit:sent', 'wait:sent', 'like_post:sent']);
  });

  it('update_agent mid-sequence: a kept step keeps its leads and takes its new hours; a removed one ends their sequence, recorded', async () => {
    const h = await stepsHarness(
      [{ kind: 'visit' }, { kind: 'wait', hours: 10 }, { kind: 'like_post' }, { kind: 'wait', hours: 10 }, { kind: 'visit' }],
      ['amy-sim-never-accepts', 'ada-sim-never-accepts'],
    );
    await h.runUntil(() => h.net.calls.length === 2);
    const [visit, wait1] = h.steps;
    // Both wait at the first wait. The agent is rewritten: the first wait stays (with other hours), the rest is new.
    updateAgent(h.ctx, 'tpl', { steps: [{ id: visit!.id, kind: 'visit' }, { id: wait1!.id, kind: 'wait', hours: 2 }, { kind: 'like_post' }] });
    await h.runUntil(() => h.net.calls.length === 4, 10 * MINUTE);
    expect(h.net.calls.map((c) => c.op)).toEqual(['visit', 'visit', 'like_post', 'like_post']);
    expect(h.position('lead_1')).toMatchObject({ stepId: null, endReason: 'completed' });
    // Now a lead at a step that goes away: its sequence ends, and says why.
    const h2 = await stepsHarness([{ kind: 'visit' }, { kind: 'wait', hours: 10 }, { kind: 'visit' }], ['amy-sim-never-accepts']);
    await h2.runUntil(() => h2.net.calls.length === 1);
    updateAgent(h2.ctx, 'tpl', { steps: [{ id: h2.steps[0]!.id, kind: 'visit' }, { kind: 'like_post' }] });
    await h2.runUntil(() => h2.campaign().status === 'COMPLETED', 10 * MINUTE);
    expect(h2.net.calls.map((c) => c.op)).toEqual(['visit']);
    expect(h2.position('lead_1')).toMatchObject({ stepId: null, endReason: 'step_removed' });
  });
});

describe('skips and conditions', () => {
  it('skips a message to a non-connection and an InMail without Sales Navigator, each with its reason, and goes on', async () => {
    const h = await stepsHarness(
      [{ kind: 'message', text: 'Hi {{firstName}}' }, { kind: 'inmail', subject: 'Hi', text: 'Hello {{firstName}}' }, { kind: 'visit' }],
      ['amy-sim-never-accepts'],
      { workspace: (ws) => Object.assign(ws.accounts![0]!, { hasSalesNavigator: false }) },
    );
    await h.runUntil(() => h.campaign().status === 'COMPLETED');
    expect(h.net.calls.map((c) => c.op)).toEqual(['visit']);
    expect(h.eventsOf('lead_1')).toEqual(['message:skipped:not_connected', 'inmail:skipped:no_sales_navigator', 'visit:sent']);
    const stats = getAgentStats(h.ctx, { agentId: 'tpl' });
    expect(stats.steps.map((s) => s.variants[0]!.skipped)).toEqual([1, 1, 0]);
  });

  it('a sequence that starts with a wait starts when the engine first sees the lead', async () => {
    const h = await stepsHarness([{ kind: 'wait', hours: 3 }, { kind: 'visit' }], ['amy-sim-never-accepts']);
    const start = h.ctx.clock.now();
    await h.tick();
    expect(h.position('lead_1')).toMatchObject({ stepId: h.steps[0]!.id, enteredAt: start });
    await h.runUntil(() => h.net.calls.length === 1, 10 * MINUTE);
    expect(h.ctx.clock.now() - start).toBeGreaterThanOrEqual(3 * HOUR);
    expect(h.ctx.clock.now() - start).toBeLessThan(3 * HOUR + 20 * MINUTE);
  });

  it('if replied: a reply ends the sequence; one who does not reply gets the follow-up when the time runs out', async () => {
    const h = await stepsHarness(
      [
        { kind: 'invite', note: null },
        {
          kind: 'if',
          condition: 'accepted',
          withinHours: 48,
          then: [
            { kind: 'message', text: 'First, {{firstName}}' },
            { kind: 'if', condition: 'replied', withinHours: 24, then: [], else: [{ kind: 'message', text: 'Follow-up, {{firstName}}' }] },
          ],
        },
      ],
      [
        { slug: 'amy-sim-accepts-after-1h-sim-replies-after-1', firstName: 'Amy' },
        { slug: 'ada-sim-accepts-after-1h-sim-no-reply', firstName: 'Ada' },
      ],
    );
    await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE);
    // Amy's reply is the agent's to answer (it sends its call to action); the sequence sends her nothing more.
    expect(h.intents('lead_1').map((i) => [i.kind, i.text?.slice(0, 5) ?? null])).toEqual([
      ['connection_request', null],
      ['message', 'First'],
      ['cta', expect.any(String)],
    ]);
    expect(h.callsOf('ada-sim-accepts-after-1h-sim-no-reply').map((c) => c.text)).toEqual([null, 'First, Ada', 'Follow-up, Ada']);
    expect(h.position('lead_1')).toMatchObject({ endReason: 'replied' });
    expect(h.position('lead_2')).toMatchObject({ endReason: 'completed' });
    const ada = h.intents('lead_2').filter((i) => i.kind === 'message');
    expect(ada[1]!.createdAt - ada[0]!.createdAt).toBeGreaterThanOrEqual(24 * HOUR);
    // The reply counts for the message sent before it.
    const message = getAgentStats(h.ctx, { agentId: 'tpl' }).steps.find((s) => s.path === 'steps[1].then[0]')!;
    expect(message.variants[0]).toMatchObject({ sent: 2, replied: 1 });
  });
});

describe('senders share the work', () => {
  it('three senders each invite up to their own limit every day, none left idle', async () => {
    const leads = Array.from({ length: 45 }, (_, i) => `t${i}-sim-never-accepts`);
    const h = await stepsHarness([{ kind: 'visit' }, { kind: 'wait', hours: 2 }, { kind: 'invite', note: null }], leads, {
      senders: ['acc_a', 'acc_b', 'acc_c'],
      workspace: (ws) => {
        Object.assign(ws.accounts![0]!, { connectionRequestLimit: 5 });
        ws.accounts!.push({ id: 'acc_b', name: 'B', status: 'connected', connectionRequestLimit: 5 });
        ws.accounts!.push({ id: 'acc_c', name: 'C', status: 'connected', connectionRequestLimit: 5 });
      },
    });
    await h.runUntil(() => h.intents().filter((i) => i.kind === 'connection_request').length === 45, 10 * MINUTE, 3000);
    const perDay = new Map<string, number>();
    for (const i of h.intents().filter((x) => x.kind === 'connection_request')) {
      const key = `${new Date(i.createdAt).toISOString().slice(0, 10)} ${i.accountId}`;
      perDay.set(key, (perDay.get(key) ?? 0) + 1);
    }
    // 45 leads, 15 invitations a day: three days, each sender at its 5 every day.
    expect([...perDay.values()]).toEqual(Array(9).fill(5));
    expect(h.audit().violations).toEqual([]);
  });
});

describe('limits per kind', () => {
  it('an account out of visits for the day still sends its invitations', async () => {
    const h = await stepsHarness(
      [{ kind: 'visit' }, { kind: 'invite', note: null }],
      ['amy-sim-never-accepts', 'ada-sim-never-accepts', 'ann-sim-never-accepts'],
      {
        workspace: (ws) => Object.assign(ws.accounts![0]!, { profileVisitLimit: 1 }),
      },
    );
    const day = (t: number) => new Date(t).toISOString().slice(0, 10);
    const today = day(h.ctx.clock.now());
    await h.runUntil(() => h.intents().filter((i) => i.kind === 'connection_request').length === 3, 10 * MINUTE, 2000);
    const byDay = h.intents().map((i) => `${i.kind}:${i.leadId}:${day(i.createdAt) === today ? 0 : Math.round((i.createdAt - Date.parse(today)) / DAY)}`);
    // One visit a day; each visited lead is invited the day of its visit.
    expect(byDay.filter((x) => x.startsWith('visit'))).toEqual(['visit:lead_1:0', 'visit:lead_2:1', 'visit:lead_3:2']);
    expect(byDay.filter((x) => x.startsWith('connection_request'))).toEqual([
      'connection_request:lead_1:0',
      'connection_request:lead_2:1',
      'connection_request:lead_3:2',
    ]);
    expect(h.audit().violations).toEqual([]);
  });
});
