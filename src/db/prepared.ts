import type { RunResult, Statement } from 'better-sqlite3';
import { Column, eq, getTableName, is, Param, Placeholder, SQL, sql, Subquery } from 'drizzle-orm';
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
function perColumnSet(
  build: (db: Db, shape: Record<string, unknown>) => Runnable,
): (db: Db, values: Record<string, unknown>, extra?: Record<string, unknown>) => number {
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
    fast(
      db
        .update(table)
        .set(shape as never)
        .where(eq(table.id, sql.placeholder('__id')))
        .prepare(),
    ),
  );
  return (db, id, changes) => run(db, changes as Record<string, unknown>, { __id: id });
}

/**
 * `INSERT INTO table (<given columns>) VALUES (...)`, prepared once per database and per set of
 * given columns (see `perColumnSet`): the engine's per-send inserts (intents, activity,
 * messages) without building a drizzle query each time.
 */
export function inserterOf<T extends SQLiteTable>(table: T): (db: Db, values: T['$inferInsert']) => void {
  const run = perColumnSet((db, shape) =>
    fast(
      db
        .insert(table)
        .values(shape as never)
        .prepare(),
    ),
  );
  return (db, row) => void run(db, row as Record<string, unknown>);
}

type Values = Record<string, unknown>;
type Decoder = { mapFromDriverValue(value: unknown): unknown };
type Field = { path: string[]; field: unknown };
/** What `fast` reads of a drizzle better-sqlite3 prepared query (drizzle-orm 0.45). */
interface DrizzlePrepared {
  stmt: Statement;
  query: { sql: string; params: unknown[] };
  fields?: Field[];
  joinsNotNullableMap?: Record<string, boolean>;
  customResultMapper?: unknown;
}

/** The row type a prepared query reads (never for a write without `returning`). */
type RowOf<Q> = Q extends { all(...a: never[]): infer A } ? (A extends readonly (infer R)[] ? R : never) : never;

/** A prepared query run as drizzle runs it, without its per-call work (see `fast`). */
export interface FastQuery<R> {
  run(values?: Values): RunResult;
  get(values?: Values): R | undefined;
  all(values?: Values): R[];
}

const missing = (name: string) => new Error(`No value for placeholder "${name}" was provided`);

/**
 * A drizzle prepared query with what drizzle works out on every call worked out once: which
 * parameter is which placeholder and its column's encoding, and each selected field's decoder and
 * place in the row. The engine runs a few dozen statements a send; drizzle's generic per-call
 * work (class checks on every parameter and field) was an eighth of the engine's time at 200
 * accounts. Results are drizzle's to the letter (test/db/prepared.test.ts compares them), and a
 * query this does not understand is refused when it is built, not run wrongly.
 */
export function fast<Q extends { run(...a: never[]): unknown }>(query: Q): FastQuery<RowOf<Q>> {
  type R = RowOf<Q>;
  const q = query as unknown as DrizzlePrepared;
  if (!q.stmt || typeof q.stmt.run !== 'function' || !q.query || !Array.isArray(q.query.params) || q.customResultMapper) {
    throw new Error('fast(): not a drizzle better-sqlite3 prepared query this understands');
  }
  const fillers = q.query.params.map((p): ((v: Values) => unknown) => {
    if (is(p, Placeholder)) {
      const name = p.name;
      return (v) => {
        if (!(name in v)) throw missing(name);
        return v[name];
      };
    }
    if (is(p, Param) && is(p.value, Placeholder)) {
      const name = (p.value as Placeholder).name;
      const encoder = p.encoder as { mapToDriverValue(value: unknown): unknown };
      return (v) => {
        if (!(name in v)) throw missing(name);
        return encoder.mapToDriverValue(v[name]);
      };
    }
    return () => p;
  });
  const bind = (v: Values = {}): unknown[] => fillers.map((f) => f(v));
  const text = boundLimitsAsSubqueries(q.query.sql);
  // drizzle's own statement unless the text changed (drizzle reads rows in raw mode too, so
  // setting it below changes nothing for drizzle).
  const stmt = text === q.query.sql ? q.stmt : q.stmt.database.prepare(text);
  const fields = q.fields;
  if (!fields) return { run: (v) => stmt.run(...bind(v)), get: (v) => stmt.get(...bind(v)) as R | undefined, all: (v) => stmt.all(...bind(v)) as R[] };
  const raw = stmt.raw(true);
  const map = rowMapper(fields, q.joinsNotNullableMap);
  return {
    run: (v) => raw.run(...bind(v)),
    get: (v) => {
      const row = raw.get(...bind(v)) as unknown[] | undefined;
      return row === undefined ? undefined : (map(row) as R);
    },
    all: (v) => (raw.all(...bind(v)) as unknown[][]).map((row) => map(row) as R),
  };
}

/**
 * `LIMIT ?` as `LIMIT (SELECT ?)` (and OFFSET likewise), the same value. SQLite (built with
 * STAT4, as better-sqlite3 is) compiles a statement again whenever a value is bound to a bare
 * LIMIT parameter, since the planner may use it: measured, a lead query with `LIMIT ?` cost
 * 35 µs a call against 3 µs, all of it compiling 60 columns again. drizzle binds every limit,
 * `.limit(1)` included. A subquery is not looked into by the planner, so the plan stays.
 */
export const boundLimitsAsSubqueries = (text: string): string => text.replace(/\b(limit|offset) \?(?!\d)/gi, '$1 (select ?)');

/** drizzle's mapResultRow, with each field's decoder and path found once. */
function rowMapper(fields: Field[], joinsNotNullableMap: Record<string, boolean> | undefined): (row: unknown[]) => Values {
  // SQL's decoder is internal to drizzle; the same lookup as mapResultRow.
  const decoderOf = (s: unknown) => (s as { decoder: Decoder }).decoder;
  const plan = fields.map(({ path, field }) => {
    let decoder: Decoder;
    if (is(field, Column)) decoder = field;
    else if (is(field, SQL)) decoder = decoderOf(field);
    else if (is(field, Subquery)) decoder = decoderOf((field as unknown as { _: { sql: SQL } })._.sql);
    else decoder = decoderOf((field as { sql: SQL }).sql);
    const table = is(field, Column) && path.length === 2 ? getTableName(field.table) : null;
    return { path, last: path[path.length - 1] as string, decoder, table };
  });
  const flat = plan.every((f) => f.path.length === 1);
  if (flat && plan.every((f) => f.last !== '__proto__')) {
    // One object literal of fixed shape, built by generated code: filled key by key, a row of a
    // wide table (a lead has 60 columns) became a slow dictionary object.
    const decoders = plan.map((f) => f.decoder);
    const body = plan.map((f, i) => `${JSON.stringify(f.last)}: row[${i}] === null ? null : d[${i}].mapFromDriverValue(row[${i}])`).join(',\n');
    const build = new Function('d', 'row', `return {\n${body}\n};`) as (d: Decoder[], row: unknown[]) => Values;
    return (row) => build(decoders, row);
  }
  return (row) => {
    const out: Values = {};
    const nullify: Record<string, string | false> = {};
    for (let i = 0; i < plan.length; i++) {
      const f = plan[i]!;
      let node = out;
      for (let k = 0; k < f.path.length - 1; k++) {
        const chunk = f.path[k]!;
        if (!(chunk in node)) node[chunk] = {};
        node = node[chunk] as Values;
      }
      const value = row[i] === null ? null : f.decoder.mapFromDriverValue(row[i]);
      node[f.last] = value;
      if (joinsNotNullableMap && f.table !== null) {
        const objectName = f.path[0]!;
        if (!(objectName in nullify)) nullify[objectName] = value === null ? f.table : false;
        else if (typeof nullify[objectName] === 'string' && nullify[objectName] !== f.table) nullify[objectName] = false;
      }
    }
    if (joinsNotNullableMap) {
      for (const [objectName, tableName] of Object.entries(nullify)) {
        if (typeof tableName === 'string' && !joinsNotNullableMap[tableName]) out[objectName] = null;
      }
    }
    return out;
  };
}
