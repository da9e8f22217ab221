import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';

/**
 * Triggers guard and never decide (docs/architecture.md, "Triggers"): every trigger the
 * migrations leave runs before a write and does nothing but refuse it: a write from outside a
 * table's one writer (its gate closed), or a kind of write no writer makes (an append-only table
 * changed, a member deleted). The architecture document lists each one with what it guards.
 */
describe('the triggers the migrations leave', () => {
  const db = openDatabase(':memory:');
  const triggers = db.$client
    .prepare<[], { name: string; tbl_name: string; sql: string }>("SELECT name, tbl_name, sql FROM main.sqlite_master WHERE type = 'trigger' ORDER BY name")
    .all();

  it('only refuse a write from a wrong writer: no trigger writes a table', () => {
    expect(triggers.map((t) => `${t.tbl_name}.${t.name}`)).toEqual([
      'audit_events.audit_events_append_only_delete',
      'audit_events.audit_events_append_only_update',
      'audit_targets.audit_targets_append_only_delete',
      'audit_targets.audit_targets_append_only_update',
      'campaigns.campaigns_state_insert_guard',
      'campaigns.campaigns_state_update_guard',
      'drafts.drafts_writer_delete_guard',
      'drafts.drafts_writer_insert_guard',
      'drafts.drafts_writer_update_guard',
      'members.members_no_delete',
    ]);
    for (const t of triggers) {
      const sql = t.sql.replace(/\s+/g, ' ');
      expect(sql, t.name).toMatch(
        /^CREATE TRIGGER `\w+` BEFORE (INSERT|UPDATE|DELETE)\b[^;]*?( WHEN NOT (campaign_state_writer|drafts_writer)\(\))? BEGIN SELECT RAISE\(ABORT, '[^']+'\); END$/,
      );
      expect(sql, t.name).not.toMatch(/\b(INSERT INTO|UPDATE `?\w+`? SET|DELETE FROM)\b/i);
    }
  });

  it('are each named, with what they guard, in docs/architecture.md', () => {
    const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Triggers'));
    expect(section.length).toBeGreaterThan(0);
    for (const t of triggers) expect(section, t.name).toContain(`\`${t.name}\``);
  });
});
