import { chmodSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backupDatabase, restoreDatabase } from '../../src/db/backup.js';
import { openDatabase } from '../../src/db/connection.js';

describe('backup files are private', () => {
  it('a backup, and the database a restore writes, are readable and writable by their owner alone (0600)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-backup-mode-'));
    const live = join(dir, 'live.db');
    openDatabase(live).$client.close();
    // A live file anyone may read: a backup must not inherit its mode.
    chmodSync(live, 0o644);
    const copy = join(dir, 'copy.db');
    await backupDatabase(live, copy);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    const restored = join(dir, 'restored.db');
    await restoreDatabase(copy, restored);
    expect(statSync(restored).mode & 0o777).toBe(0o600);
  });
});
