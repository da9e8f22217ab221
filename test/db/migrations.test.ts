import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../src/db/connection.js';

interface Journal {
  entries: { idx: number; when: number; tag: string }[];
}
const journal = (): Journal => JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as Journal;

describe('the migrations folder', () => {
  it('lists every .sql file once, in number order, with times that only grow', () => {
    // drizzle's migrator applies a migration only when its time is after the last one applied: a
    // migration numbered later but timed earlier would be skipped on every existing database.
    const { entries } = journal();
    const files = readdirSync(MIGRATIONS_FOLDER)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.slice(0, -4))
      .sort();
    expect(entries.map((e) => e.tag)).toEqual(files);
    entries.forEach((e, i) => {
      expect(e.tag.slice(0, 4)).toBe(String(e.idx).padStart(4, '0'));
      if (i > 0) {
        expect(e.idx).toBeGreaterThan(entries[i - 1]?.idx ?? Number.POSITIVE_INFINITY);
        expect(e.when).toBeGreaterThan(entries[i - 1]?.when ?? Number.POSITIVE_INFINITY);
      }
    });
  });

  it('has one line of snapshots, each naming the one before it', () => {
    const { entries } = journal();
    let prev = '00000000-0000-0000-0000-000000000000';
    const seen = new Set<string>();
    for (const e of entries) {
      const n = e.tag.slice(0, 4);
      const snap = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', `${n}_snapshot.json`), 'utf8')) as { id: string; prevId: string };
      expect({ migration: e.tag, prevId: snap.prevId }).toEqual({ migration: e.tag, prevId: prev });
      expect(seen.has(snap.id)).toBe(false);
      seen.add(snap.id);
      prev = snap.id;
    }
  });

  it('matches the schema: drizzle-kit generate finds nothing to migrate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-migrations-'));
    const out = join(dir, 'migrations');
    cpSync(MIGRATIONS_FOLDER, out, { recursive: true });
    const root = resolve(import.meta.dirname, '..', '..');
    const config = join(root, `drizzle.check-${process.pid}.config.ts`);
    writeFileSync(
      config,
      `import { defineConfig } from 'drizzle-kit';\nexport default defineConfig({ dialect: 'sqlite', schema: ${JSON.stringify(join(root, 'src/db/schema.ts'))}, out: ${JSON.stringify(relative(root, out))} });\n`,
    );
    let output: string;
    try {
      const run = spawnSync(join(root, 'node_modules', '.bin', 'drizzle-kit'), ['generate', '--config', config], { cwd: root, encoding: 'utf8' });
      output = `${run.stdout}${run.stderr}`;
      expect(run.status, output).toBe(0);
    } finally {
      execFileSync('rm', ['-f', config]);
    }
    expect(output).toContain('No schema changes');
    expect(readdirSync(out).filter((f) => f.endsWith('.sql'))).toHaveLength(journal().entries.length);
  }, 120_000);
});
