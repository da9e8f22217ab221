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

describe('the all-clear and the peek the edge relies on', () => {
  it('mayRefuse is false exactly while every bucket holds a whole token', () => {
    const clock = new FakeClock();
    const limits = createLimiter(clock, resolveLimits({ globalPerMinute: 2 }));
    expect(limits.mayRefuse()).toBe(false);
    expect(limits.admitCall('key_a', undefined).ok).toBe(true);
    expect(limits.mayRefuse()).toBe(false);
    expect(limits.admitCall('key_a', undefined).ok).toBe(true);
    expect(limits.mayRefuse()).toBe(true);
    expect(limits.admitCall('key_a', undefined).ok).toBe(false);
    // One token comes back after 30 s (2 a minute).
    clock.advance(29_999);
    expect(limits.mayRefuse()).toBe(true);
    expect(limits.admitCall('key_a', undefined).ok).toBe(false);
    clock.advance(1);
    expect(limits.mayRefuse()).toBe(false);
    expect(limits.admitCall('key_a', undefined).ok).toBe(true);
    expect(limits.mayRefuse()).toBe(true);
    limits.reset();
    expect(limits.mayRefuse()).toBe(false);
  });

  it('peekCall refuses as admitCall would, and charges nothing', () => {
    const clock = new FakeClock();
    const limits = createLimiter(clock, resolveLimits({ globalPerMinute: 3, perMinute: { leads_add: 1 } }));
    for (let i = 0; i < 5; i++) expect(limits.peekCall('key_a', 'leads_add').ok).toBe(true);
    expect(limits.admitCall('key_a', 'leads_add').ok).toBe(true);
    const peeked = limits.peekCall('key_a', 'leads_add');
    const admitted = limits.admitCall('key_a', 'leads_add');
    expect(peeked).toEqual(admitted);
    expect(peeked.ok).toBe(false);
    // The global bucket lost one token only (the admitted call), not one per peek.
    expect(limits.peekGlobal('key_a').remaining).toBe(2);
  });
});
