import { and, eq, isNotNull, lt, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/connection.js';
import { countRows } from '../db/tx.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from './cursor.js';

/** Where a keyset walk ordered by (sort DESC, seq DESC) stopped: the last row served. */
export interface KeysetPosition {
  value: number;
  seq: number;
}

/** A stretch of a list in (sort DESC, seq DESC) order; rows without a sort value are never in it. */
export type KeysetRange =
  | { kind: 'first' }
  /** The rows tied with the position's sort value that come after it: sort = value AND seq < seq. */
  | { kind: 'ties'; value: number; seq: number }
  /** The rows with an older sort value: sort < value. */
  | { kind: 'older'; value: number };

/** How a list reads its rows: by query built per call, or by statements prepared once. */
export interface KeysetSource<T> {
  /** Whether row `seq` still exists, still matches the filter and still has a sort value. */
  holds(seq: number): boolean;
  /** At most `limit` rows of the range, in (sort DESC, seq DESC) order. */
  fetch(range: KeysetRange, limit: number): T[];
}

export interface KeysetQuery<T> {
  /** Resource, parent and filter the cursor is bound to (e.g. `leads|cmp_1|tag=Interested|taggedAt`). */
  scope: string;
  cursor: string | undefined;
  limit: number;
  source: KeysetSource<T>;
  position(row: T): KeysetPosition;
}

/** The condition of a range on an integer (epoch ms) sort column and the rowid-like seq. */
export function rangeCondition(sort: SQLiteColumn, seq: SQLiteColumn, range: KeysetRange): SQL {
  switch (range.kind) {
    case 'first':
      return isNotNull(sort);
    case 'ties':
      return and(eq(sort, range.value), lt(seq, range.seq)) as SQL;
    case 'older':
      return lt(sort, range.value);
  }
}

export interface BuiltKeyset<T> {
  table: SQLiteTable;
  /** The list's filter (campaign, tag, type, …); cursor rows must still satisfy it. */
  where: SQL | undefined;
  /** Integer (epoch ms) sort column; rows where it is null are left out of the list. */
  sort: SQLiteColumn;
  seq: SQLiteColumn;
  /** Runs the list query with an extra condition, ordered by (sort DESC, seq DESC), at most `limit` rows. */
  select(extra: SQL, limit: number): T[];
}

/** A source whose queries drizzle builds on every call: for lists read too seldom to prepare. */
export function builtKeyset<T>(db: Db, q: BuiltKeyset<T>): KeysetSource<T> {
  return {
    holds: (seq) => countRows(db, q.table, and(eq(q.seq, seq), q.where, isNotNull(q.sort))) > 0,
    fetch: (range, limit) => q.select(rangeCondition(q.sort, q.seq, range), limit),
  };
}

/**
 * One page of a newest-first list, and the signed cursor of the next one. The position comes
 * from the cursor itself, not from the row's current values, so a row whose sort value moves
 * after it was served cannot make a page repeat or skip rows. The row must still exist, still
 * match the filter and still have a sort value (spec, leads rule 4); otherwise the cursor is
 * refused rather than silently restarting at page one.
 */
export function keysetPage<T>(secret: string, q: KeysetQuery<T>): { items: T[]; nextCursor: string | null } {
  let after: KeysetPosition | undefined;
  if (q.cursor !== undefined) {
    const [value, seq, ...rest] = decodeCursor(secret, q.scope, q.cursor);
    if (rest.length || !Number.isSafeInteger(value) || !Number.isSafeInteger(seq)) throw invalidCursor();
    after = { value: value as number, seq: seq as number };
    if (!q.source.holds(after.seq)) throw invalidCursor();
  }
  const want = q.limit + 1;
  let rows: T[];
  if (!after) {
    rows = q.source.fetch({ kind: 'first' }, want);
  } else {
    // Two index seeks instead of one `(sort, seq) < (?, ?)`: SQLite does not seek on a row
    // value whose last term is the rowid, so that form walks every earlier tie of the
    // cursor's sort value and a deep page in a batch-inserted campaign costs O(offset).
    rows = q.source.fetch({ kind: 'ties', value: after.value, seq: after.seq }, want);
    if (rows.length < want) rows = rows.concat(q.source.fetch({ kind: 'older', value: after.value }, want - rows.length));
  }
  return pageOf(rows, q.limit, (last) => {
    const p = q.position(last);
    return encodeCursor(secret, q.scope, [p.value, p.seq]);
  });
}
