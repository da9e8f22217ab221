import type { Statement } from 'better-sqlite3';
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './connection.js';

/**
 * A value built once per database connection on first use, typically prepared statements.
 * On the hot paths (auth, workspace, list pages, the engine) building a query and preparing it
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

/**
 * A row as better-sqlite3 hands it out by default: a plain object keyed by result column name.
 * Hand-written reads map rows by these names, never by position.
 */
export type SqlRow = Record<string, unknown>;

/**
 * A read whose rows come back as arrays (better-sqlite3's raw mode) with each result column's
 * index looked up by name, once, in the statement's own column list. better-sqlite3 builds a
 * row object key by key, a slow dictionary object; for a wide row (a draft with its lead, 34
 * columns) that costs as much as the query itself, and raw mode halves a page's read. A mapper
 * reads `r[at.campaign_id]`: by name, never by a position written in code. A name the SELECT
 * does not give throws when the statement is prepared, not when a row is read.
 */
export function rawByName<P extends unknown[], const N extends string>(
  stmt: Statement<P>,
  names: readonly N[],
): { stmt: Statement<P, unknown[]>; at: Readonly<Record<N, number>> } {
  const given = stmt.columns().map((c) => c.name);
  const at = {} as Record<N, number>;
  for (const name of names) {
    const i = given.indexOf(name);
    if (i < 0 || given.indexOf(name, i + 1) >= 0) throw new Error(`the statement gives ${i < 0 ? 'no' : 'two'} columns named ${name}: ${stmt.source}`);
    at[name] = i;
  }
  return { stmt: stmt.raw(true) as unknown as Statement<P, unknown[]>, at };
}

/*
 * Hand-written statements (src/db/sql/) read and write rows in SQL on better-sqlite3's own
 * `prepare`, with the schema's column names taken from drizzle's public table helpers
 * (`getTableColumns`, `getTableName`), so a renamed column cannot drift from the schema. The only
 * value that SQLite stores differently from how the code holds it is a boolean (0 or 1).
 */

interface ColumnInfo {
  /** The property name in code (`networkUrl`). */
  key: string;
  /** The column name in SQL (`network_url`). */
  name: string;
  boolean: boolean;
}

const columnCache = new WeakMap<SQLiteTable, ColumnInfo[]>();

export function columnsOf(table: SQLiteTable): ColumnInfo[] {
  let cols = columnCache.get(table);
  if (cols === undefined) {
    cols = Object.entries(getTableColumns(table)).map(([key, c]) => ({ key, name: c.name, boolean: c.dataType === 'boolean' }));
    columnCache.set(table, cols);
  }
  return cols;
}

export const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;
export const tableName = (table: SQLiteTable): string => quoted(getTableName(table));

/**
 * The SELECT list of every column of `table`, each named as in code (`"network_url" AS
 * "networkUrl"`), so better-sqlite3 builds the row object itself. `from` qualifies the columns
 * (a table name or alias); `prefix` names them for a join (`a_id`).
 */
export function selectList(table: SQLiteTable, from?: string, prefix = ''): string {
  const q = from === undefined ? '' : `${from}.`;
  return columnsOf(table)
    .map((c) => `${q}${quoted(c.name)} AS ${quoted(prefix + c.key)}`)
    .join(', ');
}

/** Turns the 0/1 of `table`'s boolean columns into booleans, in place, as drizzle's column mapping does. */
export function booleansOf<T>(table: SQLiteTable): (row: Record<string, unknown>) => T {
  const keys = columnsOf(table)
    .filter((c) => c.boolean)
    .map((c) => c.key);
  if (keys.length === 0) return (row) => row as T;
  return (row) => {
    for (const k of keys) {
      const v = row[k];
      if (v !== null && v !== undefined) row[k] = v === 1;
    }
    return row as T;
  };
}

/** A statement whose rows are `table`'s rows: decoded on the way out. */
export interface RowStatement<P extends unknown[], R> {
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

export function rowsOf<P extends unknown[], R>(table: SQLiteTable, stmt: Statement<P, Record<string, unknown>>): RowStatement<P, R> {
  const decode = booleansOf<R>(table);
  return {
    get: (...params) => {
      const row = stmt.get(...params);
      return row === undefined ? undefined : decode(row);
    },
    all: (...params) => {
      const rows = stmt.all(...params);
      for (const row of rows) decode(row);
      return rows as unknown as R[];
    },
  };
}

/** A value as SQLite stores it: booleans as 1 and 0, everything else as it is. */
const toDriver = (v: unknown): unknown => (v === true ? 1 : v === false ? 0 : v);

type Row<T extends SQLiteTable> = T['$inferSelect'];

/**
 * A statement per database and per set of columns given, built by `build` from the columns' SQL
 * names, with positional parameters in that order (binding by name cost a third more per call).
 * A call site always gives its columns in the same order, so it always finds its statement;
 * `undefined` values are left out, as a partial update or insert leaves them. `extra` values are
 * bound after the columns'.
 */
function perColumnSet(table: SQLiteTable, build: (columns: ColumnInfo[]) => string): (db: Db, values: Record<string, unknown>, ...extra: unknown[]) => number {
  const byKey = new Map(columnsOf(table).map((c) => [c.key, c]));
  const statements = perDb(() => new Map<string, Statement<unknown[]>>());
  return (db, values, ...extra) => {
    let signature = '';
    const bound: unknown[] = [];
    for (const k in values) {
      const v = values[k];
      if (v === undefined) continue;
      signature += `${k},`;
      bound.push(toDriver(v));
    }
    if (signature === '') return 0;
    const cache = statements(db);
    let stmt = cache.get(signature);
    if (stmt === undefined) {
      const columns = signature
        .slice(0, -1)
        .split(',')
        .map((k) => {
          const c = byKey.get(k);
          if (!c) throw new Error(`${getTableName(table)} has no column ${k}`);
          return c;
        });
      stmt = db.$client.prepare<unknown[]>(build(columns));
      cache.set(signature, stmt);
    }
    for (const x of extra) bound.push(x);
    return stmt.run(...bound).changes;
  };
}

/**
 * `UPDATE table SET <changed columns> WHERE id = ?`, prepared once per database and per set of
 * changed columns, for the engine's hot writes (a lead changes several times per send). Returns
 * the rows changed.
 */
export function updaterById<T extends SQLiteTable & { id: unknown }>(table: T): (db: Db, id: string, changes: Partial<Row<T>>) => number {
  const run = perColumnSet(table, (columns) => `UPDATE ${tableName(table)} SET ${columns.map((c) => `${quoted(c.name)} = ?`).join(', ')} WHERE "id" = ?`);
  return (db, id, changes) => run(db, changes as Record<string, unknown>, id);
}

/**
 * `INSERT INTO table (<given columns>) VALUES (...)`, prepared once per database and per set of
 * given columns: the engine's per-send inserts (intents, activity, messages). Columns not given
 * take their defaults.
 */
export function inserterOf<T extends SQLiteTable>(table: T): (db: Db, values: T['$inferInsert']) => void {
  const run = perColumnSet(
    table,
    (columns) => `INSERT INTO ${tableName(table)} (${columns.map((c) => quoted(c.name)).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  return (db, row) => void run(db, row as Record<string, unknown>);
}
