import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { describe, expect, it } from 'vitest';
import { mailboxSentOnDay } from '../../src/core/mailboxes/store.js';
import { MIGRATIONS_FOLDER, openDatabase } from '../../src/db/connection.js';

const TAG = '0033_mailbox_daily';

describe('migration 0033 (mailbox_daily)', () => {
  it('counts the sends a database already holds, per mailbox and UTC day, failed sends left out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-mailbox-daily-'));
    try {
      // The database as it stood before the migration: every migration up to it.
      const folder = join(dir, 'migrations');
      cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
      const journalPath = join(folder, 'meta', '_journal.json');
      const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
      const at = journal.entries.findIndex((e) => e.tag === TAG);
      expect(at).toBeGreaterThan(0);
      journal.entries = journal.entries.slice(0, at);
      writeFileSync(journalPath, JSON.stringify(journal));
      const path = join(dir, 'outreach.db');
      const sqlite = new Database(path);
      migrate(drizzle(sqlite), { migrationsFolder: folder });
      const insert = sqlite.prepare(
        `INSERT INTO email_sends (id, message_id, mailbox_id, lead_id, campaign_id, address, subject, state, at)
         VALUES (?, ?, ?, 'lead_x', 'cmp_x', 'x@example.com', 's', ?, ?)`,
      );
      const monday = Date.parse('2026-11-23T23:59:59Z');
      const rows: [string, string, number][] = [
        ['mbx_a', 'sent', monday],
        ['mbx_a', 'sending', monday - 3_600_000],
        ['mbx_a', 'failed', monday - 60_000],
        ['mbx_a', 'sent', monday + 1000],
        ['mbx_b', 'sent', monday],
      ];
      rows.forEach(([mailbox, state, time], i) => insert.run(`es_${i}`, `<m${i}@outreach.test>`, mailbox, state, time));
      sqlite.close();

      const db = openDatabase(path);
      try {
        expect(mailboxSentOnDay({ db }, 'mbx_a', monday)).toBe(2);
        expect(mailboxSentOnDay({ db }, 'mbx_a', monday + 1000)).toBe(1);
        expect(mailboxSentOnDay({ db }, 'mbx_b', monday)).toBe(1);
        expect(db.$client.prepare('SELECT count(*) FROM mailbox_daily').pluck().get()).toBe(3);
      } finally {
        db.$client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
