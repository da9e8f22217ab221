import type { Statement } from 'better-sqlite3';
import type { Db } from './connection.js';
import { perDb } from './prepared.js';

/**
 * The trigger-kept counters of migration 0009 (`change_counters`). Each moves on every write to
 * the tables behind it, from any connection:
 * - `campaigns`: a campaign added or removed, its status or agent changed; any agent written;
 * - `accounts`: any account written;
 * - `exclusions`: the exclusion list written.
 */
export type Counter = 'campaigns' | 'accounts' | 'exclusions';

const counterStmt = perDb((db) => db.$client.prepare('SELECT value FROM change_counters WHERE name = ?').pluck() as Statement<[string], number>);

/**
 * A value derived from the tables behind `counter`, kept in memory while the counter stands
 * still: the engine reads campaigns, accounts and the exclusion list for every lead it handles,
 * and checking the counter is one primary-key read.
 *
 * Never stale: the counter is read before the value is loaded, so a change committed in between
 * only causes a reload on the next call. Inside a transaction a kept value is still valid when
 * the counter matches (the transaction sees the same committed rows, and its own writes would
 * have moved the counter), but a value loaded there is not kept, since the transaction may yet
 * roll back. Without the counter row, nothing is kept. Shared: never change the value.
 *
 * So a value only ever read inside transactions is never kept, and is loaded afresh on every
 * call: use this only for values also read outside one (the engine's tick reads all of these).
 */
export function counted<T>(counter: Counter, load: (db: Db) => T): (db: Db) => T {
  const kept = perDb((): { version: number | null; value: T | undefined } => ({ version: null, value: undefined }));
  return (db) => {
    const state = kept(db);
    const version = counterStmt(db).get(counter);
    if (version !== undefined && version === state.version) return state.value as T;
    const value = load(db);
    if (version !== undefined && !db.$client.inTransaction) {
      state.version = version;
      state.value = value;
    }
    return value;
  };
}
