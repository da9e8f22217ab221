import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { MIGRATIONS_FOLDER } from './connection.js';

/** A backup or restore that cannot go ahead; the message says why and names the file. */
export class BackupError extends Error {}

/** The database is open in another process (a server, `outreach mcp`, a CLI command). */
export class DatabaseInUse extends BackupError {}

const MIGRATIONS_TABLE = '__drizzle_migrations';

/** What a database file holds, as far as this version can tell. */
export interface DatabaseInfo {
  /** Migrations applied (the schema version). */
  schema: number;
  /** Migrations this version knows. */
  known: number;
  bytes: number;
}

/**
 * Checks that `file` is a database of this project that this version can run: an SQLite file
 * that passes `quick_check`, whose applied migrations are a prefix of ours (same hashes). An
 * older schema is fine (start migrates it); a newer one needs a newer version.
 */
export function inspectDatabase(file: string, what = 'the file'): DatabaseInfo {
  if (!existsSync(file)) throw new BackupError(`${what} ${file} does not exist`);
  if (!statSync(file).isFile()) throw new BackupError(`${what} ${file} is not a file`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new BackupError(`${what} ${file} cannot be opened: ${(err as Error).message}`);
  }
  try {
    let applied: { hash: string; created_at: number }[];
    try {
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new BackupError(`${what} ${file} is damaged (SQLite quick_check: ${String(check)})`);
      const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE);
      if (!table) throw new BackupError(`${what} ${file} is not an outreach-mcp database (it has no migration history)`);
      applied = db.prepare(`SELECT hash, created_at FROM ${MIGRATIONS_TABLE} ORDER BY created_at`).all() as typeof applied;
    } catch (err) {
      if (err instanceof BackupError) throw err;
      throw new BackupError(`${what} ${file} is not an SQLite database (${(err as Error).message})`);
    }
    const known = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
    if (applied.length === 0) throw new BackupError(`${what} ${file} is not an outreach-mcp database (no migration was ever applied to it)`);
    if (applied.length > known.length) {
      throw new BackupError(
        `${what} ${file} has schema ${applied.length}, newer than this version knows (${known.length}); use the version that made it, or a newer one`,
      );
    }
    applied.forEach((row, i) => {
      const ours = known[i]!;
      if (row.hash !== ours.hash || row.created_at !== ours.folderMillis) {
        throw new BackupError(`${what} ${file} is not an outreach-mcp database of this line: its migration ${i + 1} differs from ours`);
      }
    });
    return { schema: applied.length, known: known.length, bytes: statSync(file).size };
  } finally {
    db.close();
  }
}

/** A file name beside `path` for work in progress, unique to this process. */
const partial = (path: string, what: string): string => `${path}.${what}-${process.pid}`;

/** Owner read and write only: a copy of the database holds every key hash, lead and message. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `path`, empty, readable and writable by its owner alone, whatever the umask, before
 * SQLite writes into it: SQLite keeps the mode of a file it opens, and gives its journal beside
 * it the same mode, so no byte of the copy is ever readable by anyone else.
 */
function createPrivately(path: string): void {
  closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
}

/**
 * Copies the database at `dbPath` to `to` with SQLite's online backup, consistent while a server
 * writes to it: the whole copy runs in one step, inside one read transaction, so no write lands
 * halfway (a writer only has to wait for the WAL checkpoint). The copy is written beside `to`
 * first, checked, switched out of WAL mode (one self-contained file), then renamed into place,
 * so a backup that is cut short never leaves a plausible file at `to`. The copy is the owner's
 * alone (mode 0600) from its first byte, as is the file a restore writes.
 */
export async function backupDatabase(dbPath: string, to: string): Promise<DatabaseInfo> {
  inspectDatabase(dbPath, 'the database');
  if (existsSync(to)) throw new BackupError(`--to: ${to} already exists; choose a new file name`);
  if (!existsSync(dirname(to))) throw new BackupError(`--to: the folder ${dirname(to)} does not exist`);
  const work = partial(to, 'partial');
  // No migrations here: the backup must be of the database as the running server has it.
  const source = new Database(dbPath, { fileMustExist: true, timeout: 5000 });
  try {
    createPrivately(work);
    await source.backup(work, { progress: ({ remainingPages }) => remainingPages });
  } catch (err) {
    rmSync(work, { force: true });
    throw new BackupError(`the backup failed: ${(err as Error).message}`);
  } finally {
    source.close();
  }
  try {
    const copy = new Database(work, { fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    const info = inspectDatabase(work, 'the copy');
    renameSync(work, to);
    return { ...info, bytes: statSync(to).size };
  } catch (err) {
    rmSync(work, { force: true });
    throw err;
  }
}

const SIDECARS = ['-wal', '-shm', '-journal'];

/**
 * Takes the database for itself, or throws DatabaseInUse: a process that has the file open
 * (a server, `outreach mcp`, a CLI command) holds a lock SQLite will not give up, so leaving WAL
 * mode and taking the exclusive lock both fail at once (no busy wait). The returned connection
 * keeps every other process out until it is closed.
 */
function takeExclusively(dbPath: string): Database.Database {
  const guard = new Database(dbPath, { fileMustExist: true, timeout: 0 });
  try {
    const mode = guard.pragma('journal_mode = DELETE', { simple: true });
    if (mode !== 'delete') throw new DatabaseInUse(String(mode));
    guard.exec('BEGIN EXCLUSIVE');
    return guard;
  } catch (err) {
    guard.close();
    const code = (err as { code?: string }).code;
    if (err instanceof DatabaseInUse || code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new DatabaseInUse(`${dbPath} is open in another process (a running server, \`outreach mcp\` or another command); stop it, then restore`);
    }
    throw err;
  }
}

export interface Restored extends DatabaseInfo {
  /** Where the database that was replaced now is; null when there was none. */
  previous: string | null;
}

/**
 * Puts the backup `from` in place of the database at `dbPath`. It refuses a file that is not a
 * database of this project (inspectDatabase), and a database that another process has open
 * (takeExclusively). The database it replaces is kept beside it as `<db>.before-restore-<time>`;
 * stale WAL files of the old one are removed, never applied to the restored one.
 */
export async function restoreDatabase(from: string, dbPath: string, now = new Date()): Promise<Restored> {
  const info = inspectDatabase(from, '--from:');
  mkdirSync(dirname(dbPath), { recursive: true });
  const guard = existsSync(dbPath) ? takeExclusively(dbPath) : null;
  const work = partial(dbPath, 'restoring');
  try {
    createPrivately(work);
    const source = new Database(from, { readonly: true, fileMustExist: true });
    try {
      await source.backup(work, { progress: ({ remainingPages }) => remainingPages });
    } finally {
      source.close();
    }
    let previous: string | null = null;
    if (guard) {
      previous = `${dbPath}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
      renameSync(dbPath, previous);
    }
    for (const suffix of SIDECARS) rmSync(dbPath + suffix, { force: true });
    renameSync(work, dbPath);
    return { ...info, bytes: statSync(dbPath).size, previous };
  } catch (err) {
    rmSync(work, { force: true });
    throw err;
  } finally {
    // The guard's connection is on the old file (renamed, or left as it was on failure); it wrote
    // nothing, so closing it touches no file by name.
    if (guard) {
      guard.exec('ROLLBACK');
      guard.close();
    }
  }
}
