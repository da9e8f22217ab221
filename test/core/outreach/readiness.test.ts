import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/core/clock.js';
import { ACCOUNT_RETRY_MS } from '../../../src/core/outreach/failures.js';
import { countAccountDaily } from '../../../src/core/activity/record.js';
import {
  accountReadiness,
  averageSpacing,
  countersStamp,
  firstSendAt,
  invitationsFreeAt,
  nextSendAt,
  sendingCounters,
  touchWait,
} from '../../../src/core/outreach/readiness.js';
import type { TickCounters } from '../../../src/core/outreach/runner.js';
import { resolveEngineSettings } from '../../../src/core/outreach/settings.js';
import { allowance, type Allowance } from '../../../src/core/safety/rules.js';
import { accountDaily, accounts, engineIntents } from '../../../src/db/schema.js';
import { engineWorkspace } from '../../engine/helpers.js';
import { testCtx } from '../../helpers.js';
import { DAY, HOUR, MINUTE } from './helpers.js';

// A Tuesday, 10:00 UTC.
const TUESDAY_10 = Date.parse('2026-11-03T10:00:00Z');
const settings = resolveEngineSettings({
  workingHours: { start: '09:00', end: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
  rhythmJitterMinutes: 0,
  spacingSeconds: { min: 60, max: 180 },
});
const safety = settings.safety;
const free = { notBefore: 0, blocked: false };

function ctxAt(now: number) {
  const ctx = testCtx({ workspace: engineWorkspace([], { limits: { connectionRequestLimit: 2, messageLimit: 1 } }), clock: new FakeClock(now) });
  return ctx;
}
const sent = (ctx: ReturnType<typeof ctxAt>, counts: { connectionRequestsSent?: number; messagesSent?: number }, day = '2026-11-03') =>
  ctx.db
    .insert(accountDaily)
    .values({ accountId: 'acc_a', day, ...counts })
    .run();

describe("an account's readiness to send", () => {
  it('is ready inside its hours, past its spacing, under its limits', () => {
    const ctx = ctxAt(TUESDAY_10);
    const ready = accountReadiness(ctx, safety, 'acc_a', 'connect', TUESDAY_10, free);
    expect('account' in ready && ready.account.id).toBe('acc_a');
  });

  it('waits an hour for an account that is unknown, not connected or set inactive', () => {
    const ctx = ctxAt(TUESDAY_10);
    const wait = { until: TUESDAY_10 + ACCOUNT_RETRY_MS, why: 'unavailable' };
    expect(accountReadiness(ctx, safety, 'acc_none', 'connect', TUESDAY_10, free)).toEqual(wait);
    ctx.db.update(accounts).set({ active: false }).run();
    expect(accountReadiness(ctx, safety, 'acc_a', 'connect', TUESDAY_10, free)).toEqual(wait);
    ctx.db.update(accounts).set({ active: true, status: 'disconnected' }).run();
    expect(accountReadiness(ctx, safety, 'acc_a', 'message', TUESDAY_10, free)).toEqual(wait);
  });

  it('waits out a provider block, then its hours and its spacing (idle)', () => {
    const ctx = ctxAt(TUESDAY_10);
    expect(accountReadiness(ctx, safety, 'acc_a', 'connect', TUESDAY_10, { notBefore: TUESDAY_10 + DAY, blocked: true })).toEqual({
      until: TUESDAY_10 + DAY,
      why: 'blocked',
    });
    expect(accountReadiness(ctx, safety, 'acc_a', 'connect', TUESDAY_10, { notBefore: TUESDAY_10 + MINUTE, blocked: false })).toEqual({
      until: TUESDAY_10 + MINUTE,
      why: 'idle',
    });
    // 18:00: closed until 09:00 tomorrow; a passed block no longer holds.
    const evening = TUESDAY_10 + 8 * HOUR;
    expect(accountReadiness(ctx, safety, 'acc_a', 'connect', evening, { notBefore: evening - 1, blocked: true })).toEqual({
      until: Date.parse('2026-11-04T09:00:00Z'),
      why: 'idle',
    });
  });

  it("waits for tomorrow's hours once today's cap of the kind is reached; a withdrawal has no cap", () => {
    const ctx = ctxAt(TUESDAY_10);
    sent(ctx, { connectionRequestsSent: 2, messagesSent: 0 });
    const tomorrow = { until: Date.parse('2026-11-04T09:00:00Z'), why: 'capped' };
    expect(accountReadiness(ctx, safety, 'acc_a', 'connect', TUESDAY_10, free)).toEqual(tomorrow);
    expect('account' in accountReadiness(ctx, safety, 'acc_a', 'message', TUESDAY_10, free)).toBe(true);
    expect('account' in accountReadiness(ctx, safety, 'acc_a', 'withdraw', TUESDAY_10, free)).toBe(true);
    ctx.db.update(accountDaily).set({ messagesSent: 1 }).run();
    expect(accountReadiness(ctx, safety, 'acc_a', 'message', TUESDAY_10, free)).toEqual(tomorrow);
  });

  it('uses counters just read for the same day, and reads them again on another day', () => {
    const ctx = ctxAt(TUESDAY_10);
    const account = ctx.db.select().from(accounts).get()!;
    const full = { ...allowance(ctx, account, safety, TUESDAY_10), connectionRequestsSentToday: 2 };
    expect(accountReadiness(ctx, safety, 'acc_a', 'connect', TUESDAY_10, free, { at: TUESDAY_10, allowance: full })).toMatchObject({ why: 'capped' });
    expect('account' in accountReadiness(ctx, safety, 'acc_a', 'connect', TUESDAY_10, free, { at: TUESDAY_10 - DAY, allowance: full })).toBe(true);
  });

  it('frees invitations tomorrow, or when the rolling week lets one go', () => {
    const ctx = ctxAt(TUESDAY_10);
    const a = allowance(ctx, ctx.db.select().from(accounts).get()!, safety, TUESDAY_10);
    expect(invitationsFreeAt(a, TUESDAY_10)).toBe(Date.parse('2026-11-04T00:00:00Z'));
    expect(invitationsFreeAt({ ...a, weekFullUntil: Date.parse('2026-11-07T00:00:00Z') }, TUESDAY_10)).toBe(Date.parse('2026-11-07T00:00:00Z'));
  });

  it('spaces sends: from the last recorded call after a restart, then a random draw between the bounds', () => {
    const ctx = ctxAt(TUESDAY_10);
    expect(firstSendAt(ctx, settings, 'acc_a')).toBe(0);
    ctx.db
      .insert(engineIntents)
      .values({ id: 'int_1', leadId: 'l', campaignId: 'cmp', accountId: 'acc_a', kind: 'message', state: 'sent', holder: 'e', createdAt: TUESDAY_10 - 30_000 })
      .run();
    expect(firstSendAt(ctx, settings, 'acc_a')).toBe(TUESDAY_10 - 30_000 + MINUTE);
    expect(nextSendAt(settings, 1000, () => 0)).toBe(1000 + MINUTE);
    expect(nextSendAt(settings, 1000, () => 0.5)).toBe(1000 + 2 * MINUTE);
    expect(nextSendAt(settings, 1000, () => 0.9999)).toBeLessThan(1000 + 3 * MINUTE);
    expect(averageSpacing(settings)).toBe(2 * MINUTE);
    expect(averageSpacing(resolveEngineSettings({ spacingSeconds: { min: 0, max: 0 } }))).toBe(1);
  });

  it('reads the counters of the accounts that may send, in one go', () => {
    const ctx = testCtx({ workspace: engineWorkspace([], { extraAccounts: ['acc_b', 'acc_c'] }) });
    ctx.db.update(accounts).set({ active: false }).where(eq(accounts.id, 'acc_c')).run();
    expect([...sendingCounters(ctx, safety, ['acc_a', 'acc_b', 'acc_c', 'acc_none'], TUESDAY_10).keys()].sort()).toEqual(['acc_a', 'acc_b']);
  });

  it("takes the tick's counters read before only while nothing they were read from moved, on the same day", () => {
    const ctx = testCtx({ workspace: engineWorkspace([], { extraAccounts: ['acc_b'] }), clock: new FakeClock(TUESDAY_10) });
    const fresh = (known?: TickCounters) => sendingCounters(ctx, safety, ['acc_a', 'acc_b'], TUESDAY_10, known);
    const stored = fresh();
    // A marker no read can give: an allowance of acc_a's taken from the tick, acc_b's read.
    const marked = { ...(stored.get('acc_a') as Allowance), connectionRequestsSentToday: 99 };
    const tick = (at = TUESDAY_10): TickCounters => ({ at, stamp: countersStamp(ctx), byAccount: new Map([['acc_a', marked]]) });
    let known = tick();
    expect(fresh(known).get('acc_a')).toBe(marked);
    expect(fresh(known).get('acc_b')).toEqual(stored.get('acc_b'));

    // A send counted by any writer (an operator's message) moves the stamp: acc_a is read again.
    countAccountDaily(ctx, 'acc_b', 'messagesSent');
    expect(fresh(known).get('acc_a')).toEqual(stored.get('acc_a'));
    expect(fresh(known).get('acc_b')?.messagesSentToday).toBe(1);

    // So does a change to an account (its limits), and the tick's counters of another day are never taken.
    known = tick();
    ctx.db.update(accounts).set({ connectionRequestLimit: 7 }).where(eq(accounts.id, 'acc_b')).run();
    expect(fresh(known).get('acc_a')).toEqual(stored.get('acc_a'));
    expect(fresh(tick(TUESDAY_10 - DAY)).get('acc_a')).toEqual(stored.get('acc_a'));
    expect(fresh(tick()).get('acc_a')).toBe(marked);
  });

  it("paces touches on the tick's week of invitations while it is current, and reads the week again once it moved", () => {
    const ctx = testCtx({ workspace: engineWorkspace([], { extraAccounts: ['acc_b'] }), clock: new FakeClock(TUESDAY_10) });
    const stored = sendingCounters(ctx, safety, ['acc_a'], TUESDAY_10).get('acc_a') as Allowance;
    // The stored week leaves invitations to send, so a touch may go; a marked week that has none
    // holds it until the next day's working time. Which one touchWait answers on shows what it read.
    expect(stored.week.connectionRequestLimit - stored.week.connectionRequestsSent).toBeGreaterThan(0);
    const full = { ...stored, week: { ...stored.week, connectionRequestsSent: stored.week.connectionRequestLimit } };
    const tick = (at = TUESDAY_10): TickCounters => ({ at, stamp: countersStamp(ctx), byAccount: new Map([['acc_a', full]]) });
    const wait = (known?: TickCounters) => touchWait(ctx, safety, 'acc_a', 'lead_x', TUESDAY_10, undefined, known);
    const tomorrow = Date.parse('2026-11-04T09:00:00Z');

    expect(wait()).toBeNull();
    expect(wait(tick())).toBe(tomorrow);
    // Another day's counters are never taken; a counted send (any writer's) or an account's change moves the stamp.
    expect(wait(tick(TUESDAY_10 - DAY))).toBeNull();
    let known = tick();
    countAccountDaily(ctx, 'acc_b', 'messagesSent');
    expect(wait(known)).toBeNull();
    known = tick();
    ctx.db.update(accounts).set({ connectionRequestLimit: 7 }).where(eq(accounts.id, 'acc_b')).run();
    expect(wait(known)).toBeNull();
    // An account the tick did not read is read.
    expect(touchWait(ctx, safety, 'acc_b', 'lead_x', TUESDAY_10, undefined, tick())).toBeNull();
  });
});
