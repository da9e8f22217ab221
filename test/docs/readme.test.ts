import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README_END, README_START, toolTable, withToolTable } from '../../src/docs/tools.js';
import { tools } from '../../src/tools/index.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('has the generated tool table, current with the registry (run `npm run docs` when this fails)', () => {
    expect(readme).toContain(README_START);
    expect(withToolTable(readme, tools)).toBe(readme);
  });

  it('the table names every tool once, with its route', () => {
    const table = readme.slice(readme.indexOf(README_START), readme.indexOf(README_END));
    for (const t of tools) expect(table.match(new RegExp(`\\| \`${t.name}\` \\|`, 'g'))).toHaveLength(1);
    expect(table).toContain('`GET /public/v1/campaigns/{campaignId}`');
  });

  it('regenerating replaces a stale table and keeps the rest', () => {
    const stale = `intro\n${README_START}\n| old |\n${README_END}\noutro\n`;
    const fresh = withToolTable(stale, tools);
    expect(fresh).toBe(`intro\n${README_START}\n${toolTable(tools)}\n${README_END}\noutro\n`);
    expect(() => withToolTable('no markers', tools)).toThrow(/markers/);
  });
});
