import { describe, expect, it } from 'vitest';
import { forgetMemos, memo } from '../../src/core/memo.js';
import { parseSequence } from '../../src/core/outreach/state.js';
import { zoneOffset } from '../../src/core/safety/hours.js';

describe('memos of pure functions', () => {
  it('compute a key once, stay within their bound, and are all emptied by forgetMemos', () => {
    let calls = 0;
    const m = memo<number, string>(3);
    const twice = (n: number) => m.get(n, (k) => (calls++, `v${k}`));
    expect([twice(1), twice(1), twice(2)]).toEqual(['v1', 'v1', 'v2']);
    expect(calls).toBe(2);
    twice(3);
    twice(4);
    expect(m.size).toBeLessThanOrEqual(3);
    forgetMemos();
    expect(m.size).toBe(0);
    twice(1);
    expect(calls).toBe(5);
  });

  it('give the same answers from a cold start', () => {
    const json = JSON.stringify([{ text: 'Hi', delayDays: 1 }]);
    const warm = parseSequence(json);
    const offset = zoneOffset(Date.UTC(2026, 2, 29, 12), 'Europe/Paris');
    forgetMemos();
    expect(parseSequence(json)).toStrictEqual(warm);
    expect(zoneOffset(Date.UTC(2026, 2, 29, 12), 'Europe/Paris')).toBe(offset);
    expect(offset).toBe(2 * 3_600_000);
  });
});
