import type Database from 'better-sqlite3';

/** How many times a connection has written `change_counters` since it was watched (see `watchCounterWrites`). */
export interface CounterWrites {
  n: number;
}

const watched = new WeakMap<Database.Database, CounterWrites>();

/**
 * Makes a connection count its own writes of `change_counters`, so the cache (./cache.ts) learns
 * of them without asking SQLite on every lookup. TEMP triggers live only in this connection (no
 * migration, nothing in the file, no other process or tool needs the function) and fire for
 * every row change of the table, also when a trigger of migrations 0009, 0016 or 0019 makes it,
 * and also for writes that are later rolled back (the cache then reads the counters once more).
 * Run before any iterator is open on the connection: `openDatabase` calls it, after migrating.
 */
export function watchCounterWrites(sqlite: Database.Database): CounterWrites {
  const known = watched.get(sqlite);
  if (known) return known;
  const writes: CounterWrites = { n: 0 };
  sqlite.function('cache_counters_written', { deterministic: false }, () => {
    writes.n++;
    return null;
  });
  for (const op of ['insert', 'update', 'delete']) {
    sqlite.exec(
      `CREATE TEMP TRIGGER IF NOT EXISTS cache_counters_${op} AFTER ${op.toUpperCase()} ON main.change_counters BEGIN SELECT cache_counters_written(); END`,
    );
  }
  watched.set(sqlite, writes);
  return writes;
}
