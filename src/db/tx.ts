import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './connection.js';

/**
 * Runs `fn` in one synchronous write transaction (BEGIN IMMEDIATE), or inside the one
 * already open, so verbs compose. better-sqlite3 refuses a callback that returns a promise,
 * which keeps network I/O out of transactions by construction.
 */
export function transaction<T>(db: Db, fn: () => T): T {
  if (db.$client.inTransaction) return fn();
  return db.$client.transaction(fn).immediate();
}

export function countRows(db: Db, table: SQLiteTable, where?: SQL): number {
  const row = db.select({ n: sql<number>`count(*)` }).from(table).where(where).get();
  return row?.n ?? 0;
}
