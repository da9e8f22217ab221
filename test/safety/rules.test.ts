import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { findAccountView, listAccounts } from '../../src/core/accounts/list.js';
import { connectAccount, updateAccount } from '../../src/core/accounts/manage.js';
import { FakeClock, utcDay } from '../../src/core/clock.js';
import { pauseCampaign } from '../../src/core/campaigns/lifecycle.js';
import { auditSafety } from '../../src/core/safety/audit.js';
import { resolveSafety, warmUpLimit } from '../../src/core/safety/rules.js';
import { accountDaily, accounts, activity, agents, engineIntents } from '../../src/db/schema.js';
import { Engine } from '../../src/workers/outreach/index.js';
import { DAY, engineSettings, engineWorkspace, harness, HOUR, MINUTE, RecordingNetwork, type Harness } from '../engine/helpers.js';
import { testCtx } from '../helpers.js';
import { expectSafe } from './audit.js';
import { applyCampaignEvent } from '../../src/core/campaigns/state-machine.js';

const MONDAY = Date.parse('2026-11-23T00:00:00Z');
const silent = (n: number, prefix = 'p') => Array.from({ length: n }, (_, i) => ({ slug: `${prefix}${i}-sim-never-accepts` }));

/** Ticks every `step` for `ms` of simulated time. */
async function runFor(h: Pick<Harness, 'ctx'> & { engine: Engine }, ms: number, step = 10 * MINUTE): Promise<void> {
  const end = h.ctx.clock.now() + ms;
  while (h.ctx.clock.now() < end) {
    await h.engine.tick();
    h.ctx.clock.advance(step);
  }
}

/** Connection requests the engine sent, per UTC day. */
function invitesPerDay(h: Harness): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of h.events('connection_request_sent')) out.set(utcDay(e.at), (out.get(utcDay(e.at)) ?? 0) + 1);
  return out;
}

const account = (h: Harness, id = 'acc_a') => listAccounts(h.ctx, 'secret', { limit: 100 }).accounts.find((a) => a.id === id)!;
const dayOf = (i: number) => utcDay(MONDAY + i * DAY);

describe('weekly invitation cap', () => {
  it('stops at 100 in a rolling week, shows why, and frees slots as old days leave the window', async () => {
    const h = harness(engineWorkspace(silent(200)), { clock: new FakeClock(MONDAY) });
    await runFor(h, 4 * DAY);
    expect([0, 1, 2, 3].map((i) => invitesPerDay(h).get(dayOf(i)))).toEqual([25, 25, 25, 25]);
    // Friday: the week is full although today's count is zero.
    await runFor(h, DAY);
    expect(invitesPerDay(h).get(dayOf(4))).toBeUndefined();
    h.ctx.clock.set(MONDAY + 4 * DAY + 12 * HOUR);
    expect(account(h).today.connectionRequestLimit).toBe(0);
    expect(account(h).week).toEqual({ connectionRequestsSent: 100, connectionRequestLimit: 100, fullUntil: new Date(MONDAY + 7 * DAY).toISOString() });
    h.ctx.clock.set(MONDAY + 5 * DAY);
    await runFor(h, 3 * DAY);
    const days = invitesPerDay(h);
    expect([4, 5, 6].map((i) => days.get(dayOf(i)) ?? 0)).toEqual([0, 0, 0]);
    // The next Monday's window holds Tuesday to Thursday (75): room for 25 again.
    expect(days.get(dayOf(7))).toBe(25);
    expectSafe(h.ctx, h.engine.settings);
  }, 60_000);

  it("uses the account's own weekly cap when it sets one", async () => {
    const ws = engineWorkspace(silent(100));
    ws.accounts![0]!.weeklyConnectionRequestLimit = 30;
    const h = harness(ws, { clock: new FakeClock(MONDAY) });
    await runFor(h, 3 * DAY);
    expect([0, 1, 2].map((i) => invitesPerDay(h).get(dayOf(i)) ?? 0)).toEqual([25, 5, 0]);
    expectSafe(h.ctx, h.engine.settings);
  }, 60_000);

  it('counts a pause mid-week: resuming does not start a new week', async () => {
    const h = harness(engineWorkspace(silent(200)), { clock: new FakeClock(MONDAY) });
    await runFor(h, 3 * DAY);
    pauseCampaign(h.ctx, 'cmp');
    await runFor(h, DAY);
    expect(invitesPerDay(h).get(dayOf(3))).toBeUndefined();
    applyCampaignEvent(h.ctx, 'cmp', 'resume');
    await runFor(h, 2 * DAY);
    // Friday takes the 25 left of the week; Saturday gets nothing.
    expect([4, 5].map((i) => invitesPerDay(h).get(dayOf(i)) ?? 0)).toEqual([25, 0]);
    expectSafe(h.ctx, h.engine.settings);
  }, 60_000);

  it('survives a restart mid-week: the new engine forgets neither the week nor the spacing', async () => {
    const h = harness(engineWorkspace(silent(200)), { clock: new FakeClock(MONDAY) });
    await runFor(h, 3 * DAY + 9 * HOUR + 5 * MINUTE, 5 * MINUTE);
    await h.engine.stop();
    const sentBefore = h.events('connection_request_sent').length;
    expect(sentBefore).toBeGreaterThan(75);
    const next = new Engine(h.ctx, { settings: engineSettings(), random: () => 0, holder: 'engine-after-restart' });
    // The first tick after the restart comes within the spacing of the last send.
    h.ctx.clock.advance(30_000);
    await runFor({ ctx: h.ctx, engine: next }, 3 * DAY, 5 * MINUTE);
    await next.stop();
    const days = invitesPerDay(h);
    expect([3, 4, 5].map((i) => days.get(dayOf(i)) ?? 0)).toEqual([25, 0, 0]);
    expectSafe(h.ctx, next.settings);
  }, 60_000);
});

describe('warm-up', () => {
  it("rises day by day from the first day's limit to the configured one, and shows each day's limit", async () => {
    const ws = engineWorkspace(silent(300));
    Object.assign(ws.accounts![0]!, { warmUp: true, weeklyConnectionRequestLimit: 1000 });
    const h = harness(ws, { clock: new FakeClock(MONDAY) });
    const curve = Array.from({ length: 16 }, (_, i) => warmUpLimit(25, 5, 14, i));
    expect(curve).toEqual([5, 6, 8, 9, 11, 12, 14, 15, 16, 18, 19, 21, 22, 24, 25, 25]);
    const shown: number[] = [];
    const warm: (object | null)[] = [];
    for (let i = 0; i < 16; i++) {
      shown.push(account(h).today.connectionRequestLimit);
      warm.push(account(h).warmUp);
      await runFor(h, DAY);
    }
    expect(shown).toEqual(curve);
    expect(warm[0]).toEqual({ day: 1, days: 14 });
    expect(warm[13]).toEqual({ day: 14, days: 14 });
    expect(warm[14]).toBeNull();
    const days = invitesPerDay(h);
    expect(curve.map((_, i) => days.get(dayOf(i)) ?? 0)).toEqual(curve);
    expectSafe(h.ctx, h.engine.settings);
  }, 120_000);

  it('starts for an account added with connect_account: 5 invitations and 10 messages the first day, more each next day', async () => {
    const ctx = testCtx({ clock: new FakeClock(MONDAY + 15 * HOUR) });
    const { account: added } = await connectAccount(ctx, { name: 'New seat' });
    expect(added).toMatchObject({
      status: 'connected',
      today: { connectionRequestLimit: 5, messageLimit: 10 },
      limits: { connectionRequestLimit: 25, messageLimit: 50 },
      warmUp: { day: 1, days: 14 },
    });
    const seen: unknown[] = [];
    for (let i = 1; i <= 14; i++) {
      ctx.clock.set(MONDAY + i * DAY + HOUR);
      const a = findAccountView(ctx, added.id)!;
      seen.push([a.today.connectionRequestLimit, a.today.messageLimit, a.warmUp?.day ?? null]);
    }
    // Day 2 is the next UTC day, however late on day 1 the account was connected; day 15 runs at the configured limits.
    expect(seen).toEqual([
      [6, 13, 2],
      [8, 16, 3],
      [9, 19, 4],
      [11, 21, 5],
      [12, 24, 6],
      [14, 27, 7],
      [15, 30, 8],
      [16, 33, 9],
      [18, 36, 10],
      [19, 39, 11],
      [21, 41, 12],
      [22, 44, 13],
      [24, 47, 14],
      [25, 50, null],
    ]);
    expect(findAccountView(ctx, added.id)).toMatchObject({ limits: { connectionRequestLimit: 25, messageLimit: 50 }, warmUp: null });
  });

  it('holds the engine to it on a connect_account account, and a second ask does not restart it', async () => {
    const h = harness(engineWorkspace(silent(60)), { clock: new FakeClock(MONDAY) });
    const { account: added } = await connectAccount(h.ctx, { name: 'New seat' });
    h.ctx.db.update(agents).set({ accountId: added.id }).where(eq(agents.id, 'tpl')).run();
    await runFor(h, 2 * DAY);
    updateAccount(h.ctx, added.id, { warmUp: true });
    await runFor(h, DAY);
    expect([0, 1, 2].map((i) => invitesPerDay(h).get(dayOf(i)) ?? 0)).toEqual([5, 6, 8]);
    expect(account(h, added.id).warmUp).toEqual({ day: 4, days: 14 });
    expectSafe(h.ctx, h.engine.settings);
  }, 60_000);

  it('is not started by connect_account when the config turns it off, unless the call asks', async () => {
    const ctx = { ...testCtx({ clock: new FakeClock(MONDAY) }), safety: resolveSafety({ warmUp: { onConnect: false } }) };
    const off = await connectAccount(ctx, { name: 'Old seat', connectionRequestLimit: 30 });
    expect(off.account).toMatchObject({
      today: { connectionRequestLimit: 30, messageLimit: 50 },
      limits: { connectionRequestLimit: 30, messageLimit: 50 },
      warmUp: null,
    });
    expect((await connectAccount(ctx, { name: 'New seat', warmUp: true })).account).toMatchObject({
      today: { connectionRequestLimit: 5 },
      warmUp: { day: 1, days: 14 },
    });
    expect((await connectAccount(testCtx(), { name: 'Old seat', warmUp: false })).account).toMatchObject({
      today: { connectionRequestLimit: 25 },
      warmUp: null,
    });
  });

  it('started later by update_account, leaves the days before it at full limits for the auditor', async () => {
    const h = harness(engineWorkspace(silent(80)), { clock: new FakeClock(MONDAY) });
    await runFor(h, 2 * DAY);
    expect(updateAccount(h.ctx, 'acc_a', { warmUp: true })).toMatchObject({
      today: { connectionRequestLimit: 5, messageLimit: 10 },
      warmUp: { day: 1, days: 14 },
    });
    await runFor(h, 2 * DAY);
    expect([0, 1, 2, 3].map((i) => invitesPerDay(h).get(dayOf(i)) ?? 0)).toEqual([25, 25, 5, 6]);
    expectSafe(h.ctx, h.engine.settings);
    expect(updateAccount(h.ctx, 'acc_a', { warmUp: false })).toMatchObject({ today: { connectionRequestLimit: 25, messageLimit: 50 }, warmUp: null });
  }, 60_000);

  it('is off for accounts loaded from a workspace file unless asked', () => {
    const h = harness(engineWorkspace([]), { clock: new FakeClock(MONDAY) });
    expect(account(h).warmUp).toBeNull();
    expect(account(h).today.connectionRequestLimit).toBe(25);
  });
});

describe('stale invitations', () => {
  it('are withdrawn at exactly N days, and the lead moves on with no work left', async () => {
    const net = { current: null as RecordingNetwork | null };
    const h = harness(engineWorkspace(['vera-sim-never-accepts']), {
      clock: new FakeClock(MONDAY),
      config: { invitationTimeoutDays: 21 },
      network: (ctx) => (net.current = new RecordingNetwork(ctx.network)),
    });
    await h.tick();
    const invitedAt = h.lead('lead_1').invitedAt!;
    expect(invitedAt).toBe(MONDAY);
    h.ctx.clock.set(invitedAt + 21 * DAY - 1);
    await h.tick();
    expect(net.current!.calls.map((c) => c.op)).toEqual(['connect']);
    expect(h.lead('lead_1').invitationWithdrawnAt).toBeNull();
    h.ctx.clock.set(invitedAt + 21 * DAY);
    await h.tick();
    expect(net.current!.calls.map((c) => c.op)).toEqual(['connect', 'withdraw']);
    const lead = h.lead('lead_1');
    expect(lead).toMatchObject({ stage: 'connection_sent', invitationWithdrawnAt: invitedAt + 21 * DAY, nextActionAt: null });
    const intents = h.ctx.db.select().from(engineIntents).all();
    expect(intents.map((i) => [i.kind, i.state])).toEqual([
      ['connection_request', 'sent'],
      ['withdrawal', 'sent'],
    ]);
    expect(h.campaign().status).toBe('COMPLETED');
    expectSafe(h.ctx, h.engine.settings);
  });

  it('cancels an acceptance that had not come yet: a withdrawn invitation is never accepted', async () => {
    // Accepts, but hours later: the invitation is withdrawn before that.
    const h = harness(engineWorkspace(['wanda-sim-replies-positive']), { clock: new FakeClock(MONDAY), config: { invitationTimeoutDays: 1 / 96 } });
    await h.tick();
    h.ctx.clock.advance(15 * MINUTE);
    await h.tick();
    expect(h.lead('lead_1').invitationWithdrawnAt).not.toBeNull();
    await runFor(h, 10 * DAY, HOUR);
    expect(h.events('connection_accepted')).toHaveLength(0);
    expect(h.lead('lead_1').stage).toBe('connection_sent');
  });

  it('are only given up on, not withdrawn, when withdrawal is off', async () => {
    const net = { current: null as RecordingNetwork | null };
    const h = harness(engineWorkspace(['vera-sim-never-accepts']), {
      clock: new FakeClock(MONDAY),
      config: { withdrawStaleInvitations: false },
      network: (ctx) => (net.current = new RecordingNetwork(ctx.network)),
    });
    await h.tick();
    h.ctx.clock.advance(21 * DAY);
    await h.tick();
    expect(net.current!.calls.map((c) => c.op)).toEqual(['connect']);
    expect(h.lead('lead_1')).toMatchObject({ stage: 'connection_sent', invitationWithdrawnAt: null, nextActionAt: null });
  });
});

describe('human rhythm', () => {
  it("sends only inside each account's working hours in its own time zone, never in lock-step", async () => {
    const ws = engineWorkspace(silent(60, 'a'), { extraAccounts: ['acc_b'] });
    Object.assign(ws.accounts![1]!, {
      timeZone: 'America/New_York',
      workingHours: { start: '09:00', end: '18:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
    });
    // acc_b sends its own campaign, through its own agent.
    ws.agents!.push({ ...ws.agents![0]!, id: 'tpl_b', accountId: 'acc_b' });
    ws.campaigns!.push({
      id: 'cmp_b',
      name: 'B',
      status: 'CAMPAIGN_IN_PROGRESS',
      assignedTemplateId: 'tpl_b',
      leads: silent(60, 'b').map((l, i) => ({ id: `lead_b${i}`, networkUrl: `https://www.linkedin.com/in/${l.slug}`, firstName: 'B' })),
    });
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const h = harness(ws, {
      clock: new FakeClock(MONDAY),
      config: {
        workingHours: { start: '09:00', end: '18:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
        rhythmJitterMinutes: 30,
        spacingSeconds: { min: 60, max: 180 },
      },
      engine: { random },
    });
    await runFor(h, 2 * DAY, MINUTE);
    const sends = h.ctx.db.select().from(engineIntents).all();
    const first = (acc: string) => Math.min(...sends.filter((s) => s.accountId === acc).map((s) => s.createdAt));
    expect(first('acc_a')).toBeGreaterThanOrEqual(Date.parse('2026-11-23T09:00:00Z'));
    // New York is UTC-5 in November: its 09:00 is 14:00 UTC.
    expect(first('acc_b')).toBeGreaterThanOrEqual(Date.parse('2026-11-23T14:00:00Z'));
    expect(first('acc_b')).toBeLessThan(Date.parse('2026-11-23T14:31:00Z'));
    const report = expectSafe(h.ctx, h.engine.settings);
    expect(report.calls).toBe(sends.length);
    expect(report.accountDays).toBe(4);
  }, 60_000);
});

describe('the safety auditor', () => {
  it('finds every kind of broken rule in the records', () => {
    const h = harness(engineWorkspace([], { extraAccounts: ['acc_b'] }), { clock: new FakeClock(MONDAY) });
    const settings = engineSettings({ workingHours: { start: '09:00', end: '18:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] } });
    const db = h.ctx.db;
    // 26 invitations on Monday (cap 25), 100 more over the week (cap 100), 51 messages on Tuesday (cap 50).
    db.insert(accountDaily)
      .values({ accountId: 'acc_a', day: dayOf(0), connectionRequestsSent: 26 })
      .run();
    db.insert(accountDaily)
      .values({ accountId: 'acc_a', day: dayOf(1), connectionRequestsSent: 25, messagesSent: 51 })
      .run();
    db.insert(accountDaily)
      .values({ accountId: 'acc_a', day: dayOf(2), connectionRequestsSent: 25 })
      .run();
    db.insert(accountDaily)
      .values({ accountId: 'acc_a', day: dayOf(3), connectionRequestsSent: 25 })
      .run();
    const intent = (accountId: string, at: number, n: number) =>
      db
        .insert(engineIntents)
        .values({ id: `int_${accountId}_${n}`, leadId: 'l', campaignId: 'cmp', accountId, kind: 'message', state: 'sent', holder: 'x', createdAt: at })
        .run();
    // Saturday night, and twice within 10 s.
    intent('acc_a', MONDAY + 5 * DAY + 2 * HOUR, 1);
    [0, 10_000, 200_000].forEach((d, i) => intent('acc_a', MONDAY + 10 * HOUR + d, 10 + i));
    // acc_b sends at the same minutes as acc_a on Monday.
    [0, 10_000, 200_000].forEach((d, i) => intent('acc_b', MONDAY + 10 * HOUR + d + 20_000, 20 + i));
    const report = auditSafety(h.ctx, { safety: settings.safety, spacingMinMs: settings.spacingMinMs });
    const rules = report.violations.map((v) => `${v.accountId} ${v.day} ${v.rule}`).sort();
    expect(rules).toEqual(
      [
        `acc_a ${dayOf(0)} daily_connection_cap`,
        `acc_a ${dayOf(0)} spacing`,
        `acc_a ${dayOf(1)} daily_message_cap`,
        `acc_a ${dayOf(3)} weekly_connection_cap`,
        `acc_a ${dayOf(5)} working_hours`,
        `acc_b ${dayOf(0)} lock_step`,
        `acc_b ${dayOf(0)} spacing`,
      ].sort(),
    );
    expect(report.calls).toBe(7);
  });

  it("holds a warming account to the day's warm-up limit", () => {
    const h = harness(engineWorkspace([]), { clock: new FakeClock(MONDAY) });
    h.ctx.db.update(accounts).set({ warmUpStartedAt: MONDAY }).run();
    h.ctx.db
      .insert(accountDaily)
      .values({ accountId: 'acc_a', day: dayOf(1), connectionRequestsSent: 7 })
      .run();
    const report = auditSafety(h.ctx, { safety: h.engine.settings.safety, spacingMinMs: 60_000 });
    expect(report.violations.map((v) => v.detail)).toEqual(['7 connection requests, limit 6']);
    expect(h.ctx.db.select().from(activity).all()).toHaveLength(0);
  });
});
