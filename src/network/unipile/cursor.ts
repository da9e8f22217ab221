import { createHash } from 'node:crypto';
import { z } from 'zod';
import { networkError } from '../../core/network/provider.js';

/** A short digest naming what a cursor belongs to (a search, a lookalike pool). */
export const fingerprint = (...parts: unknown[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);

/**
 * Our cursors wrap Unipile's with the fingerprint of the query that produced them, so a cursor
 * replayed against another query is refused instead of silently paging a different list.
 */
export function wrapCursor(scope: string, payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ ...payload, s: scope })).toString('base64url');
}

export function unwrapCursor<T extends z.ZodType>(scope: string, cursor: string, schema: T): z.infer<T> {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    json = null;
  }
  const parsed = z
    .looseObject({ s: z.literal(scope) })
    .and(schema)
    .safeParse(json);
  if (!parsed.success) {
    throw networkError('validation_error', 'This cursor does not belong to this query. Start again without a cursor, or pass the cursor this query returned.', {
      fields: ['cursor'],
    });
  }
  return parsed.data as z.infer<T>;
}
