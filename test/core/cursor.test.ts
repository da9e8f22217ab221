import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, pageOf } from '../../src/core/cursor.js';
import { ApiError } from '../../src/core/errors.js';

const fails = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError && err.code === 'validation_error' && err.details.fields?.[0] === 'cursor';
  }
  return false;
};

describe('cursors', () => {
  const secret = 's3cret';
  it('round-trips a key within its scope', () => {
    const c = encodeCursor(secret, 'leads|cmp_1|tag=x|createdAt', [123, 'abc', null]);
    expect(decodeCursor(secret, 'leads|cmp_1|tag=x|createdAt', c)).toEqual([123, 'abc', null]);
  });

  it('refuses other scopes, other secrets, tampering and garbage', () => {
    const c = encodeCursor(secret, 'a', [1]);
    expect(fails(() => decodeCursor(secret, 'b', c))).toBe(true);
    expect(fails(() => decodeCursor('other', 'a', c))).toBe(true);
    const [body, sig] = c.split('.');
    const forged = `${Buffer.from(JSON.stringify([2])).toString('base64url')}.${sig}`;
    expect(fails(() => decodeCursor(secret, 'a', forged))).toBe(true);
    expect(fails(() => decodeCursor(secret, 'a', `${body}.${sig}x`))).toBe(true);
    for (const junk of ['', 'x', '.', 'abc.def', '%%%', 'a'.repeat(600)]) expect(fails(() => decodeCursor(secret, 'a', junk))).toBe(true);
  });

  it('pages honestly: nextCursor only when more rows follow', () => {
    expect(pageOf([1, 2], 2, String)).toEqual({ items: [1, 2], nextCursor: null });
    expect(pageOf([1, 2, 3], 2, String)).toEqual({ items: [1, 2], nextCursor: '2' });
    expect(pageOf([], 2, String)).toEqual({ items: [], nextCursor: null });
  });
});
