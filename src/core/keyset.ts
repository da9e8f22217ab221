import { and, eq, isNotNull, lt, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { countRows } from '../db/tx.js';
import type { Ctx } from './context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from './cursor.js';

/** Where a keyset walk ordered by (sort DESC, seq DESC) stopped: the last row served. */
export interface KeysetPosition {
  value: number;
  seq: number;
}

export interface KeysetQuery<T> {
  /** Resource, parent and filter the cursor is bound to (e.g. `leads|cmp_1|tag=Interested|taggedAt`). */
  scope: string;
  cursor: string | undefined;
  limit: number;
  table: SQLiteTable;
  /** The list's filter (campaign, tag, type, …); cursor rows must still satisfy it. */
  where: SQL | undefined;
  /** Integer (epoch ms) sort column; rows where it is null are left out of the list. */
  sort: SQLiteColumn;
  seq: SQLiteColumn;
  /** Runs the list query with an extra condition, ordered by (sort DESC, seq DESC), at most `limit` rows. */
  fetch(extra: SQL, limit: number): T[];
  position(row: T): KeysetPosition;
}

/**
 * One page of a newest-first list, and the signed cursor of the next one. The position comes
 * from the cursor itself, not from the row's current values, so a row whose sort value moves
 * after it was served cannot make a page repeat or skip rows. The row must still exist, still
 * match the filter and still have a sort value (spec, leads rule 4); otherwise the cursor is
 * refused rather than silently restarting at page one.
 */
export function keysetPage<T>(ctx: Ctx, secret: string, q: KeysetQuery<T>): { items: T[]; nextCursor: string | null } {
  let after: KeysetPosition | undefined;
  if (q.cursor !== undefined) {
    const [value, seq, ...rest] = decodeCursor(secret, q.scope, q.cursor);
    if (rest.length || !Number.isSafeInteger(value) || !Number.isSafeInteger(seq)) throw invalidCursor();
    after = { value: value as number, seq: seq as number };
    if (!countRows(ctx.db, q.table, and(eq(q.seq, after.seq), q.where, isNotNull(q.sort)))) throw invalidCursor();
  }
  const want = q.limit + 1;
  let rows: T[];
  if (!after) {
    rows = q.fetch(isNotNull(q.sort), want);
  } else {
    // Two index seeks instead of one `(sort, seq) < (?, ?)`: SQLite does not seek on a row
    // value whose last term is the rowid, so that form walks every earlier tie of the
    // cursor's sort value and a deep page in a batch-inserted campaign costs O(offset).
    rows = q.fetch(and(eq(q.sort, after.value), lt(q.seq, after.seq)) as SQL, want);
    if (rows.length < want) rows = rows.concat(q.fetch(lt(q.sort, after.value), want - rows.length));
  }
  return pageOf(rows, q.limit, (last) => {
    const p = q.position(last);
    return encodeCursor(secret, q.scope, [p.value, p.seq]);
  });
}
