import type { Statement } from 'better-sqlite3';
import { perDb } from './prepared.js';

/**
 * Rows read on every request (the caller's key, the workspace, the credit balance), kept in
 * memory until the database changes. Looking them up was most of an authenticated request's
 * database time; checking that nothing changed is one cheap counter read.
 *
 * "Changed" is judged conservatively, so a stale row is never served:
 * - this connection wrote anything: `total_changes()` moved (read on every lookup);
 * - another connection committed (the CLI revoking a key while the server runs, a second
 *   process on the same file): `PRAGMA data_version` moved. That read costs more, so it is
 *   made once per synchronous stretch of work (a microtask boundary), which is as if every
 *   lookup of that stretch happened at its start. The next stretch (the next request) sees
 *   the other connection's commit.
 */
class ReadCache {
  private readonly values = new Map<string, unknown>();
  private changes = -1;
  private version = -1;
  private versionChecked = false;

  constructor(
    private readonly totalChanges: Statement<[], number>,
    private readonly dataVersion: Statement<[], number>,
    private readonly inTransaction: () => boolean,
  ) {}

  /** The cached value of `key`, or `load()`'s; undefined (a missing row) is not kept. */
  get<T>(key: string, load: () => T | undefined): T | undefined {
    // A row read inside a transaction may yet be rolled back, which no counter shows.
    if (this.inTransaction()) return load();
    this.revalidate();
    if (this.values.has(key)) return this.values.get(key) as T;
    const value = load();
    if (value !== undefined) {
      // Keys are client-chosen (a digest of whatever was presented): bound the map.
      if (this.values.size >= MAX_ENTRIES) this.values.clear();
      this.values.set(key, value);
    }
    return value;
  }

  private revalidate(): void {
    const changes = this.totalChanges.get() as number;
    let version = this.version;
    if (!this.versionChecked) {
      version = this.dataVersion.get() as number;
      this.versionChecked = true;
      queueMicrotask(() => {
        this.versionChecked = false;
      });
    }
    if (changes !== this.changes || version !== this.version) {
      this.values.clear();
      this.changes = changes;
      this.version = version;
    }
  }
}

const MAX_ENTRIES = 1024;

export const readCache = perDb(
  (db) =>
    new ReadCache(
      db.$client.prepare<[], number>('SELECT total_changes()').pluck(),
      db.$client.prepare<[], number>('PRAGMA data_version').pluck(),
      () => db.$client.inTransaction,
    ),
);
