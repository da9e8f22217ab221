import { eq, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
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

type Row<T extends SQLiteTable> = T['$inferSelect'];
type Runnable = { run: (values: Record<string, unknown>) => { changes: number } };

/**
 * A statement per database and per set of columns given, built by `build` from a shape that maps
 * each column to a placeholder of its own name. Each value binds through its column's driver
 * mapping, as drizzle does; a null is written as a literal NULL (part of the statement's key),
 * because a bound null would go through the mapping too, and a boolean column maps null to 0.
 */
function perColumnSet(build: (db: Db, shape: Record<string, unknown>) => Runnable): (db: Db, values: Record<string, unknown>, extra?: Record<string, unknown>) => number {
  const statements = perDb(() => new Map<string, Runnable>());
  return (db, values, extra = {}) => {
    // One pass, in the order the caller gave the columns (a call site always gives them in the
    // same order, so it always finds its statement): this runs several times a send.
    let signature = '';
    const bound: Record<string, unknown> = { ...extra };
    for (const k of Object.keys(values)) {
      const v = values[k];
      if (v === undefined) continue;
      if (v === null) signature += `${k}=null,`;
      else {
        signature += `${k},`;
        bound[k] = v;
      }
    }
    if (signature === '') return 0;
    const cache = statements(db);
    let stmt = cache.get(signature);
    if (stmt === undefined) {
      const keys = Object.keys(values).filter((k) => values[k] !== undefined);
      stmt = build(db, Object.fromEntries(keys.map((k) => [k, values[k] === null ? null : sql.placeholder(k)])));
      cache.set(signature, stmt);
    }
    return stmt.run(bound).changes;
  };
}

/**
 * `UPDATE table SET <changed columns> WHERE id = ?`, prepared once per database and per set of
 * changed columns (see `perColumnSet`), for the engine's hot writes (a lead changes several times
 * per send). Returns the rows changed.
 */
export function updaterById<T extends SQLiteTable & { id: SQLiteColumn }>(table: T): (db: Db, id: string, changes: Partial<Row<T>>) => number {
  const run = perColumnSet((db, shape) =>
    db
      .update(table)
      .set(shape as never)
      .where(eq(table.id, sql.placeholder('__id')))
      .prepare(),
  );
  return (db, id, changes) => run(db, changes as Record<string, unknown>, { __id: id });
}

/**
 * `INSERT INTO table (<given columns>) VALUES (...)`, prepared once per database and per set of
 * given columns (see `perColumnSet`): the engine's per-send inserts (intents, activity,
 * messages) without building a drizzle query each time.
 */
export function inserterOf<T extends SQLiteTable>(table: T): (db: Db, values: T['$inferInsert']) => void {
  const run = perColumnSet((db, shape) => db.insert(table).values(shape as never).prepare());
  return (db, row) => void run(db, row as Record<string, unknown>);
}
