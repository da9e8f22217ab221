import type { Statement } from 'better-sqlite3';
import type { Db } from './connection.js';
import { type CounterWrites, watchCounterWrites } from './counter-writes.js';
import { perDb } from './prepared.js';

/**
 * The one cache of values read from the database (docs/architecture.md, "Caching").
 *
 * What it holds: values derived from a few small tables that hot paths read again and again (the
 * running campaigns with their agents, the accounts, the exclusion list, API keys, the workspace's
 * settings, the credit balance).
 *
 * Who invalidates it: SQLite itself. Triggers (migrations 0009, 0016 and 0019) set a counter per group
 * of tables to a fresh random value on every write to them, from any connection or process (the
 * CLI revoking a key while the server runs). A kept value is served while its counter still holds
 * the value read when it was loaded (see `Versions` for how cheaply that is checked: one
 * statement per synchronous stretch of work).
 *
 * Why it is safe inside a transaction: the counter and the value are read in the same snapshot,
 * so a kept pair is always a pair SQLite showed together. A transaction sees its own writes in
 * the counter too. If it rolls back, the counter returns to its value from before, which no value
 * loaded during the transaction was paired with, because a write never sets a counter to a value
 * it had before (53 random bits, not `+ 1`; with `+ 1`, a rolled-back write and a later committed
 * one would share a value). So values read only inside transactions are kept like any other: the
 * earlier design kept nothing loaded inside a transaction, and a cache read only there (the
 * reverted webhook campaign cache, f197dcf) silently reloaded on every call.
 */
export type Counter = 'campaigns' | 'accounts' | 'exclusions' | 'keys' | 'workspace' | 'credits';

/**
 * The counters as one connection last read them. Reading them on every lookup cost 2.5 µs (a
 * read transaction on the WAL), three times a request; so they are read again only when they may
 * have moved: when this connection wrote them (its TEMP triggers count its writes of
 * `change_counters` in memory, ./counter-writes.ts: no statement per lookup; this also counts
 * writes later rolled back), or when another connection committed (`PRAGMA data_version`, read
 * once per synchronous stretch of work, a microtask: as if every lookup of that stretch happened
 * at its start; the next request sees the commit). A request's lookups so cost one statement.
 */
class Versions {
  private written = -1;
  private dataVersion = -1;
  private checked = false;
  private values: Map<string, number> | null = null;

  constructor(
    private readonly writes: CounterWrites,
    private readonly dataVersionStmt: Statement<[], number>,
    private readonly all: Statement<[], { name: string; value: number }>,
    private readonly one: Statement<[string], number>,
  ) {}

  get(counter: Counter, inTransaction: boolean): number | undefined {
    // Inside a transaction the counters are read as they stand, and not kept: a rollback takes
    // back the write but not its count, so a value read there could outlive the write it saw.
    // (The transaction's writes were counted, so the next read outside starts afresh.)
    if (inTransaction) return this.one.get(counter);
    if (this.writes.n !== this.written) {
      this.written = this.writes.n;
      this.values = null;
    }
    if (!this.checked) {
      this.checked = true;
      queueMicrotask(() => {
        this.checked = false;
      });
      const version = this.dataVersionStmt.get() as number;
      if (version !== this.dataVersion) {
        this.dataVersion = version;
        this.values = null;
      }
    }
    if (this.values === null) this.values = new Map(this.all.all().map((r) => [r.name, r.value]));
    return this.values.get(counter);
  }
}

const versions = perDb(
  (db) =>
    new Versions(
      // openDatabase has installed it; a connection opened another way (a test's, the bench's) gets it here.
      watchCounterWrites(db.$client),
      db.$client.prepare<[], number>('PRAGMA data_version').pluck(),
      db.$client.prepare<[], { name: string; value: number }>('SELECT name, value FROM change_counters'),
      db.$client.prepare<[string], number>('SELECT value FROM change_counters WHERE name = ?').pluck(),
    ),
);

/** The current value of a counter; undefined on a database without the counter (nothing is then kept). */
export const versionOf = (db: Db, counter: Counter): number | undefined => versions(db).get(counter, db.$client.inTransaction);

/** A value derived from the tables behind `counter`, kept while the counter stands still. Shared: never change it. */
export function cached<T>(counter: Counter, load: (db: Db) => T): (db: Db) => T {
  const kept = perDb((): { version: number | undefined; value: T | undefined } => ({ version: undefined, value: undefined }));
  return (db) => {
    const state = kept(db);
    const version = versionOf(db, counter);
    if (version !== undefined && version === state.version) return state.value as T;
    const value = load(db);
    state.version = version;
    state.value = value;
    return value;
  };
}

/**
 * Values by key (a row by its id or digest) behind one counter, kept while the counter stands
 * still. A missing row (undefined) is not kept, and at most `max` keys are: keys may be chosen by
 * a client (a digest of whatever key was presented). Shared: never change a value.
 */
export function cachedBy<T>(counter: Counter, load: (db: Db, key: string) => T | undefined, max = 1024): (db: Db, key: string) => T | undefined {
  const kept = perDb((): { version: number | undefined; values: Map<string, T> } => ({ version: undefined, values: new Map() }));
  return (db, key) => {
    const state = kept(db);
    const version = versionOf(db, counter);
    if (version === undefined || version !== state.version) {
      state.values.clear();
      state.version = version;
    } else {
      const hit = state.values.get(key);
      if (hit !== undefined) return hit;
    }
    const value = load(db, key);
    if (value !== undefined && version !== undefined) {
      if (state.values.size >= max) state.values.clear();
      state.values.set(key, value);
    }
    return value;
  };
}

/**
 * SQLite's `PRAGMA data_version` on this connection: it moves when another connection (the
 * CLI, a second server on the same file) commits, and never for this connection's own writes.
 * The change feed (src/core/live) polls it to learn of another process's changes.
 */
const dataVersionOf = perDb((db) => db.$client.prepare<[], number>('PRAGMA data_version').pluck());
export const dataVersion = (db: Db): number => dataVersionOf(db).get() as number;
