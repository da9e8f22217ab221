import { and, asc, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { countRows } from '../../db/tx.js';
import type { Ctx } from '../context.js';

/** The most values one completion answers with (the MCP limit); `total` and `hasMore` tell of the rest. */
export const MAX_COMPLETIONS = 100;

/** What a completion answers: ids, best match first, and how many matched in all. */
export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

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
 * Ids whose id starts with what was typed, or whose name contains it, both without regard to
 * case (SQLite folds ASCII letters): first the id matches, then the names that start with it,
 * then the other names, each by name. Nothing typed offers every row, by name.
 */
export function completeByIdOrName(ctx: Ctx, from: Completable, typed: string): Completion {
  const text = typed.trim();
  const pattern = literal(text);
  const idMatch = sql`${from.id} like ${`${pattern}%`} escape '\\'`;
  const namePrefix = sql`${from.name} like ${`${pattern}%`} escape '\\'`;
  const nameMatch = sql`${from.name} like ${`%${pattern}%`} escape '\\'`;
  const where = text === '' ? from.where : and(from.where, or(idMatch, nameMatch));
  const total = countRows(ctx.db, from.table, where);
  const rank = sql`case when ${idMatch} then 0 when ${namePrefix} then 1 else 2 end`;
  const rows = ctx.db
    .select({ id: sql<string>`${from.id}` })
    .from(from.table)
    .where(where)
    .orderBy(rank, sql`${from.name} collate nocase`, asc(from.id))
    .limit(MAX_COMPLETIONS)
    .all();
  return { values: rows.map((r) => r.id), total, hasMore: total > rows.length };
}
