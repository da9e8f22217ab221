import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAILURE_RULES } from '../../src/network/sim/index.js';

/** The README's marker table must say what the simulator does. */
describe('README simulated network table', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const rows = readme.split('\n').filter((l) => /^\| `sim-/.test(l));
  const ops = ['lookup', 'search', 'connect', 'message'] as const;

  it('lists every failure marker', () => {
    expect(rows.map((r) => /`(sim-[a-z-]+)`/.exec(r)?.[1]).sort()).toEqual(FAILURE_RULES.map((r) => r.marker).sort());
  });

  it.each(FAILURE_RULES.map((r) => [r.marker, r] as const))('%s', (marker, rule) => {
    const cells = rows
      .find((r) => r.startsWith(`| \`${marker}\``))!
      .split('|')
      .slice(2, 6)
      .map((c) => c.trim());
    ops.forEach((op, i) => {
      if (rule.on.includes(op)) expect(cells[i]).toContain(`\`${rule.code}\``);
      else expect(cells[i]).toBe('works');
    });
  });
});
