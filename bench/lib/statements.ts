import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

/**
 * What the bench learns about the SQL a piece of work runs, through better-sqlite3's public
 * API only: `prepare` is wrapped on the bench's own connection, so every statement prepared
 * afterwards reports its calls. Recording is off until `start()`; while off a call costs one
 * flag check.
 */

/**
 * A write (INSERT, UPDATE, DELETE: better-sqlite3's `reader` is false) with its parameters as the
 * statement received them, kept as JSON: a day of the scale simulation captures some 200,000, and
 * kept as they came they held every value they named (100 MB of the RSS the simulation measures).
 */
export interface CapturedWrite {
  sql: string;
  params: string;
}

/** Calls and time of one statement text while recording. */
export interface StatementUse {
  sql: string;
  reader: boolean;
  calls: number;
  ms: number;
}

export interface Recording {
  writes: CapturedWrite[];
  uses: StatementUse[];
}

export interface StatementRecorder {
  start(): void;
  stop(): Recording;
  /** Puts the connection's own `prepare` back (statements prepared meanwhile keep reporting, to nobody). */
  restore(): void;
}

export function recordStatements(client: Database.Database): StatementRecorder {
  const prepare = client.prepare;
  let on = false;
  let writes: CapturedWrite[] = [];
  let uses = new Map<string, StatementUse>();
  client.prepare = function (this: Database.Database, sql: string) {
    const stmt = prepare.call(client, sql);
    const reader = stmt.reader;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const call = stmt[method].bind(stmt) as (...params: unknown[]) => unknown;
      Object.defineProperty(stmt, method, {
        value: (...params: unknown[]) => {
          if (!on) return call(...params);
          if (!reader && method === 'run') writes.push({ sql, params: JSON.stringify(params) });
          const t0 = performance.now();
          try {
            return call(...params);
          } finally {
            let use = uses.get(sql);
            if (use === undefined) {
              use = { sql, reader, calls: 0, ms: 0 };
              uses.set(sql, use);
            }
            use.calls++;
            use.ms += performance.now() - t0;
          }
        },
      });
    }
    return stmt;
  } as typeof client.prepare;
  return {
    start: () => {
      writes = [];
      uses = new Map();
      on = true;
    },
    stop: () => {
      on = false;
      return { writes, uses: [...uses.values()].sort((a, b) => b.ms - a.ms) };
    },
    restore: () => {
      client.prepare = prepare;
    },
  };
}

/** The connection settings of src/db/connection.ts, so a replay writes as the server does. */
export function openLikeTheServer(path: string): Database.Database {
  const require = createRequire(import.meta.url);
  const Sqlite = require('better-sqlite3') as typeof Database;
  const db = new Sqlite(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('journal_size_limit = 67108864');
  return db;
}

/**
 * Runs `writes` again, in order, in `transactions` transactions of about equal length (BEGIN
 * IMMEDIATE ... COMMIT), each statement prepared once: the bare cost of those writes, with
 * nothing deciding what to write. The database must be in the state the writes were captured
 * from. Returns the wall time in ms.
 */
export function replayWrites(db: Database.Database, writes: readonly CapturedWrite[], transactions: number): number {
  const prepared = new Map<string, Database.Statement>();
  const stmts = writes.map((w) => {
    let s = prepared.get(w.sql);
    if (s === undefined) {
      s = db.prepare(w.sql);
      prepared.set(w.sql, s);
    }
    return s;
  });
  // Decoded before the clock starts: the replay times the writes, not the reading of them.
  const params = writes.map((w) => JSON.parse(w.params) as unknown[]);
  const n = Math.max(1, transactions);
  const chunk = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) (stmts[i] as Database.Statement).run(...(params[i] as unknown[]));
  });
  const t0 = performance.now();
  for (let t = 0; t < n; t++) chunk.immediate(Math.floor((t * writes.length) / n), Math.floor(((t + 1) * writes.length) / n));
  return performance.now() - t0;
}

/** The `n` statements that took the most time, as `calls × text`, for the notes. */
export function topStatements(uses: readonly StatementUse[], n: number, per: number): { sql: string; reader: boolean; perUnit: number; usPerUnit: number }[] {
  return uses.slice(0, n).map((u) => ({ sql: oneLine(u.sql), reader: u.reader, perUnit: u.calls / per, usPerUnit: (u.ms * 1000) / per }));
}

const oneLine = (sql: string): string => {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 140 ? `${flat.slice(0, 137)}...` : flat;
};
