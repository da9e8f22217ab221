import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { watchCacheWrites } from './cache-signal.js';
import { installCampaignStateGate } from './campaign-writer.js';
import { installDraftsGate } from './drafts-writer.js';
import * as schema from './schema.js';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** Resolves from both `src/db` (tests) and `dist/db` (built) to the one migrations folder. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../src/db/migrations', import.meta.url));

export interface OpenOptions {
  /** Told the file name when a copy is made before migrating (see backUpBeforeMigrating). */
  onBackup?: (file: string) => void;
}

/**
 * Opens (creating if needed) the database, in WAL mode with a busy timeout, and applies
 * pending migrations, after a copy of a database that has data (backUpBeforeMigrating).
 * `:memory:` gives a private in-memory database for tests.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  // Checkpoint every 10,000 pages (~40 MB of WAL) instead of SQLite's 1,000: the engine commits
  // many small transactions that rewrite the same hot pages (the due index, counters, the tails
  // of the activity and intent tables), and a page rewritten between two checkpoints is copied
  // back once. A WAL that grew past 64 MiB (a large import) is cut back after a checkpoint.
  sqlite.pragma('wal_autocheckpoint = 10000');
  sqlite.pragma('journal_size_limit = 67108864');
  if (path !== ':memory:') backUpBeforeMigrating(sqlite, path, opts.onBackup);
  // Before migrating: the campaign and draft triggers call them (see campaign-writer.ts, drafts-writer.ts).
  installCampaignStateGate(sqlite);
  installDraftsGate(sqlite);
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  // After migrating (its TEMP triggers need the tables), before any iterator is open.
  watchCacheWrites(sqlite);
  return db;
}

/** How many migrations a database has applied, and how many of ours it lacks. */
export function schemaState(sqlite: Database.Database): { applied: number; pending: number } {
  const known = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return { applied: 0, pending: known.length };
  const { n, last } = sqlite.prepare('SELECT count(*) AS n, max(created_at) AS last FROM __drizzle_migrations').get() as { n: number; last: number | null };
  // The migrator's own rule: every migration newer than the newest applied one runs.
  return { applied: n, pending: known.filter((m) => last === null || m.folderMillis > last).length };
}

/**
 * An upgrade changes the schema of a database that holds data, with no way back but a copy:
 * before the first pending migration runs, the database is copied (VACUUM INTO: consistent and
 * compact) to `<db>.before-migrations-<from>-to-<to>`, replacing a copy of that name from an
 * earlier attempt. A new database, or one that is current, is not copied.
 */
function backUpBeforeMigrating(sqlite: Database.Database, path: string, onBackup?: (file: string) => void): void {
  const { applied, pending } = schemaState(sqlite);
  if (applied === 0 || pending === 0) return;
  const file = `${path}.before-migrations-${applied}-to-${applied + pending}`;
  const work = `${file}.partial-${process.pid}`;
  rmSync(work, { force: true });
  try {
    sqlite.prepare('VACUUM INTO ?').run(work);
    renameSync(work, file);
  } catch (err) {
    rmSync(work, { force: true });
    throw new Error(`could not copy the database to ${file} before migrating it (nothing was changed): ${(err as Error).message}`);
  }
  onBackup?.(file);
}

/** Closes the connection; nothing may use it afterwards. */
export function closeDatabase(db: Db): void {
  db.$client.close();
}
