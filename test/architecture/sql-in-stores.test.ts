import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * An entity's SQL lives in its store (src/core/<entity>/store.ts) or in src/db/, nowhere else
 * (docs/architecture.md): no other file in src prepares a statement on the connection or
 * writes a statement's text.
 */
const root = join(import.meta.dirname, '../../src');

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

const RAW_SQL = [/\$client\s*\.\s*(prepare|exec|pragma|transaction)\b/, /\bsql\.raw\(/, /['"`]\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|PRAGMA)\b/];

describe('SQL text', () => {
  it('appears only in src/db/ and the stores', () => {
    const found: string[] = [];
    for (const file of sources(root)) {
      const rel = relative(root, file);
      if (rel.startsWith('db/') || rel.endsWith('/store.ts')) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(\*|\/\/)/.test(line)) return;
          if (RAW_SQL.some((re) => re.test(line))) found.push(`src/${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
