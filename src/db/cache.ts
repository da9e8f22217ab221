import { type Counter, signalOf } from './cache-signal.js';
import type { Db } from './connection.js';
import { perDb } from './prepared.js';

/**
 * The one cache of values read from the database (docs/architecture.md, "Caching").
 *
 * What it holds: values derived from a few small tables that hot paths read again and again (the
 * running campaigns with their agents, the accounts, the mailboxes, the exclusion list, API keys,
 * the workspace's settings, the credit balance).
 *
 * The one signal: a generation per group of tables, kept in memory per connection. A kept value
 * is served while its group's generation is the one it was loaded under. The generation moves
 * when the group may have changed, and SQLite tells us both ways it can:
 *
 * - this connection wrote it: TEMP triggers (they live only in this connection, in no migration,
 *   and write no table) call `cache_touched(group)` for every row written, whoever wrote it
 *   (drizzle, raw SQL, any handle on the connection);
 * - another connection or process committed (the CLI revoking a key while the server runs):
 *   `PRAGMA data_version` moved, and every group moves, since SQLite does not say what changed.
 *   It is read once per synchronous stretch of work (a microtask), and on every lookup inside a
 *   transaction (whose snapshot may be newer than the stretch's start).
 *
 * Why it is safe inside a transaction: a group this transaction wrote is not served from memory
 * until the transaction ends (its values are loaded fresh, as they stand in the transaction), and
 * when it has ended, committed or rolled back, the group moves once more: nothing loaded from a
 * write that may have been rolled back, a savepoint's included, is ever served. A group the
 * transaction did not write is kept as anywhere else, so a cache read only inside transactions
 * (the reverted webhook campaign cache, f197dcf) still loads once per change.
 */
export type { Counter } from './cache-signal.js';

/**
 * The group's generation now on this connection; undefined inside a transaction that wrote the
 * group (nothing is then kept). Two reads that give the same number saw the same data.
 */
export const versionOf = (db: Db, counter: Counter): number | undefined => signalOf(db.$client).version(counter);

/**
 * Tells the cache that a group changed on this connection in a way no watched write shows: the
 * engine's memory follows the `campaigns` group, and a person's decision on a draft wakes a lead
 * the engine may have put away (see `wakeDecidedLeads`).
 */
export const touchCache = (db: Db, counter: Counter): void => signalOf(db.$client).touch(counter);

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
