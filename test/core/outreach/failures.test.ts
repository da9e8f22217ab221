import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/core/clock.js';
import { ApiError } from '../../../src/core/errors.js';
import { ACCOUNT_RETRY_MS, classify, planAfterFailure, RETRY_BASE_MS, retryAfterError, sendFailure } from '../../../src/core/outreach/failures.js';
import { resolveEngineSettings } from '../../../src/core/outreach/settings.js';
import { testCtx } from '../../helpers.js';
import { account, MINUTE } from './helpers.js';

const safety = resolveEngineSettings({
  workingHours: { start: '09:00', end: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
  rhythmJitterMinutes: 0,
}).safety;
// A Tuesday, 10:00 UTC.
const TUESDAY_10 = Date.parse('2026-11-03T10:00:00Z');

describe('failure classification and the next try', () => {
  it('classifies provider codes', () => {
    expect(classify('upstream_unavailable')).toBe('retry');
    expect(classify('account_disconnected')).toBe('account');
    expect(classify('network_daily_quota')).toBe('quota');
    expect(classify('validation_error')).toBe('permanent');
  });

  it('backs a transient failure off exponentially, per failure of the lead so far', () => {
    const plan = (attempts: number) => planAfterFailure('upstream_unavailable', attempts, account(), TUESDAY_10, safety);
    expect(plan(0)).toEqual({ cls: 'retry', retryAt: TUESDAY_10 + RETRY_BASE_MS, accountBlockedUntil: null });
    expect(plan(1).retryAt).toBe(TUESDAY_10 + 30 * MINUTE);
    expect(plan(3).retryAt).toBe(TUESDAY_10 + 120 * MINUTE);
  });

  it("holds the account for the provider's quota until its next working morning, and an hour for a disconnection", () => {
    const quota = planAfterFailure('network_daily_quota', 0, account(), TUESDAY_10, safety);
    expect(quota).toEqual({ cls: 'quota', retryAt: Date.parse('2026-11-04T09:00:00Z'), accountBlockedUntil: Date.parse('2026-11-04T09:00:00Z') });
    // The account's own zone: 09:00 in New York is 14:00 UTC.
    expect(planAfterFailure('network_daily_quota', 0, account({ timeZone: 'America/New_York' }), TUESDAY_10, safety).retryAt).toBe(
      Date.parse('2026-11-04T14:00:00Z'),
    );
    // On a Friday the next working morning is Monday's.
    expect(planAfterFailure('network_daily_quota', 0, account(), Date.parse('2026-11-06T10:00:00Z'), safety).retryAt).toBe(Date.parse('2026-11-09T09:00:00Z'));
    const gone = planAfterFailure('account_disconnected', 2, account(), TUESDAY_10, safety);
    expect(gone).toEqual({ cls: 'account', retryAt: TUESDAY_10 + ACCOUNT_RETRY_MS, accountBlockedUntil: TUESDAY_10 + ACCOUNT_RETRY_MS });
  });

  it('retries a lead the engine could not process after the base backoff', () => {
    expect(retryAfterError(1000)).toBe(1000 + RETRY_BASE_MS);
  });

  it("reads a failure's code, taking anything but an ApiError for a temporary failure", () => {
    const ctx = testCtx({ clock: new FakeClock(TUESDAY_10) });
    const send = { intentId: 'int_1', leadId: 'lead_1', kind: 'connection_request', attempts: 1 };
    expect(sendFailure(ctx, safety, send, account(), new ApiError('network_daily_quota', 'quota')).code).toBe('network_daily_quota');
    const odd = sendFailure(ctx, safety, send, account(), new TypeError('socket hang up'));
    expect(odd).toEqual({ code: 'upstream_unavailable', plan: { cls: 'retry', retryAt: TUESDAY_10 + 30 * MINUTE, accountBlockedUntil: null }, closeAt: null });
    // A polite close is tried again at the same time, found by its pending close.
    expect(sendFailure(ctx, safety, { ...send, kind: 'polite_close' }, account(), new TypeError('x')).closeAt).toBe(TUESDAY_10 + 30 * MINUTE);
  });
});
