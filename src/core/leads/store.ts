import type Database from 'better-sqlite3';
import type { Db } from '../../db/connection.js';

/**
 * SQL of the leads table that the shared statements (src/db/sql/leads.ts) do not hold: the bulk
 * writes of generated leads (the fixture's millions), which go straight through one prepared
 * INSERT for speed.
 */

/** One prepared INSERT of `columns` (SQL names, the schema's), bound by position in that order. */
export function leadInserter(db: Db, columns: readonly string[]): (values: readonly unknown[]) => void {
  const insert = db.$client.prepare(`INSERT INTO leads (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  return (values) => {
    insert.run(values);
  };
}

/** The highest lead id strictly between `above` and `below`, or null when there is none. */
export const highestLeadIdBetween = (db: Db, above: string, below: string): string | null =>
  (db.$client.prepare<[string, string], string | null>('SELECT max(id) FROM leads WHERE id > ? AND id < ?').pluck().get(above, below) ?? null) as string | null;

/**
 * Runs `write` with a large page cache (1 GiB), so the hot index pages stay in memory for the
 * length of a bulk insert; the connection's own size comes back afterwards.
 */
export function withLargePageCache<T>(db: Db, write: () => T): T {
  const client: Database.Database = db.$client;
  const previous = client.pragma('cache_size', { simple: true }) as number;
  client.pragma('cache_size = -262144');
  try {
    return write();
  } finally {
    client.pragma(`cache_size = ${previous}`);
  }
}
