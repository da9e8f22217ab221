import { describe, expect, it } from 'vitest';
import {
  JITTER,
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_SECONDS,
  nextAttemptDelay,
  parseRetryAfter,
  RETRY_DELAYS_MS,
  seededRng,
} from '../../src/core/webhooks/schedule.js';

const HOUR = 3_600_000;
const mid = () => 0.5; // jitter factor exactly 1

describe('retry schedule', () => {
  it('spans about three days over 12 attempts', () => {
    expect(MAX_ATTEMPTS).toBe(12);
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total).toBe(67 * HOUR + 35 * 60_000 + 5_000);
    expect(total * (1 - JITTER)).toBeGreaterThan(2.5 * 24 * HOUR);
    expect(total * (1 + JITTER)).toBeLessThan(3.2 * 24 * HOUR);
  });

  it('starts like Standard Webhooks and never shrinks', () => {
    expect(RETRY_DELAYS_MS.slice(0, 5)).toEqual([5_000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR]);
    for (let i = 1; i < RETRY_DELAYS_MS.length; i++) {
      expect(RETRY_DELAYS_MS[i]).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i - 1] ?? 0);
    }
  });

  it('returns the nominal delay at mid jitter and null once attempts are exhausted', () => {
    expect(nextAttemptDelay(1, mid)).toBe(5_000);
    expect(nextAttemptDelay(11, mid)).toBe(10 * HOUR);
    expect(nextAttemptDelay(MAX_ATTEMPTS, mid)).toBeNull();
    expect(() => nextAttemptDelay(0, mid)).toThrow(RangeError);
  });

  it('keeps jitter within ±10% and is deterministic for a seed', () => {
    const rng = seededRng(7);
    for (let n = 1; n < MAX_ATTEMPTS; n++) {
      const base = RETRY_DELAYS_MS[n - 1] ?? 0;
      for (let i = 0; i < 200; i++) {
        const d = nextAttemptDelay(n, rng) ?? -1;
        expect(d).toBeGreaterThanOrEqual(Math.round(base * (1 - JITTER)));
        expect(d).toBeLessThanOrEqual(Math.round(base * (1 + JITTER)));
      }
    }
    expect(nextAttemptDelay(1, () => 0)).toBe(4_500);
    const a = seededRng(42);
    const b = seededRng(42);
    const seq = (r: () => number) => Array.from({ length: 11 }, (_, i) => nextAttemptDelay(i + 1, r));
    expect(seq(a)).toEqual(seq(b));
  });

  it('honours a longer Retry-After, ignores a shorter one, clamps a huge one', () => {
    expect(nextAttemptDelay(1, mid, 120)).toBe(120_000);
    expect(nextAttemptDelay(4, mid, 120)).toBe(2 * HOUR);
    expect(nextAttemptDelay(1, mid, 30 * 24 * 3600)).toBe(MAX_RETRY_AFTER_SECONDS * 1000);
    expect(nextAttemptDelay(1, mid, 0)).toBe(5_000);
    expect(nextAttemptDelay(MAX_ATTEMPTS, mid, 60)).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it.each([
    ['120', 120],
    [' 0 ', 0],
    ['Sat, 21 Nov 2026 12:01:30 GMT', 90],
    ['Sat, 21 Nov 2026 11:00:00 GMT', 0],
    ['soon', null],
    ['-5', null],
    ['', null],
    [undefined, null],
  ])('%j -> %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
