import type { Db } from './connection.js';

/**
 * A value built once per database connection on first use, typically prepared statements.
 * On the hot read paths (auth, workspace, list pages) building a drizzle query and preparing it
 * in SQLite cost more than running it, so those paths prepare once and bind per call.
 */
export function perDb<T>(build: (db: Db) => T): (db: Db) => T {
  const built = new WeakMap<Db, T>();
  return (db) => {
    let value = built.get(db);
    if (value === undefined) {
      value = build(db);
      built.set(db, value);
    }
    return value;
  };
}
