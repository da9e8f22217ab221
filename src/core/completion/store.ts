import { and, asc, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../db/connection.js';
import { countRows } from '../../db/tx.js';

/**
 * The one query behind every completion: any table with an id and a name. The entity's store
 * hands the table and its columns (`Completable`); the ranking is written here once.
 */

/** What a completion's rows are read from: a table with an id and a name, and any narrower condition. */
export interface Completable {
  table: SQLiteTable;
  id: SQLiteColumn;
  name: SQLiteColumn;
  /** Rows outside it are never offered (e.g. campaigns without pending drafts). */
  where?: SQL | undefined;
}

/** `typed` as a LIKE pattern matched literally (its %, _ and \ escaped). */
const literal = (typed: string): string => typed.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Up to `max` ids whose id starts with `text`, or whose name contains it, both without regard to
 * case (SQLite folds ASCII letters): first the id matches, then the names that start with it,
 * then the other names, each by name; and how many matched in all. An empty `text` matches
 * every row.
 */
export function matchingIds(db: Db, from: Completable, text: string, max: number): { ids: string[]; total: number } {
  const pattern = literal(text);
  const idMatch = sql`${from.id} like ${`${pattern}%`} escape '\\'`;
  const namePrefix = sql`${from.name} like ${`${pattern}%`} escape '\\'`;
  const nameMatch = sql`${from.name} like ${`%${pattern}%`} escape '\\'`;
  const where = text === '' ? from.where : and(from.where, or(idMatch, nameMatch));
  const total = countRows(db, from.table, where);
  const rank = sql`case when ${idMatch} then 0 when ${namePrefix} then 1 else 2 end`;
  const rows = db
    .select({ id: sql<string>`${from.id}` })
    .from(from.table)
    .where(where)
    .orderBy(rank, sql`${from.name} collate nocase`, asc(from.id))
    .limit(max)
    .all();
  return { ids: rows.map((r) => r.id), total };
}
