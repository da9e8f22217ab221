import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

/**
 * What the bench learns about the SQL a piece of work runs, through better-sqlite3's public
 * API only: `prepare` is wrapped on the bench's own connection, so every statement prepared
 * afterwards reports its calls. Recording is off until `start()`; while off a call costs one
 * flag check.
 */

/**
 * A write (INSERT, UPDATE, DELETE, with or without RETURNING: better-sqlite3's `readonly` is
 * false, whichever of run, get, all or iterate called it) with its parameters as the
 * statement received them, kept as JSON: kept as they came they held every value they named (a
 * day of the scale simulation's writes once held 100 MB of the RSS it measures), and a named
 * parameter object the caller changed afterwards would replay with its new values. The scale run
 * takes a tick's writes as soon as the tick ends (`takeWrites`) and replays them at once.
 */
export interface CapturedWrite {
  sql: string;
  params: string;
}

/** Calls and time of one statement text while recording. */
export interface StatementUse {
  sql: string;
  /** The statement only reads (better-sqlite3's `readonly`); a write with RETURNING is a write. */
  reader: boolean;
  calls: number;
  ms: number;
}

export interface Recording {
  /** How many writes were captured. */
  writeCount: number;
  /** The captured writes not yet taken, in order. */
  writes(): CapturedWrite[];
  uses: StatementUse[];
}

export interface StatementRecorder {
  start(): void;
  /** The writes captured since the start or the last take, in order; the recorder keeps none of them. */
  takeWrites(): CapturedWrite[];
  /** The statements' calls and time since the start or the last take, the costliest first; counting starts anew. */
  takeUses(): StatementUse[];
  stop(): Recording;
  /** Puts the connection's own `prepare` back (statements prepared meanwhile keep reporting, to nobody). */
  restore(): void;
}

export function recordStatements(client: Database.Database): StatementRecorder {
  const prepare = client.prepare;
  let on = false;
  let writes: CapturedWrite[] = [];
  let uses = new Map<string, StatementUse>();
  let count = 0;
  const sorted = (m: Map<string, StatementUse>) => [...m.values()].sort((a, b) => b.ms - a.ms);
  client.prepare = function (this: Database.Database, sql: string) {
    const stmt = prepare.call(client, sql);
    const reader = stmt.readonly;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const call = stmt[method].bind(stmt) as (...params: unknown[]) => unknown;
      Object.defineProperty(stmt, method, {
        value: (...params: unknown[]) => {
          if (!on) return call(...params);
          if (!reader) {
            count++;
            writes.push({ sql, params: JSON.stringify(params) });
          }
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
      count = 0;
      on = true;
    },
    takeWrites: () => {
      const taken = writes;
      writes = [];
      return taken;
    },
    takeUses: () => {
      const taken = sorted(uses);
      uses = new Map();
      return taken;
    },
    stop: () => {
      on = false;
      const kept = writes;
      writes = [];
      return { writeCount: count, writes: () => kept, uses: sorted(uses) };
    },
    restore: () => {
      client.prepare = prepare;
    },
  };
}

/** Removes a database file and the WAL and shared-memory files SQLite keeps beside it. */
export function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
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
 * Runs writes again on another connection, in order, each batch in `transactions` transactions
 * of about equal length (BEGIN IMMEDIATE ... COMMIT), each statement prepared once for the
 * replayer's life: the bare cost of those writes, with nothing deciding what to write. The
 * database must be in the state the writes were captured from. Each call returns the wall time
 * and the process's CPU time (user + system) of the writes alone, in ms: preparing the statements
 * and decoding their parameters come before either clock starts.
 */
export function writeReplayer(db: Database.Database): (writes: readonly CapturedWrite[], transactions: number) => { ms: number; cpuMs: number } {
  const prepared = new Map<string, Database.Statement>();
  const chunk = db.transaction((stmts: Database.Statement[], params: unknown[][], from: number, to: number) => {
    for (let i = from; i < to; i++) (stmts[i] as Database.Statement).run(...(params[i] as unknown[]));
  });
  return (writes, transactions) => {
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
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let t = 0; t < n; t++) chunk.immediate(stmts, params, Math.floor((t * writes.length) / n), Math.floor(((t + 1) * writes.length) / n));
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    return { ms, cpuMs: (c.user + c.system) / 1000 };
  };
}

/** Runs `writes` once on `db` in `transactions` transactions (writeReplayer, for a single batch). */
export function replayWrites(db: Database.Database, writes: readonly CapturedWrite[], transactions: number): { ms: number; cpuMs: number } {
  return writeReplayer(db)(writes, transactions);
}

/**
 * Whether two databases hold the same rows: every table of `a`'s schema (SQLite's own and FTS
 * shadow tables aside), read in rowid or primary-key order on both and hashed. Returns the tables
 * and rows compared and the tables whose rows differ. The scale run ends with it, so a write
 * the recorder missed (one prepared before it was installed, say) cannot make the floor cheaper
 * unseen.
 */
export function compareDatabases(a: Database.Database, b: Database.Database): { tables: number; rows: number; differing: string[] } {
  const all = a.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
    name: string;
    sql: string | null;
  }[];
  const virtual = all.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql ?? '')).map((t) => t.name);
  const tables = all.filter((t) => !virtual.some((v) => t.name === v || t.name.startsWith(`${v}_`)));
  let rows = 0;
  const differing: string[] = [];
  for (const t of tables) {
    const withoutRowid = /WITHOUT\s+ROWID/i.test(t.sql ?? '');
    const order = withoutRowid ? '' : ' ORDER BY rowid';
    const digest = (db: Database.Database) => {
      const h = createHash('sha256');
      let n = 0;
      for (const row of db.prepare(`SELECT * FROM "${t.name}"${order}`).raw().iterate()) {
        h.update(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
        h.update('\n');
        n++;
      }
      return { hash: h.digest('hex'), n };
    };
    const x = digest(a);
    const y = digest(b);
    rows += x.n;
    if (x.hash !== y.hash || x.n !== y.n) differing.push(t.name);
  }
  return { tables: tables.length, rows, differing };
}

/** The `n` statements that took the most time, as `calls × text`, for the notes. */
export function topStatements(uses: readonly StatementUse[], n: number, per: number): { sql: string; reader: boolean; perUnit: number; usPerUnit: number }[] {
  return uses.slice(0, n).map((u) => ({ sql: oneLine(u.sql), reader: u.reader, perUnit: u.calls / per, usPerUnit: (u.ms * 1000) / per }));
}

const oneLine = (sql: string): string => {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 140 ? `${flat.slice(0, 137)}...` : flat;
};
