import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, openDatabase, schemaState } from '../../src/db/connection.js';

/** A database made by the previous version: every migration but the last, with a row of data. */
function previousVersionDb(dir: string): { path: string; applied: number } {
  const folder = join(dir, 'migrations');
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: unknown[] };
  journal.entries.pop();
  writeFileSync(journalPath, JSON.stringify(journal));
  const path = join(dir, 'outreach.db');
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  migrate(drizzle(sqlite), { migrationsFolder: folder });
  // Data the copy must keep (a table of its own, so no migration touches it).
  sqlite.exec("CREATE TABLE probe (name TEXT); INSERT INTO probe VALUES ('Before the upgrade')");
  sqlite.close();
  return { path, applied: journal.entries.length };
}

describe('an upgrade copies the database before migrating it', () => {
  it('writes <db>.before-migrations-<from>-to-<to>, the database as it was, then migrates', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-upgrade-'));
    const { path, applied } = previousVersionDb(dir);
    const files: string[] = [];
    const db = openDatabase(path, { onBackup: (file) => files.push(file) });
    const total = applied + 1;
    expect(schemaState(db.$client)).toEqual({ applied: total, pending: 0 });
    db.$client.close();

    const copy = join(dir, `outreach.db.before-migrations-${applied}-to-${total}`);
    expect(files).toEqual([copy]);
    const before = new Database(copy, { readonly: true });
    try {
      expect(schemaState(before)).toEqual({ applied, pending: 1 });
      expect(before.prepare('SELECT name FROM probe').get()).toEqual({ name: 'Before the upgrade' });
      expect(before.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      before.close();
    }
    // Opening the current database again copies nothing more.
    openDatabase(path, { onBackup: (file) => files.push(file) }).$client.close();
    expect(files).toHaveLength(1);
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('does not copy a new, empty database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-upgrade-'));
    const files: string[] = [];
    openDatabase(join(dir, 'new.db'), { onBackup: (file) => files.push(file) }).$client.close();
    expect(files).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.includes('before-migrations'))).toEqual([]);
    expect(existsSync(join(dir, 'new.db'))).toBe(true);
  });
});
