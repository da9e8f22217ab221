import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { installCampaignStateGate } from './campaign-writer.js';
import * as schema from './schema.js';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** Resolves from both `src/db` (tests) and `dist/db` (built) to the one migrations folder. */
const MIGRATIONS = fileURLToPath(new URL('../../src/db/migrations', import.meta.url));

/**
 * Opens (creating if needed) the database, in WAL mode with a busy timeout, and applies
 * pending migrations. `:memory:` gives a private in-memory database for tests.
 */
export function openDatabase(path: string): Db {
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
  // Before migrating: the campaign triggers call it (see campaign-writer.ts).
  installCampaignStateGate(sqlite);
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder: MIGRATIONS });
  return db;
}
