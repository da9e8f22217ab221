import { resolve } from 'node:path';
import { resolveSettings, UsageError } from '../config.js';
import { BackupError, backupDatabase, restoreDatabase } from '../db/backup.js';
import { parse, stdout } from './shared.js';

export const BACKUP_USAGE = `  backup --to FILE [--db PATH]
                        Copy the database to FILE with SQLite's online backup: consistent while
                        the server runs and writes. FILE must not exist yet.
  restore --from FILE [--db PATH]
                        Put a backup in place of the database. Refuses while a server (or
                        outreach mcp) has the database open, and a file that is not a backup
                        of this project. The replaced database is kept as <db>.before-restore-<time>.`;

const asUsage = (err: unknown): unknown => (err instanceof BackupError ? new UsageError(err.message) : err);

export async function backup(args: string[]): Promise<void> {
  const { values } = parse(args, { to: { type: 'string' }, db: { type: 'string' } });
  if (!values.to) throw new UsageError('--to: required (the file to write the backup to)');
  const { dbPath } = resolveSettings({ db: values.db });
  if (dbPath === ':memory:') throw new UsageError('--db: an in-memory database has nothing to back up');
  const to = resolve(values.to);
  try {
    const info = await backupDatabase(dbPath, to);
    stdout(`Backed up ${dbPath} to ${to} (${info.bytes} bytes, schema ${info.schema}).`);
  } catch (err) {
    throw asUsage(err);
  }
}

export async function restore(args: string[]): Promise<void> {
  const { values } = parse(args, { from: { type: 'string' }, db: { type: 'string' } });
  if (!values.from) throw new UsageError('--from: required (the backup file to restore)');
  const { dbPath } = resolveSettings({ db: values.db });
  if (dbPath === ':memory:') throw new UsageError('--db: cannot restore into an in-memory database');
  try {
    const info = await restoreDatabase(resolve(values.from), dbPath);
    stdout(`Restored ${resolve(values.from)} into ${dbPath} (schema ${info.schema}).`);
    if (info.previous) stdout(`The database it replaced is kept at ${info.previous}.`);
    if (info.schema < info.known) stdout(`The next start migrates it to schema ${info.known}, after copying it beside the database.`);
  } catch (err) {
    throw asUsage(err);
  }
}
