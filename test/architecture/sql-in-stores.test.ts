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

/** A query built on the connection: `db.select(`, `ctx.db\n  .insert(`, … */
const QUERY_BUILDER = /\bdb\s*\.\s*(select|selectDistinct|insert|update|delete|\$count)\s*\(/g;

/**
 * Files that still build drizzle queries on the connection outside a store, with how many they
 * build. Issue 35 moves every entity's queries into its store; these entities have not moved
 * yet (their statements are plain drizzle calls, no SQL text, no fragment, no positional rows).
 * The list may only shrink: a file that builds more queries than listed fails, and so does one
 * listed that builds fewer (lower its number, or drop it when it reaches 0).
 */
const NOT_YET_IN_A_STORE: Record<string, number> = {
  'core/webhooks/deliveries.ts': 23,
  'core/auth/oauth.ts': 13,
  'core/webhooks/endpoints.ts': 8,
  'core/seed/load.ts': 9,
  'core/imports/background.ts': 9,
  'core/tasks/tasks.ts': 8,
  'core/conversations/threads.ts': 5,
  'core/safety/audit.ts': 6,
  'core/leads/exclude.ts': 6,
  'core/accounts/sync.ts': 6,
  'core/accounts/manage.ts': 6,
  'core/agents/agents.ts': 5,
  'core/exclusions/exclusions.ts': 3,
  'core/insights/overview.ts': 3,
  'core/sequences/senders.ts': 3,
  'core/leads/delete.ts': 3,
  'core/lookalike/launch.ts': 3,
  'core/conversations/record.ts': 2,
  'core/workspace/create.ts': 2,
  'core/leads/update.ts': 2,
  'core/accounts/list.ts': 2,
  'core/campaigns/lifecycle.ts': 2,
  'core/sequences/lead-sequence.ts': 2,
  'core/seed/fixture.ts': 1,
  'core/activity/list.ts': 1,
  'core/exclusions/page.ts': 1,
  'core/imports/csv.ts': 1,
  'core/inbox/send.ts': 1,
  'core/accounts/resolve.ts': 1,
  'core/campaigns/manage.ts': 1,
};

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

  it('builds no query on the connection outside src/db/ and the stores, but for the files not moved yet', () => {
    const built: Record<string, number> = {};
    for (const { rel, text } of outsideStores()) {
      const n = text.match(QUERY_BUILDER)?.length ?? 0;
      if (n > 0) built[rel] = n;
    }
    expect(built).toEqual(NOT_YET_IN_A_STORE);
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
    expect(isStore('core/leads/store.ts') && isStore('core/network/unipile-store.ts') && isStore('db/sql/leads.ts')).toBe(true);
    expect(isStore('core/leads/add.ts') || isStore('core/network/profiles.ts')).toBe(false);
  });
});
