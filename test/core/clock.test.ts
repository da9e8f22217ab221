import { describe, expect, it } from 'vitest';
import { utcDay } from '../../src/core/clock.js';

describe('utcDay', () => {
  it('names the UTC day of any instant, whatever day was asked for before', () => {
    const cases: [string, string][] = [
      ['2026-11-23T00:00:00.000Z', '2026-11-23'],
      ['2026-11-23T23:59:59.999Z', '2026-11-23'],
      ['2026-11-24T00:00:00.000Z', '2026-11-24'],
      ['2026-11-23T12:00:00.000Z', '2026-11-23'],
      ['1969-12-31T23:59:59.999Z', '1969-12-31'],
      ['1970-01-01T00:00:00.000Z', '1970-01-01'],
      ['2028-02-29T08:00:00.000Z', '2028-02-29'],
    ];
    for (const [at, day] of [...cases, ...cases.reverse()]) expect(utcDay(Date.parse(at))).toBe(day);
  });

  it('rejects an instant that is not a time, as Date does', () => {
    expect(() => utcDay(Number.NaN)).toThrow(RangeError);
  });
});
