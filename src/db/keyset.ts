import { and, eq, isNotNull, lt, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './connection.js';
import { countRows } from './tx.js';

/*
 * The statements of a keyset walk, shared by the stores whose lists page newest first; the walk
 * itself (the signed cursor, the two seeks after a position) is core/keyset.ts's keysetPage.
 */

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
