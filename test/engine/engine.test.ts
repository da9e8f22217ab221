import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { FakeClock, utcDay } from '../../src/core/clock.js';
import { pauseCampaign, startCampaign } from '../../src/core/campaigns/lifecycle.js';
import { accountDaily, campaigns, engineIntents, leads, webhookEvents } from '../../src/db/schema.js';
import { beginSend } from '../../src/core/outreach/sends.js';
import { Engine } from '../../src/workers/outreach/index.js';
import { DAY, HOUR, MINUTE, RecordingNetwork, engineSettings, engineWorkspace, harness, url } from './helpers.js';

const daily = (h: ReturnType<typeof harness>, day: string) =>
  h.ctx.db
    .select()
    .from(accountDaily)
    .where(and(eq(accountDaily.accountId, 'acc_a'), eq(accountDaily.day, day)))
    .get();

describe('engine: sending', () => {
  it('sends a personalised connection request per lead, one per account per spacing interval', async () => {
    const h = harness(engineWorkspace(['ann-sim-never-accepts', 'bob-sim-never-accepts']));
    const r = await h.tick();
    expect(r.sends).toBe(1);
    expect(h.lead('lead_1').stage).toBe('connection_sent');
    expect(h.lead('lead_2').stage).toBe('new');
    // Held by the account's spacing, the second lead is left as it was (never looked at): its
    // campaign is not read again until the account may send.
    expect(h.lead('lead_2').nextActionAt).toBe(0);
    const [event] = h.events('connection_request_sent');
    expect(event).toMatchObject({
      leadId: 'lead_1',
      leadName: 'Person1 Test',
      companyName: 'Acme',
      messagePreview: 'Hi Person1, glad to connect.',
      accountId: 'acc_a',
      manual: false,
    });

    h.ctx.clock.advance(30_000);
    expect((await h.tick()).sends).toBe(0);
    h.ctx.clock.advance(30_000);
    expect((await h.tick()).sends).toBe(1);
    expect(h.lead('lead_2').stage).toBe('connection_sent');
    expect(h.campaign().connectionRequestsSent).toBe(2);
    expect(h.lifetime().connectionRequestsSent).toBe(2);
    expect(daily(h, utcDay(h.ctx.clock.now()))?.connectionRequestsSent).toBe(2);
    expect(h.campaign().updatedAt).toBe(h.ctx.clock.now());
  });

  it('skips excluded leads and leads on the exclusion list', async () => {
    const ws = engineWorkspace([{ slug: 'ann-sim-never-accepts', excluded: true }, 'listed-person', 'cara-sim-never-accepts']);
    ws.exclusions = [url('listed-person')];
    const h = harness(ws);
    await h.runUntil(() => h.lead('lead_3').stage === 'connection_sent');
    await h.tick();
    expect(h.events('connection_request_sent').map((e) => e.leadId)).toEqual(['lead_3']);
    expect(h.lead('lead_1').nextActionAt).toBeNull();
    expect(h.lead('lead_2').nextActionAt).toBeNull();
  });

  it('respects the daily connection request limit, counting the seeded today counters', async () => {
    const h = harness(
      engineWorkspace(['a-sim-never-accepts', 'b-sim-never-accepts', 'c-sim-never-accepts', 'd-sim-never-accepts'], {
        limits: { connectionRequestLimit: 3 },
        today: { connectionRequestsSent: 1 },
      }),
    );
    const day1 = utcDay(h.ctx.clock.now());
    for (let i = 0; i < 30; i++) {
      await h.tick();
      h.ctx.clock.advance(MINUTE);
    }
    expect(h.events('connection_request_sent')).toHaveLength(2);
    expect(daily(h, day1)?.connectionRequestsSent).toBe(3);
    // The rest are not even looked at until the account may invite again: they stay fresh (0),
    // rather than being polled every tick.
    const nextMidnight = Date.parse(`${day1}T00:00:00Z`) + DAY;
    expect(h.lead('lead_3').nextActionAt).toBe(0);
    expect(h.lead('lead_3').invitedAt).toBeNull();

    h.ctx.clock.set(nextMidnight);
    await h.runUntil(() => h.events('connection_request_sent').length === 4);
    expect(daily(h, utcDay(nextMidnight))?.connectionRequestsSent).toBe(2);
  });

  it('respects the daily message limit', async () => {
    const h = harness(engineWorkspace(['a-sim-fast-accept-sim-no-reply', 'b-sim-fast-accept-sim-no-reply'], { limits: { messageLimit: 1 } }));
    const day1 = utcDay(h.ctx.clock.now());
    await h.runUntil(() => h.events('message_sent').length === 2, 10 * MINUTE);
    expect(h.events('connection_accepted').map((e) => utcDay(e.at))).toEqual([day1, day1]);
    expect(h.events('message_sent').map((e) => utcDay(e.at))).toEqual([day1, utcDay(Date.parse(`${day1}T00:00:00Z`) + DAY)]);
    expect(daily(h, day1)?.messagesSent).toBe(1);
  });

  it('reads a few due leads per campaign, and reads on past those that need no send', async () => {
    const slugs = Array.from({ length: 7 }, (_, i) => `p${i}-sim-never-accepts`);
    const h = harness(engineWorkspace(slugs));
    const now = h.ctx.clock.now();
    // Six invitations sent an hour ago whose stored due time is stale (due now, though they
    // wait for an answer): handling them moves them on without a send.
    for (let i = 1; i <= 6; i++) {
      h.ctx.db
        .update(leads)
        .set({ stage: 'connection_sent', invitedAt: now - HOUR, nextActionAt: now - MINUTE + i })
        .where(eq(leads.id, `lead_${i}`))
        .run();
    }
    const first = await h.tick();
    expect(first.due).toBe(6);
    expect(first.sends).toBe(0);
    for (let i = 1; i <= 6; i++) expect(h.lead(`lead_${i}`).nextActionAt).toBeGreaterThan(now + DAY);
    // With the stale ones out of the way, the new lead goes at once.
    const second = await h.tick();
    expect(second.sends).toBe(1);
    expect(h.lead('lead_7').stage).toBe('connection_sent');
  });

  it('a campaign with nothing due is not probed until its next lead is due, yet an inbound reply is answered in the tick it arrives', async () => {
    const h = harness(engineWorkspace(['pam-sim-fast-accept-sim-replies-question', 'quinn-sim-never-accepts']));
    let replyTick: { due: number; sends: number } | null = null;
    for (let i = 0; i < 5000 && replyTick === null; i++) {
      const before = h.events('reply_received').length;
      const r = await h.tick();
      if (h.events('reply_received').length > before) replyTick = { due: r.due, sends: r.sends };
      h.ctx.clock.advance(MINUTE);
    }
    expect(replyTick).not.toBeNull();
    // The reply made the lead due at once: it was handled, and the agent's answer sent, in the
    // same tick, though the campaign had been quiet (nothing due) for hours before it.
    expect(replyTick!.due).toBeGreaterThanOrEqual(1);
    expect(replyTick!.sends).toBe(1);
    expect(h.events('agent_replied').length + h.events('cta_sent').length).toBe(1);
  });

  it('without spacing, takes a whole batch of due leads in one tick', async () => {
    const slugs = Array.from({ length: 12 }, (_, i) => `q${i}-sim-never-accepts`);
    const h = harness(engineWorkspace(slugs), { config: { spacingSeconds: { min: 0, max: 0 } } });
    const now = h.ctx.clock.now();
    for (let i = 1; i <= 12; i++)
      h.ctx.db
        .update(leads)
        .set({ nextActionAt: now - i })
        .where(eq(leads.id, `lead_${i}`))
        .run();
    expect((await h.tick()).sends).toBe(12);
  });

  it('sends only inside working hours', async () => {
    // 2026-11-21 is a Saturday.
    const clock = new FakeClock(Date.parse('2026-11-21T12:00:00Z'));
    const h = harness(engineWorkspace(['a-sim-never-accepts', 'b-sim-never-accepts']), {
      clock,
      config: { workingHours: { start: '09:00', end: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] } },
    });
    expect((await h.tick()).sends).toBe(0);
    const monday9 = Date.parse('2026-11-23T09:00:00Z');
    // Held by the hours, the lead is left as it was; the account sleeps until Monday 09:00.
    expect(h.lead('lead_1').nextActionAt).toBe(0);
    clock.set(monday9 - MINUTE);
    expect((await h.tick()).sends).toBe(0);
    clock.set(monday9);
    expect((await h.tick()).sends).toBe(1);

    // At the close of the window the next send waits for the next morning.
    clock.set(Date.parse('2026-11-23T17:00:00Z'));
    expect((await h.tick()).sends).toBe(0);
    expect(h.lead('lead_2').stage).toBe('new');
    clock.set(Date.parse('2026-11-24T09:00:00Z') - MINUTE);
    expect((await h.tick()).sends).toBe(0);
    clock.set(Date.parse('2026-11-24T09:00:00Z'));
    expect((await h.tick()).sends).toBe(1);
    expect(h.lead('lead_2').stage).toBe('connection_sent');
  });
});

describe('engine: pause, restart, lease', () => {
  it('a pause while sends are queued sends nothing more', async () => {
    const ws = engineWorkspace(
      ['a-sim-never-accepts', 'b-sim-never-accepts', { slug: 'c-sim-never-accepts', accountId: 'acc_b' }, { slug: 'd-sim-never-accepts', accountId: 'acc_b' }],
      {
        extraAccounts: ['acc_b'],
      },
    );
    let net!: RecordingNetwork;
    const h = harness(ws, {
      config: { concurrency: 1, spacingSeconds: { min: 0, max: 0 } },
      network: (ctx) => (net = new RecordingNetwork(ctx.network)),
    });
    net.hold();
    const ticking = h.tick();
    await net.arrived;
    expect(net.calls).toHaveLength(1);
    expect(pauseCampaign(h.ctx, 'cmp').action).toBe('paused');
    net.release();
    await ticking;
    // The one call already on the wire completes; nothing queued behind it goes out.
    expect(net.calls).toHaveLength(1);
    expect(h.events('connection_request_sent')).toHaveLength(1);
    for (let i = 0; i < 5; i++) {
      h.ctx.clock.advance(HOUR);
      await h.tick();
    }
    expect(net.calls).toHaveLength(1);

    expect((await startCampaign(h.ctx, 'cmp')).action).toBe('resumed');
    await h.runUntil(() => net.calls.length === 4);
    expect(h.events('connection_request_sent')).toHaveLength(4);
  });

  it('a restart between send intent and result never sends twice', async () => {
    let net!: RecordingNetwork;
    const h = harness(engineWorkspace(['ann-sim-fast-accept-sim-no-reply']), { network: (ctx) => (net = new RecordingNetwork(ctx.network)) });
    net.hold();
    const crashed = h.engine.tick();
    await net.arrived;
    const [intent] = h.ctx.db.select().from(engineIntents).all();
    expect(intent).toMatchObject({ state: 'pending', kind: 'connection_request', leadId: 'lead_1' });
    // The lead stays where it was on the queue; its pending intent is what holds it.
    expect(h.lead('lead_1').nextActionAt).toBe(0);

    // The first process is gone (its lease lapses); a new engine takes over the database.
    h.ctx.clock.advance(31_000);
    const second = new Engine(h.ctx, { settings: engineSettings(), random: () => 0, holder: 'engine-restarted' });
    const r = await second.tick();
    expect(r.leased).toBe(true);
    expect(h.ctx.db.select().from(engineIntents).where(eq(engineIntents.id, intent!.id)).get()?.state).toBe('assumed_sent');
    expect(h.lead('lead_1').stage).toBe('connection_sent');
    expect(h.events('connection_request_sent')).toHaveLength(1);

    for (let i = 0; i < 6; i++) {
      h.ctx.clock.advance(10 * MINUTE);
      await second.tick();
    }
    expect(net.calls.filter((c) => c.op === 'connect')).toHaveLength(1);

    // The old process's late answer changes nothing; the work goes on from the one invitation.
    net.release();
    await crashed;
    expect(h.events('connection_request_sent')).toHaveLength(1);
    expect(h.campaign().connectionRequestsSent).toBe(1);
    expect(h.lifetime().connectionRequestsSent).toBe(1);
    for (let i = 0; i < 6 * 3; i++) {
      h.ctx.clock.advance(10 * MINUTE);
      await second.tick();
    }
    expect(h.lead('lead_1').stage).toBe('messaged');
    expect(net.calls.filter((c) => c.op === 'connect')).toHaveLength(1);
    expect(h.events('connection_request_sent')).toHaveLength(1);
  });

  it('bounds the provider calls in flight by `concurrency` across accounts, and sends every lane in the tick', async () => {
    const accounts = ['acc_a', 'acc_b', 'acc_c', 'acc_d', 'acc_e'];
    let net!: RecordingNetwork;
    const h = harness(
      engineWorkspace(
        accounts.map((accountId, i) => ({ slug: `p${i}-sim-never-accepts`, accountId })),
        { extraAccounts: accounts.slice(1) },
      ),
      { config: { concurrency: 2, spacingSeconds: { min: 0, max: 0 } }, network: (ctx) => (net = new RecordingNetwork(ctx.network)) },
    );
    net.hold();
    const ticking = h.tick();
    await net.arrived;
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    // Two calls on the wire, two intents pending: the other three wait for a slot, not yet begun.
    expect(net.calls).toHaveLength(2);
    expect(
      h.ctx.db
        .select()
        .from(engineIntents)
        .all()
        .map((i) => i.state),
    ).toEqual(['pending', 'pending']);
    net.release();
    const r = await ticking;
    expect(r.sends).toBe(5);
    expect(new Set(h.events('connection_request_sent').map((e) => e.accountId))).toEqual(new Set(accounts));
    expect(
      h.ctx.db
        .select()
        .from(engineIntents)
        .all()
        .every((i) => i.state === 'sent'),
    ).toBe(true);
  });

  it('a stop while sends wait for a provider slot begins none of them', async () => {
    const accounts = ['acc_a', 'acc_b', 'acc_c'];
    let net!: RecordingNetwork;
    const h = harness(
      engineWorkspace(
        accounts.map((accountId, i) => ({ slug: `p${i}-sim-never-accepts`, accountId })),
        { extraAccounts: accounts.slice(1) },
      ),
      { config: { concurrency: 1, spacingSeconds: { min: 0, max: 0 } }, network: (ctx) => (net = new RecordingNetwork(ctx.network)) },
    );
    net.hold();
    void h.tick();
    await net.arrived;
    const stopped = h.engine.stop();
    net.release();
    await stopped;
    // The call on the wire completes and is recorded; the two waiting for the slot never begin.
    expect(net.calls).toHaveLength(1);
    expect(
      h.ctx.db
        .select()
        .from(engineIntents)
        .all()
        .map((i) => i.state),
    ).toEqual(['sent']);
    expect(h.events('connection_request_sent')).toHaveLength(1);
  });

  it('a send whose result cannot be recorded is counted as sent by the next tick, never sent again', async () => {
    let net!: RecordingNetwork;
    const h = harness(engineWorkspace(['ann-sim-never-accepts']), { network: (ctx) => (net = new RecordingNetwork(ctx.network)) });
    // The call goes out, then writing its activity fails (as a full disk would).
    h.ctx.db.$client.exec("CREATE TEMP TRIGGER no_activity BEFORE INSERT ON activity BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    expect((await h.tick()).sends).toBe(1);
    expect(net.calls).toHaveLength(1);
    expect(h.ctx.db.select().from(engineIntents).get()?.state).toBe('pending');
    h.ctx.db.$client.exec('DROP TRIGGER no_activity');
    for (let i = 0; i < 5; i++) {
      h.ctx.clock.advance(10 * MINUTE);
      await h.tick();
    }
    expect(h.ctx.db.select().from(engineIntents).get()?.state).toBe('assumed_sent');
    expect(h.lead('lead_1').stage).toBe('connection_sent');
    expect(h.events('connection_request_sent')).toHaveLength(1);
    expect(net.calls).toHaveLength(1);
  });

  it('never begins a second send for a lead whose intent is still pending, and takes it off the queue until recovery', async () => {
    const h = harness(engineWorkspace(['ann-sim-never-accepts']));
    await h.engine.tick();
    const settings = engineSettings();
    // An intent left pending (a settle that failed): the lead is due again, with the same plan.
    h.ctx.db.update(engineIntents).set({ state: 'pending' }).run();
    h.ctx.db.update(leads).set({ stage: 'new', invitedAt: null, nextActionAt: 1 }).where(eq(leads.id, 'lead_1')).run();
    expect(beginSend(h.ctx, settings, 'engine-test', 'lead_1', 'connect', 'acc_a', h.ctx.clock.now())).toBeNull();
    expect(h.lead('lead_1').nextActionAt).toBeNull();
    expect(h.ctx.db.select().from(engineIntents).all()).toHaveLength(1);
    h.ctx.clock.advance(10 * MINUTE);
    expect((await h.tick()).sends).toBe(0);
  });

  it('runs one engine per database: a standby takes over when the holder stops', async () => {
    const h = harness(engineWorkspace(['a-sim-never-accepts', 'b-sim-never-accepts']));
    const standby = new Engine(h.ctx, { settings: engineSettings(), random: () => 0, holder: 'standby' });
    expect((await h.tick()).leased).toBe(true);
    const r = await standby.tick();
    expect(r).toMatchObject({ leased: false, sends: 0 });
    await h.engine.stop();
    h.ctx.clock.advance(MINUTE);
    expect((await standby.tick()).sends).toBe(1);
    expect(h.events('connection_request_sent')).toHaveLength(2);
  });

  it('a tick looks only at due leads', async () => {
    const h = harness(engineWorkspace(['a-sim-never-accepts']));
    const future = h.ctx.clock.now() + 30 * DAY;
    h.ctx.db.transaction((tx) => {
      for (let i = 0; i < 500; i++) {
        tx.insert(leads)
          .values({
            id: `lead_f${i}`,
            campaignId: 'cmp',
            networkUrl: url(`future-${i}`),
            nextActionAt: future,
            stage: 'connection_sent',
            invitedAt: 1,
            createdAt: 1,
            updatedAt: 1,
          })
          .run();
      }
    });
    const r = await h.tick();
    expect(r.due).toBe(1);
    expect(r.sends).toBe(1);
  });
});

describe('engine: responses, agent and completion', () => {
  it('moves every kind of lead through its stages and keeps stats exact', async () => {
    const ws = engineWorkspace([
      'pat-sim-replies-positive',
      'quinn-sim-replies-question',
      'nina-sim-replies-negative',
      'otto-sim-out-of-office',
      'rita-sim-fast-accept-sim-no-reply',
      'sam-sim-send-fail',
      'vera-sim-never-accepts',
      { slug: 'xena-excluded', excluded: true },
    ]);
    const h = harness(ws, { config: { invitationTimeoutDays: 6, replyWaitDays: 1 } });
    await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE, 3000);

    const stage = (id: string) => h.lead(id).stage;
    expect(stage('lead_1')).toBe('replied');
    expect(stage('lead_2')).toBe('replied');
    expect(stage('lead_3')).toBe('handed_off');
    expect(stage('lead_4')).toBe('replied');
    expect(stage('lead_5')).toBe('messaged');
    expect(stage('lead_6')).toBe('failed');
    expect(stage('lead_7')).toBe('connection_sent');
    expect(stage('lead_8')).toBe('new');

    const pat = h.lead('lead_1');
    expect(pat).toMatchObject({ replied: true, needsReply: false, connectionRequestAccepted: true, messageSent: true });
    expect(pat.repliedAt).not.toBeNull();
    expect(pat.lastInboundMessageAt).toBe(pat.repliedAt);
    expect(h.events('cta_sent').map((e) => e.leadId)).toEqual(['lead_1']);
    expect(h.events('agent_replied').map((e) => e.leadId)).toEqual(['lead_2']);
    expect(h.lead('lead_2').needsReply).toBe(false);
    const [handoff] = h.events('agent_handed_off');
    expect(handoff).toMatchObject({ leadId: 'lead_3' });
    expect(handoff!.handOffReason).toMatch(/declined/);
    expect(h.lead('lead_3').needsReply).toBe(true);
    expect(h.lead('lead_4')).toMatchObject({ replied: true, needsReply: false });
    expect(h.lead('lead_5')).toMatchObject({ sequenceStep: 2, replied: false });

    const count = (type: string) => h.events(type).length;
    const c = h.campaign();
    expect(c.connectionRequestsSent).toBe(count('connection_request_sent'));
    expect(c.connectionRequestsSent).toBe(6);
    expect(c.connectionRequestsAccepted).toBe(count('connection_accepted'));
    expect(c.connectionRequestsAccepted).toBe(5);
    expect(c.messagesSent).toBe(count('message_sent'));
    expect(c.repliesReceived).toBe(count('reply_received'));
    expect(c.repliesReceived).toBe(4);
    const w = h.lifetime();
    expect([w.connectionRequestsSent, w.connectionRequestsAccepted, w.messagesSent, w.repliesReceived]).toEqual([
      c.connectionRequestsSent,
      c.connectionRequestsAccepted,
      c.messagesSent,
      c.repliesReceived,
    ]);
    for (const e of h.events()) expect([...(e.messagePreview ?? '')].length).toBeLessThanOrEqual(80);

    const outbox = (type: string) => h.ctx.db.select().from(webhookEvents).where(eq(webhookEvents.type, type)).all();
    expect(outbox('lead.connection_accepted')).toHaveLength(5);
    expect(outbox('lead.replied')).toHaveLength(4);
    expect(outbox('lead.handed_off')).toHaveLength(1);
    const replied = JSON.parse(outbox('lead.replied')[0]!.payload);
    expect(replied.data.accountId).toBe('acc_a');
    expect(replied.data.lead.replied).toBeUndefined();
    expect(replied.data.message.text).toEqual(expect.any(String));
  });

  it('does not complete a campaign while a lead waits for an acceptance', async () => {
    const h = harness(engineWorkspace(['vera-sim-never-accepts']), { config: { invitationTimeoutDays: 2 } });
    await h.tick();
    h.ctx.clock.advance(2 * DAY - MINUTE);
    await h.tick();
    expect(h.campaign().status).toBe('CAMPAIGN_IN_PROGRESS');
    h.ctx.clock.advance(MINUTE);
    const r = await h.tick();
    expect(r.completed).toEqual(['cmp']);
    expect(h.campaign().status).toBe('COMPLETED');
  });

  it('keeps an empty running campaign running and works a campaign seeded in progress', async () => {
    const ws = engineWorkspace(['a-sim-never-accepts']);
    ws.campaigns!.push({ id: 'cmp_empty', status: 'CAMPAIGN_IN_PROGRESS', assignedTemplateId: 'tpl' });
    const h = harness(ws);
    await h.tick();
    expect(h.events('connection_request_sent')).toHaveLength(1);
    expect(h.campaign('cmp_empty').status).toBe('CAMPAIGN_IN_PROGRESS');
  });

  it('leaves campaigns that are not running alone', async () => {
    const h = harness(engineWorkspace(['a-sim-never-accepts'], { status: 'READY_TO_SEND' }));
    await h.tick();
    expect(h.events()).toHaveLength(0);
    expect(h.lead('lead_1').nextActionAt).toBe(0);
  });

  it('gives up on a lead after repeated transient failures', async () => {
    const h = harness(engineWorkspace(['olga-sim-outage', 'b-sim-never-accepts']));
    await h.runUntil(() => h.lead('lead_1').stage === 'failed', 10 * MINUTE);
    expect(
      h.ctx.db
        .select()
        .from(engineIntents)
        .where(eq(engineIntents.leadId, 'lead_1'))
        .all()
        .map((i) => i.errorCode),
    ).toEqual(Array(5).fill('upstream_unavailable'));
    expect(h.lead('lead_2').stage).toBe('connection_sent');
  });

  it('a lead whose sender the network reports disconnected waits, however many tries, and is never failed for it', async () => {
    const h = harness(engineWorkspace(['dora-sim-disconnected', 'b-sim-never-accepts']));
    const tries = () => h.ctx.db.select().from(engineIntents).where(eq(engineIntents.leadId, 'lead_1')).all();
    await h.runUntil(() => tries().length >= 8, 10 * MINUTE);
    expect(new Set(tries().map((i) => i.errorCode))).toEqual(new Set(['account_disconnected']));
    // Past the five tries that end a lead the network refuses, it still waits, and counts no failure.
    expect(h.lead('lead_1').stage).not.toBe('failed');
    expect(h.lead('lead_1').sendAttempts).toBe(0);
    expect(h.lead('lead_1').nextActionAt).toBeGreaterThan(h.ctx.simClock.now());
  });

  it('holds an account back for the day after a network quota failure', async () => {
    const h = harness(engineWorkspace(['qa-sim-quota', 'b-sim-never-accepts']));
    await h.tick();
    const [intent] = h.ctx.db.select().from(engineIntents).all();
    expect(intent!.errorCode).toBe('network_daily_quota');
    h.ctx.clock.advance(HOUR);
    await h.tick();
    expect(h.events('connection_request_sent')).toHaveLength(0);
    const tomorrow = Date.parse(`${utcDay(h.ctx.clock.now())}T00:00:00Z`) + DAY;
    expect(h.lead('lead_2').nextActionAt).toBeGreaterThanOrEqual(tomorrow);
    // The recipient keeps failing: each retry waits a day, and after five tries the lead fails.
    await h.runUntil(() => h.lead('lead_2').stage === 'connection_sent', HOUR);
    expect(h.lead('lead_1').stage).toBe('failed');
    expect(h.ctx.db.select().from(engineIntents).where(eq(engineIntents.leadId, 'lead_1')).all()).toHaveLength(5);
  });

  it('marks a running campaign whose agent is gone FAILED', async () => {
    const h = harness(engineWorkspace(['a-sim-never-accepts']));
    h.ctx.db.update(campaigns).set({ assignedTemplateId: 'tpl_missing' }).where(eq(campaigns.id, 'cmp')).run();
    await h.tick();
    expect(h.campaign().status).toBe('FAILED');
    expect(h.events()).toHaveLength(0);
  });
});

describe('engine: polite close', () => {
  function closeHarness(status = 'CAMPAIGN_IN_PROGRESS') {
    const ws = engineWorkspace(['talk-sim-no-reply', 'quiet-sim-never-accepts'], { status });
    ws.campaigns!.push({
      id: 'cmp_other',
      status: 'READY_TO_SEND',
      assignedTemplateId: 'tpl',
      leads: [{ id: 'lead_other', networkUrl: url('talk-sim-no-reply') }],
    });
    let net!: RecordingNetwork;
    const h = harness(ws, { network: (ctx) => (net = new RecordingNetwork(ctx.network)) });
    const flag = (id: string, extra: Record<string, unknown> = {}) =>
      h.ctx.db
        .update(leads)
        .set({ politeClosePendingAt: 1, tag: 'Not interested', nextActionAt: null, ...extra })
        .where(eq(leads.id, id))
        .run();
    return { h, flag, net: () => net };
  }

  it('sends a short close in an open conversation, then excludes the person workspace-wide', async () => {
    const { h, flag, net } = closeHarness();
    flag('lead_1', { stage: 'replied', replied: true, messageSent: true, chatId: 'chat_1' });
    await h.tick();
    const close = net().calls.find((c) => c.networkUrl === url('talk-sim-no-reply'));
    expect(close?.op).toBe('message');
    expect(close?.text).toMatch(/^Thanks for letting me know, Person1\. I will not reach out again/);
    expect(h.events('agent_replied').map((e) => e.leadId)).toEqual(['lead_1']);
    expect(h.lead('lead_1')).toMatchObject({ excluded: true, politeClosePendingAt: null, nextActionAt: null });
    expect(h.lead('lead_other').excluded).toBe(true);
    expect(h.ctx.db.all(sql`SELECT network_url FROM exclusions`)).toEqual([{ network_url: url('talk-sim-no-reply') }]);
  });

  it('excludes at once, sending nothing, when there is no conversation or the campaign is not running', async () => {
    const quiet = closeHarness();
    quiet.flag('lead_2');
    await quiet.h.tick();
    expect(quiet.h.lead('lead_2')).toMatchObject({ excluded: true, politeClosePendingAt: null });
    expect(quiet.net().calls.map((c) => c.networkUrl)).not.toContain(url('quiet-sim-never-accepts'));

    const paused = closeHarness('CAMPAIGN_PAUSED');
    paused.flag('lead_1', { stage: 'replied', replied: true, messageSent: true, chatId: 'chat_1' });
    await paused.h.tick();
    expect(paused.h.lead('lead_1')).toMatchObject({ excluded: true, politeClosePendingAt: null });
    expect(paused.h.lead('lead_other').excluded).toBe(true);
    expect(paused.net().calls).toEqual([]);
    expect(paused.h.events()).toEqual([]);
  });
});
