import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BucketStore, type Rate } from '../../src/core/ratelimit/buckets.js';

const T0 = Date.parse('2026-11-21T12:00:00Z');

/** Takes a token when one is there, as the limiter does. */
const tryTake = (store: BucketStore, key: string, rate: Rate, now: number): boolean => {
  if (store.peek(key, rate, now).retryAfterMs > 0) return false;
  store.take(key, rate, now);
  return true;
};

describe('token buckets (GCRA)', () => {
  it.each([1, 5, 6, 7, 10, 30, 60, 120])('a full bucket of %i admits exactly that many at once', (limit) => {
    const store = new BucketStore();
    const rate = { limit, windowMs: 60_000 };
    for (let i = 0; i < limit; i++) expect(tryTake(store, 'k', rate, T0)).toBe(true);
    const refused = store.peek('k', rate, T0);
    expect(refused.remaining).toBe(0);
    expect(refused.retryAfterMs).toBeCloseTo(60_000 / limit, 6);
    expect(tryTake(store, 'k', rate, T0)).toBe(false);
  });

  it('refills continuously: one token per window/limit, never above capacity', () => {
    const store = new BucketStore();
    const rate = { limit: 6, windowMs: 60_000 };
    for (let i = 0; i < 6; i++) store.take('k', rate, T0);
    expect(store.peek('k', rate, T0 + 9_999).remaining).toBe(0);
    expect(store.peek('k', rate, T0 + 10_000).remaining).toBe(1);
    expect(store.peek('k', rate, T0 + 35_000).remaining).toBe(3);
    expect(store.peek('k', rate, T0 + 60_000).remaining).toBe(6);
    expect(store.peek('k', rate, T0 + 600_000).remaining).toBe(6);
    expect(store.peek('k', rate, T0 + 600_000).nextTokenMs).toBeNull();
  });

  it('reports the time to the next whole token', () => {
    const store = new BucketStore();
    const rate = { limit: 120, windowMs: 60_000 };
    const s = store.take('k', rate, T0);
    expect(s.remaining).toBe(119);
    expect(s.nextTokenMs).toBeCloseTo(500, 6);
    store.take('k', rate, T0);
    expect(store.peek('k', rate, T0 + 200).nextTokenMs).toBeCloseTo(300, 6);
  });

  it('keys are independent', () => {
    const store = new BucketStore();
    const rate = { limit: 1, windowMs: 20_000 };
    expect(tryTake(store, 'a', rate, T0)).toBe(true);
    expect(tryTake(store, 'a', rate, T0)).toBe(false);
    expect(tryTake(store, 'b', rate, T0)).toBe(true);
  });

  it('evicts idle (full) buckets, so memory follows recent keys only', () => {
    const store = new BucketStore({ sweepEveryMs: 60_000 });
    const rate = { limit: 10, windowMs: 60_000 };
    for (let i = 0; i < 5_000; i++) store.take(`key${i}`, rate, T0);
    expect(store.size).toBe(5_000);
    // A minute later every one of them is full again; the next take sweeps them out.
    store.take('fresh', rate, T0 + 60_000);
    expect(store.size).toBe(1);
  });

  it('never holds more than maxKeys, even under a flood of distinct keys', () => {
    const store = new BucketStore({ maxKeys: 100 });
    const rate = { limit: 10, windowMs: 60_000 };
    for (let i = 0; i < 1_000; i++) {
      store.take(`key${i}`, rate, T0);
      expect(store.size).toBeLessThanOrEqual(100);
    }
    // The most recent keys are the ones kept.
    expect(store.peek('key999', rate, T0).remaining).toBe(9);
    expect(store.peek('key0', rate, T0).remaining).toBe(10);
  });

  it('property: accepted requests in [0, t] never exceed limit + refill(t)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1_000, max: 120_000 }),
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 300 }),
        (limit, windowMs, gaps) => {
          const store = new BucketStore();
          const rate = { limit, windowMs };
          let now = T0;
          let accepted = 0;
          for (const gap of gaps) {
            now += gap;
            if (tryTake(store, 'k', rate, now)) accepted++;
            const bound = limit + Math.floor(((now - T0) * limit) / windowMs + 1e-9);
            if (accepted > bound) return false;
          }
          return true;
        },
      ),
    );
  });

  it('property: a refused request passes once its retryAfterMs has elapsed (clocks tick in whole ms)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1_000, max: 120_000 }), fc.integer({ min: 0, max: 400 }), (limit, windowMs, extra) => {
        const store = new BucketStore();
        const rate = { limit, windowMs };
        for (let i = 0; i < limit + extra; i++) tryTake(store, 'k', rate, T0);
        const wait = Math.ceil(store.peek('k', rate, T0).retryAfterMs);
        if (wait <= 0) return false;
        return tryTake(store, 'k', rate, T0 + wait) && !tryTake(store, 'k', rate, T0 + wait);
      }),
    );
  });
});
