import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { addressKey, createLimiter, resolveLimits } from '../../src/core/ratelimit/index.js';

describe('client addresses for the failed-authentication guard', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::7', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002:ffff::', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('%s is counted as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('one IPv6 /64 shares a bucket; another /64 and IPv4 do not', () => {
    const limiter = createLimiter(new FakeClock(), resolveLimits({ authFailuresPerMinute: 2 }));
    limiter.recordAuthFailure('2001:db8:1:2::1');
    limiter.recordAuthFailure('2001:db8:1:2::2');
    expect(limiter.authGuard('2001:db8:1:2:aaaa::9').ok).toBe(false);
    expect(limiter.authGuard('2001:db8:1:3::1').ok).toBe(true);
    expect(limiter.authGuard('203.0.113.9').ok).toBe(true);
  });

  it('a refusal names the wait in its message and details', () => {
    const limiter = createLimiter(new FakeClock(), resolveLimits({ authFailuresPerMinute: 1 }));
    limiter.recordAuthFailure('203.0.113.9');
    const guard = limiter.authGuard('203.0.113.9');
    if (guard.ok) throw new Error('expected a refusal');
    const err = limiter.refusal(guard);
    expect(err.code).toBe('rate_limited');
    expect(err.details).toEqual({ retryAfterSeconds: 60 });
    expect(err.message).toBe('Too many failed authentication attempts from this address. Retry after 60 seconds (details.retryAfterSeconds).');
  });
});
