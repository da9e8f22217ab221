import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import type { Exclusion } from './exclusions.js';
import { exclusionPageRows } from './store.js';

/** The exclusion list a page at a time, newest first (the dashboard's table), with a signed cursor. */
export function listExclusionPage(
  ctx: Ctx,
  secret: string,
  input: { limit: number; cursor?: string | undefined },
): { exclusions: Exclusion[]; nextCursor: string | null } {
  const scope = 'exclusions';
  let after: { at: number; url: string } | undefined;
  if (input.cursor !== undefined) {
    const [at, url] = decodeCursor(secret, scope, input.cursor);
    if (typeof at !== 'number' || typeof url !== 'string') throw invalidCursor();
    after = { at, url };
  }
  const rows = exclusionPageRows(ctx, after, input.limit + 1);
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, scope, [last.createdAt, last.networkUrl]));
  return { exclusions: page.items.map((r) => ({ networkUrl: r.networkUrl, createdAt: iso(r.createdAt) })), nextCursor: page.nextCursor };
}
