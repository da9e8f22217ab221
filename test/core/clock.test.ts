import { describe, expect, it } from 'vitest';
import { iso, utcDay } from '../../src/core/clock.js';

describe('iso', () => {
  it('writes every instant exactly as toISOString does, and throws its error for an invalid time', () => {
    const base = Date.parse('2026-11-30T00:00:00Z');
    const instants = [
      0,
      -0,
      -1,
      1.9,
      -1.9,
      base,
      base - 1,
      base + 86_399_999,
      Date.parse('2028-02-29T23:59:59.999Z'),
      -86_400_001,
      -62_198_755_200_000,
      253_402_300_799_999,
      253_402_300_800_000,
      8.64e15,
      -8.64e15,
    ];
    // A spread of instants over four centuries, every millisecond digit and hour among them.
    for (let i = 0; i < 5_000; i++) instants.push(base + (i - 2_500) * 2_592_000_017 + i);
    for (const ms of instants) expect(iso(ms)).toBe(new Date(ms).toISOString());
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1, -8.64e15 - 1]) expect(() => iso(bad)).toThrow(RangeError);
  });
});

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
