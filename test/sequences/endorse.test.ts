// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { updateAgent } from '../../src/core/agents/agents.js';
import { startCampaign } from '../../src/core/campaigns/lifecycle.js';
import type { NetworkProvider } from '../../src/core/network/provider.js';
import { auditSafety } from '../../src/core/safety/audit.js';
import { allowance } from '../../src/core/safety/rules.js';
import { stepEventsOf } from '../../src/core/sequences/store.js';
import type { EndorseSkillInput } from '../../src/core/steps/endorse.js';
import { engineIntents } from '../../src/db/schema.js';
import { SimulatedNetwork, simSkills } from '../../src/network/sim/simulated-network.js';
import { RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';
import { DAY, engineSettings, engineWorkspace, harness, MINUTE, RecordingNetwork, type LeadSpec } from '../engine/helpers.js';

/** The recording network, passing endorsements on to the simulator. */
class EndorsingNetwork extends RecordingNetwork {
  readonly endorsements: { networkUrl: string | undefined; skill: string | null; accountId: string }[] = [];
  constructor(private readonly sim: NetworkProvider) {
    super(sim);
  }
  endorseSkill: NonNullable<NetworkProvider['endorseSkill']> = async (input: EndorseSkillInput) => {
    this.endorsements.push({ networkUrl: input.networkUrl, skill: input.skill, accountId: input.account.id });
    return (this.sim.endorseSkill as NonNullable<NetworkProvider['endorseSkill']>)(input);
  };
}

const settings = engineSettings({ replyWaitDays: 0 });

async function endorseHarness(steps: unknown[], leads: LeadSpec[]) {
  let net!: EndorsingNetwork;
  const h = harness(engineWorkspace(leads, { status: 'READY_TO_SEND' }), {
    config: { replyWaitDays: 0 },
    network: (ctx) => {
      net = new EndorsingNetwork(ctx.network);
      return net;
    },
  });
  updateAgent(h.ctx, 'tpl', { steps: steps as never });
  await startCampaign(h.ctx, 'cmp');
  const events = (leadId: string) => stepEventsOf(h.ctx, leadId).map((e) => [e.kind, e.event, ...(e.reason ? [e.reason] : [])].join(':'));
  return { ...h, net, events };
}

describe('the endorse step', () => {
  it('the simulator lists three skills per person and endorses a named one, the first not endorsed, or none', async () => {
    const sim = new SimulatedNetwork({ clock: new FakeClock(0) });
    const account = { id: 'acc_a', hasSalesNavigator: false };
    const networkUrl = 'https://www.linkedin.com/in/dora-endorse';
    const skills = simSkills('dora-endorse');
    expect(new Set(skills).size).toBe(3);
    expect(await sim.endorseSkill({ networkUrl, account, skill: skills[1]!.toUpperCase() })).toEqual({ outcome: 'endorsed', skill: skills[1] });
    expect(await sim.endorseSkill({ networkUrl, account, skill: null })).toEqual({ outcome: 'endorsed', skill: skills[0] });
    expect(await sim.endorseSkill({ networkUrl, account, skill: null })).toEqual({ outcome: 'endorsed', skill: skills[2] });
    expect(await sim.endorseSkill({ networkUrl, account, skill: null })).toEqual({ outcome: 'no_skill' });
    expect(await sim.endorseSkill({ networkUrl, account, skill: 'Underwater basket weaving' })).toEqual({ outcome: 'no_skill' });
  });

  it('runs in the simulator: a connection is endorsed, the first skill or a named one; others are skipped with why', async () => {
    const named = simSkills('eve-endorse')[2]!;
    const h = await endorseHarness(
      [{ kind: 'endorse' }, { kind: 'endorse', skill: named }, { kind: 'endorse', skill: 'Underwater basket weaving' }],
      [
        { slug: 'eve-endorse', stage: 'connected' },
        { slug: 'fay-endorse', stage: 'new' },
      ],
    );
    await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE, 500);

    expect(h.net.endorsements).toEqual([
      { networkUrl: 'https://www.linkedin.com/in/eve-endorse', skill: null, accountId: 'acc_a' },
      { networkUrl: 'https://www.linkedin.com/in/eve-endorse', skill: named, accountId: 'acc_a' },
      { networkUrl: 'https://www.linkedin.com/in/eve-endorse', skill: 'Underwater basket weaving', accountId: 'acc_a' },
    ]);
    expect(h.events('lead_1')).toEqual(['endorse:sent', 'endorse:sent', 'endorse:skipped:no_skill']);
    // Only a connection can be endorsed: nothing is asked of the network for the other lead.
    expect(h.events('lead_2')).toEqual(['endorse:skipped:not_connected', 'endorse:skipped:not_connected', 'endorse:skipped:not_connected']);
    const intents = h.ctx.db.select().from(engineIntents).where(eq(engineIntents.kind, 'endorse')).all();
    expect(intents.map((i) => [i.leadId, i.text, i.state])).toEqual([
      ['lead_1', null, 'sent'],
      ['lead_1', named, 'sent'],
      ['lead_1', 'Underwater basket weaving', 'sent'],
    ]);
    expect(auditSafety(h.ctx, { safety: settings.safety, spacingMinMs: settings.spacingMinMs }).violations).toEqual([]);
  });

  it("a sender's daily endorsement limit holds: the rest wait for the next day, and the auditor finds nothing", async () => {
    const leads = Array.from({ length: 30 }, (_, i): LeadSpec => ({ slug: `gus${i}-endorse`, stage: 'connected' }));
    const h = await endorseHarness([{ kind: 'endorse' }], leads);
    const firstDay = Math.floor(h.ctx.clock.now() / DAY);
    await h.runUntil(() => Math.floor(h.ctx.clock.now() / DAY) > firstDay, 10 * MINUTE, 400);
    const onFirstDay = h.ctx.db
      .select()
      .from(engineIntents)
      .where(and(eq(engineIntents.kind, 'endorse'), eq(engineIntents.accountId, 'acc_a')))
      .all()
      .filter((i) => Math.floor(i.createdAt / DAY) === firstDay);
    const account = h.ctx.db.query.accounts.findFirst({ where: (a, { eq: is }) => is(a.id, 'acc_a') }).sync();
    const limit = allowance(h.ctx, account!, settings.safety, firstDay * DAY).own?.endorsements?.limit;
    expect(limit).toBeGreaterThan(0);
    expect(onFirstDay).toHaveLength(limit!);
    await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE, 2000);
    expect(h.net.endorsements).toHaveLength(30);
    expect(auditSafety(h.ctx, { safety: settings.safety, spacingMinMs: settings.spacingMinMs }).violations).toEqual([]);
  });

  it('the auditor names a day over the endorsement limit', async () => {
    const h = await endorseHarness([{ kind: 'endorse' }], [{ slug: 'hal-endorse', stage: 'connected' }]);
    const at = Date.parse('2026-11-03T10:00:00Z');
    const rows = Array.from({ length: 26 }, (_, i) => ({
      id: `int_over${String(i).padStart(3, '0')}`,
      leadId: 'lead_1',
      campaignId: 'cmp',
      accountId: 'acc_a',
      kind: 'endorse',
      step: null,
      stepId: null,
      text: null,
      state: 'sent',
      holder: 'engine-test',
      createdAt: at + i * 10 * MINUTE,
      settledAt: at + i * 10 * MINUTE,
      chatId: null,
      messageId: null,
      errorCode: null,
    }));
    h.ctx.db.insert(engineIntents).values(rows).run();
    const found = auditSafety(h.ctx, { safety: settings.safety, spacingMinMs: 0 }).violations.filter((v) => v.rule === 'daily_endorsements_cap');
    expect(found).toEqual([{ rule: 'daily_endorsements_cap', accountId: 'acc_a', day: '2026-11-03', detail: '26 skill endorsements, limit 25' }]);
  });

  it('a provider that cannot endorse skips the step with why, and the lead goes on', async () => {
    const h = harness(engineWorkspace([{ slug: 'ida-endorse', stage: 'connected' }], { status: 'READY_TO_SEND' }), {
      config: { replyWaitDays: 0 },
      network: (ctx) => new RecordingNetwork(ctx.network),
    });
    updateAgent(h.ctx, 'tpl', { steps: [{ kind: 'endorse' }, { kind: 'visit' }] });
    await startCampaign(h.ctx, 'cmp');
    await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE, 500);
    expect(stepEventsOf(h.ctx, 'lead_1').map((e) => `${e.kind}:${e.event}:${e.reason ?? ''}`)).toEqual(['endorse:skipped:endorse_unsupported', 'visit:sent:']);
  });
});

describe('the endorse step over the API', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
  });
  afterAll(() => server.close());
  const send = (path: string, body: unknown, method = 'POST') => server.rest(path, { method, body: JSON.stringify(body) });

  it('create_agent takes it, get_agent returns it (skill null when omitted), and a bad skill is 400 naming its path', async () => {
    const steps = [
      { kind: 'invite' },
      { kind: 'if', condition: 'accepted', withinHours: 72, then: [{ kind: 'endorse', skill: 'Sales' }, { kind: 'endorse' }] },
    ];
    const r = await send('/agents', { name: 'Endorser', accountId: 'acc_ada', steps });
    expect(r.status).toBe(200);
    const got = await server.rest(`/agents/${r.body.id}`);
    expect(got.body.steps[1].then).toEqual([
      { id: expect.stringMatching(/^stp_/), kind: 'endorse', skill: 'Sales' },
      { id: expect.stringMatching(/^stp_/), kind: 'endorse', skill: null },
    ]);
    const blank = await send('/agents', { name: 'Bad', accountId: 'acc_ada', steps: [{ kind: 'endorse', skill: '  ' }] });
    expect(blank.status).toBe(400);
    expect(blank.body.error).toMatchObject({ code: 'validation_error', details: { fields: ['steps[0].skill'] } });
    const extra = await send('/agents', { name: 'Bad', accountId: 'acc_ada', steps: [{ kind: 'endorse', skills: ['Sales'] }] });
    expect(extra.status).toBe(400);
  });
});
