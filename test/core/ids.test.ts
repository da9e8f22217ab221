import { describe, expect, it } from 'vitest';
import { newId, newSortableId, randomBase62, randomHex } from '../../src/core/ids.js';

describe('random ids', () => {
  it('draws fresh base62 text across many refills of the byte pool', () => {
    // 2,000 × 43 characters take well over 20 pools of 4 KiB.
    const tokens = Array.from({ length: 2000 }, () => randomBase62(43));
    expect(tokens.every((t) => /^[0-9A-Za-z]{43}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
    // Every character of the alphabet turns up: no byte range is lost to the rejection step.
    expect(new Set(tokens.join('')).size).toBe(62);
  });

  it('draws random hex, two lower-case digits a byte, every digit in every place', () => {
    // 2,000 × 6 bytes cross the pool's refills (4 KiB each).
    const tokens = Array.from({ length: 2000 }, () => randomHex(6));
    expect(tokens.every((t) => /^[0-9a-f]{12}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const place of [0, 1, 11]) expect(new Set(tokens.map((t) => t[place])).size).toBe(16);
  });

  it('makes public ids of the prefix and 16 characters', () => {
    expect(newId('lead')).toMatch(/^lead_[0-9A-Za-z]{16}$/);
    expect(newId('lead')).not.toBe(newId('lead'));
  });

  it('makes time-ordered ids of the same shape: text order is creation order, ids in one millisecond stay distinct', () => {
    const at = Date.parse('2026-11-23T12:00:00Z');
    expect(newSortableId('act', at)).toMatch(/^act_[0-9A-Za-z]{16}$/);
    const times = [0, 1, 61, 62, 3843, at - 1, at, at + 1, Date.parse('2081-01-01T00:00:00Z')];
    const ids = times.map((t) => newSortableId('act', t));
    expect([...ids].sort()).toEqual(ids);
    const same = Array.from({ length: 1000 }, () => newSortableId('act', at));
    expect(new Set(same).size).toBe(1000);
    expect(new Set(same.map((id) => id.slice(0, 11))).size).toBe(1);
  });
});
