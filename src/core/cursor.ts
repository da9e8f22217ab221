import { createHmac, timingSafeEqual } from 'node:crypto';
import { validationError } from './errors.js';

/**
 * Opaque keyset cursors. A cursor holds the sort key of the last row served, and is signed
 * with the workspace's cursor secret over its scope (resource, parent id, filter, sort). A
 * cursor that was tampered with, made up, or issued for another scope fails the signature
 * and is refused; it never silently restarts at page one.
 */
export type CursorKey = (string | number | null)[];

const sign = (secret: string, scope: string, body: string): string =>
  createHmac('sha256', secret).update(scope).update('\n').update(body).digest('base64url').slice(0, 22);

export function encodeCursor(secret: string, scope: string, key: CursorKey): string {
  const body = Buffer.from(JSON.stringify(key)).toString('base64url');
  return `${body}.${sign(secret, scope, body)}`;
}

export const invalidCursor = (field = 'cursor') =>
  validationError(
    'Invalid cursor: it is malformed, unknown, no longer points at an existing item, or was issued for another filter or sort. Drop the cursor to start from the first page.',
    [field],
  );

/** Returns the key of a valid cursor for this scope; throws validation_error otherwise. */
export function decodeCursor(secret: string, scope: string, cursor: string, field = 'cursor'): CursorKey {
  const dot = cursor.indexOf('.');
  if (dot <= 0 || cursor.length > 512) throw invalidCursor(field);
  const body = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1));
  const expected = Buffer.from(sign(secret, scope, body));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor(field);
  try {
    const key: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.every((v) => v === null || typeof v === 'string' || typeof v === 'number')) {
      return key as CursorKey;
    }
  } catch {
    // fall through: a signed but unparsable body cannot happen unless the secret leaked
  }
  throw invalidCursor(field);
}

/**
 * Pages a keyset query: fetch limit+1 rows, return limit of them, and a cursor made from
 * the last one only when more follow (so an empty or final page has nextCursor null).
 */
export function pageOf<T>(rows: T[], limit: number, makeCursor: (last: T) => string): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: makeCursor(items[items.length - 1] as T) };
}
