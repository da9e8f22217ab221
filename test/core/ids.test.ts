import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from '../../src/core/ids.js';

describe('random ids', () => {
  it('draws fresh base62 text across many refills of the byte pool', () => {
    // 2,000 × 43 characters take well over 20 pools of 4 KiB.
    const tokens = Array.from({ length: 2000 }, () => randomBase62(43));
    expect(tokens.every((t) => /^[0-9A-Za-z]{43}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
    // Every character of the alphabet turns up: no byte range is lost to the rejection step.
    expect(new Set(tokens.join('')).size).toBe(62);
  });

  it('makes public ids of the prefix and 16 characters', () => {
    expect(newId('lead')).toMatch(/^lead_[0-9A-Za-z]{16}$/);
    expect(newId('lead')).not.toBe(newId('lead'));
  });
});
