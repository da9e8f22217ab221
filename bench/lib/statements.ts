import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
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
 * Even as JSON they held 60 MB of live heap for 150,000 writes, which V8 let grow to about twice
 * that before collecting: the scale run spills them to a file (`spillTo`) and reads them back for
 * the replay, after its RSS is taken.
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
  /** How many writes were captured. */
  writeCount: number;
  /** The captured writes, in order: the ones kept in memory, or read back from the spill file. */
  writes(): CapturedWrite[];
  uses: StatementUse[];
}

/** Where a recorder keeps its writes: in memory (the default) or appended to a file. */
export interface RecordOptions {
  /** A file the writes are appended to, a line each (the statement's number, a tab, its parameters as JSON), instead of memory. */
  spillTo?: string;
}

/** Lines are buffered and appended to the spill file in chunks of about this many characters. */
const SPILL_CHUNK = 1 << 20;

export interface StatementRecorder {
  start(): void;
  stop(): Recording;
  /** Puts the connection's own `prepare` back (statements prepared meanwhile keep reporting, to nobody). */
  restore(): void;
}

export function recordStatements(client: Database.Database, options: RecordOptions = {}): StatementRecorder {
  const prepare = client.prepare;
  const file = options.spillTo;
  let on = false;
  let writes: CapturedWrite[] = [];
  let uses = new Map<string, StatementUse>();
  // Spilling: each statement's text once, by number; the lines not yet appended; the file.
  let texts = new Map<string, number>();
  let lines: string[] = [];
  let pending = 0;
  let count = 0;
  let fd: number | null = null;
  const flush = () => {
    if (fd !== null && lines.length > 0) writeSync(fd, lines.join(''));
    lines = [];
    pending = 0;
  };
  const capture = (sql: string, params: unknown[]) => {
    count++;
    if (fd === null) {
      writes.push({ sql, params: JSON.stringify(params) });
      return;
    }
    let n = texts.get(sql);
    if (n === undefined) {
      n = texts.size;
      texts.set(sql, n);
    }
    const line = `${n}\t${JSON.stringify(params)}\n`;
    lines.push(line);
    pending += line.length;
    if (pending >= SPILL_CHUNK) flush();
  };
  client.prepare = function (this: Database.Database, sql: string) {
    const stmt = prepare.call(client, sql);
    const reader = stmt.reader;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const call = stmt[method].bind(stmt) as (...params: unknown[]) => unknown;
      Object.defineProperty(stmt, method, {
        value: (...params: unknown[]) => {
          if (!on) return call(...params);
          if (!reader && method === 'run') capture(sql, params);
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
      texts = new Map();
      lines = [];
      pending = 0;
      count = 0;
      fd = file === undefined ? null : openSync(file, 'w');
      on = true;
    },
    stop: () => {
      on = false;
      const kept = writes;
      const writeCount = count;
      if (fd !== null) {
        flush();
        closeSync(fd);
        fd = null;
      }
      const sqlOf = [...texts.keys()];
      return {
        writeCount,
        writes: () => (file === undefined ? kept : readSpilled(file, sqlOf)),
        uses: [...uses.values()].sort((a, b) => b.ms - a.ms),
      };
    },
    restore: () => {
      client.prepare = prepare;
    },
  };
}

/** The writes a spill file holds, in order: `sqlOf` names each statement's number. */
function readSpilled(file: string, sqlOf: readonly string[]): CapturedWrite[] {
  const out: CapturedWrite[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const tab = line.indexOf('\t');
    out.push({ sql: sqlOf[Number(line.slice(0, tab))] as string, params: line.slice(tab + 1) });
  }
  return out;
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
 * Runs `writes` again, in order, in `transactions` transactions of about equal length (BEGIN
 * IMMEDIATE ... COMMIT), each statement prepared once: the bare cost of those writes, with
 * nothing deciding what to write. The database must be in the state the writes were captured
 * from. Returns the wall time and the process's CPU time (user + system) of the writes alone, in
 * ms: preparing the statements and decoding their parameters come before either clock starts.
 */
export function replayWrites(db: Database.Database, writes: readonly CapturedWrite[], transactions: number): { ms: number; cpuMs: number } {
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
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let t = 0; t < n; t++) chunk.immediate(Math.floor((t * writes.length) / n), Math.floor(((t + 1) * writes.length) / n));
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000 };
}

/** The `n` statements that took the most time, as `calls × text`, for the notes. */
export function topStatements(uses: readonly StatementUse[], n: number, per: number): { sql: string; reader: boolean; perUnit: number; usPerUnit: number }[] {
  return uses.slice(0, n).map((u) => ({ sql: oneLine(u.sql), reader: u.reader, perUnit: u.calls / per, usPerUnit: (u.ms * 1000) / per }));
}

const oneLine = (sql: string): string => {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 140 ? `${flat.slice(0, 137)}...` : flat;
};
