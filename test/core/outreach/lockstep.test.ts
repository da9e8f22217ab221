import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/core/clock.js';
import { lockStepTwin, recordCallMinute } from '../../../src/core/outreach/lockstep.js';
import { auditSafety } from '../../../src/core/safety/audit.js';
import { resolveEngineSettings } from '../../../src/core/outreach/settings.js';
import { engineIntents } from '../../../src/db/schema.js';
import { engineWorkspace } from '../../engine/helpers.js';
import { testCtx } from '../../helpers.js';
import { HOUR, MINUTE } from './helpers.js';

// A Tuesday, 10:00 UTC.
const TUESDAY_10 = Date.parse('2026-11-03T10:00:00Z');
const ACCOUNTS = Array.from({ length: 20 }, (_, i) => `acc_${String(i).padStart(2, '0')}`);

function ctxWith(accountIds: string[]) {
  return testCtx({ workspace: engineWorkspace([], { extraAccounts: accountIds.filter((id) => id !== 'acc_a') }), clock: new FakeClock(TUESDAY_10) });
}

let n = 0;
function call(ctx: ReturnType<typeof ctxWith>, accountId: string, at: number, kind = 'connection_request'): void {
  ctx.db
    .insert(engineIntents)
    .values({ id: `int_${n++}`, leadId: `l_${n}`, campaignId: 'cmp', accountId, kind, state: 'sent', holder: 'e', createdAt: at })
    .run();
  // As beginSend records a call beside its intent (an operator's manual send is no call of the pattern).
  if (kind !== 'manual_message') recordCallMinute(ctx, accountId, at);
}

/** Park-Miller: a deterministic uniform draw. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return (s - 1) / 2147483646;
  };
}

/**
 * What the engine does on a clock stepped a minute per tick: every account wakes at the same
 * minute (a batch of approved drafts) and makes `calls` calls, each a random 60-180 s after its
 * last, at the first tick past it; with `guard`, a call lockStepTwin refuses waits for the next tick.
 */
function simulate(ctx: ReturnType<typeof ctxWith>, calls: number, guard: boolean, random: () => number): void {
  const state = new Map(ACCOUNTS.map((id) => [id, { notBefore: TUESDAY_10, made: 0 }]));
  for (let at = TUESDAY_10; at < TUESDAY_10 + 4 * HOUR; at += MINUTE) {
    for (const [id, s] of state) {
      if (s.made >= calls || at < s.notBefore) continue;
      if (guard && lockStepTwin(ctx, id, at) !== null) continue;
      call(ctx, id, at);
      s.made++;
      s.notBefore = at + MINUTE + Math.floor(random() * 2 * MINUTE);
    }
  }
}

const lockSteps = (ctx: ReturnType<typeof ctxWith>) =>
  auditSafety(ctx, { safety: resolveEngineSettings({}).safety, spacingMinMs: MINUTE }).violations.filter((v) => v.rule === 'lock_step').length;

describe('lock-step between accounts', () => {
  it("names the account a call would twin: the same minutes today, the call's own included, from three calls on", () => {
    const ctx = ctxWith(['acc_a', 'acc_b', 'acc_c']);
    call(ctx, 'acc_b', TUESDAY_10 + 5_000);
    call(ctx, 'acc_b', TUESDAY_10 + 2 * MINUTE + 40_000);
    call(ctx, 'acc_b', TUESDAY_10 + 5 * MINUTE + 1_000);
    call(ctx, 'acc_a', TUESDAY_10 + 30_000);
    // Two calls in the same minutes are no pattern yet.
    expect(lockStepTwin(ctx, 'acc_a', TUESDAY_10 + 2 * MINUTE + 10_000)).toBeNull();
    call(ctx, 'acc_a', TUESDAY_10 + 2 * MINUTE + 10_000);
    // The third in the same minute as acc_b's would make the pattern; the minute after would not.
    expect(lockStepTwin(ctx, 'acc_a', TUESDAY_10 + 5 * MINUTE + 59_000)).toBe('acc_b');
    expect(lockStepTwin(ctx, 'acc_a', TUESDAY_10 + 6 * MINUTE)).toBeNull();
    // An account with fewer than two calls today makes no pattern with this one.
    expect(lockStepTwin(ctx, 'acc_c', TUESDAY_10 + 5 * MINUTE)).toBeNull();
    // Nor does one whose calls differ once: acc_c's middle call a minute later.
    call(ctx, 'acc_c', TUESDAY_10);
    call(ctx, 'acc_c', TUESDAY_10 + 3 * MINUTE);
    expect(lockStepTwin(ctx, 'acc_c', TUESDAY_10 + 5 * MINUTE)).toBeNull();
  });

  it("leaves out an operator's manual sends and other days, as the audit does", () => {
    const ctx = ctxWith(['acc_a', 'acc_b']);
    for (const m of [0, 2, 4]) call(ctx, 'acc_b', TUESDAY_10 + m * MINUTE);
    call(ctx, 'acc_a', TUESDAY_10 - 24 * HOUR);
    call(ctx, 'acc_a', TUESDAY_10);
    call(ctx, 'acc_a', TUESDAY_10 + MINUTE, 'manual_message');
    call(ctx, 'acc_a', TUESDAY_10 + 2 * MINUTE);
    expect(lockStepTwin(ctx, 'acc_a', TUESDAY_10 + 4 * MINUTE)).toBe('acc_b');
  });

  it('random spacing alone leaves accounts woken together in lock-step; checking each call leaves none', () => {
    for (const seed of [7, 11, 23]) {
      const loose = ctxWith(ACCOUNTS);
      simulate(loose, 3, false, seeded(seed));
      expect(lockSteps(loose)).toBeGreaterThan(0);
      for (const calls of [3, 4, 8]) {
        const guarded = ctxWith(ACCOUNTS);
        simulate(guarded, calls, true, seeded(seed));
        expect(lockSteps(guarded)).toBe(0);
        // Every call was still made.
        expect(guarded.db.select().from(engineIntents).all()).toHaveLength(ACCOUNTS.length * calls);
      }
    }
  });
});
