import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * An entity's SQL lives in its store (src/core/<entity>/store.ts, or for the ports the network
 * adapters declare, src/core/network/<port>-store.ts) or in src/db/, nowhere else
 * (docs/architecture.md, "Stores"): no other file in src writes a statement's text, builds a
 * drizzle SQL fragment, prepares a statement or touches the connection's client.
 */
const root = join(import.meta.dirname, '../../src');

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

const isStore = (rel: string): boolean => rel.startsWith('db/') || rel.endsWith('/store.ts') || /^core\/network\/[\w-]+-store\.ts$/.test(rel);

/** Statement text, drizzle's SQL fragments and placeholders, prepared statements, the raw client. */
const SQL_TEXT = [
  /['"`]\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|PRAGMA)\b/,
  /\bsql\s*`/,
  /\bsql(<[^>]*>)?\s*\.\s*(raw|placeholder|join|empty)\s*\(/,
  /\bsql<[^>]*>\s*`/,
  /\.\s*prepare\s*\(/,
  /\$client\b/,
];

/** A query built on the connection: `db.select(`, `ctx.db\n  .insert(`, …, or src/db's `countRows(db, table, where)`. */
const QUERY_BUILDER = /\bdb\s*\.\s*(select|selectDistinct|insert|update|delete|\$count)\s*\(|\bcountRows\s*\(/g;

/** The file's text with comments blanked (line numbers kept), so prose about SQL does not count. */
const code = (text: string): string =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line) => (/^\s*\/\//.test(line) ? '' : line))
    .join('\n');

const outsideStores = (): { rel: string; text: string }[] =>
  [...sources(root)]
    .map((file) => ({ rel: relative(root, file), file }))
    .filter(({ rel }) => !isStore(rel))
    .map(({ rel, file }) => ({ rel, text: code(readFileSync(file, 'utf8')) }));

describe('SQL', () => {
  it('has no statement text, fragment, prepared statement or client outside src/db/ and the stores', () => {
    const found: string[] = [];
    for (const { rel, text } of outsideStores()) {
      text.split('\n').forEach((line, i) => {
        if (SQL_TEXT.some((re) => re.test(line))) found.push(`src/${rel}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('builds no query on the connection outside src/db/ and the stores', () => {
    const built: Record<string, number> = {};
    for (const { rel, text } of outsideStores()) {
      const n = text.match(QUERY_BUILDER)?.length ?? 0;
      if (n > 0) built[rel] = n;
    }
    expect(built).toEqual({});
  });

  it('catches what it is meant to catch', () => {
    const lines = [
      'ctx.db.$client.inTransaction',
      'db.select().from(t).where(sql`1 = 1`)',
      'x.prepare()',
      'sql<number>`count(*)`',
      'sql.placeholder("id")',
      '"SELECT 1"',
    ];
    for (const line of lines)
      expect(
        SQL_TEXT.some((re) => re.test(line)),
        line,
      ).toBe(true);
    expect('ctx.db\n    .select({ id: t.id })'.match(QUERY_BUILDER)).toHaveLength(1);
    expect('if (countRows(ctx.db, leads, eq(leads.campaignId, id)) === 0)'.match(QUERY_BUILDER)).toHaveLength(1);
    expect(isStore('core/leads/store.ts') && isStore('core/network/unipile-store.ts') && isStore('db/sql/leads.ts')).toBe(true);
    expect(isStore('core/leads/add.ts') || isStore('core/network/profiles.ts')).toBe(false);
  });
});
