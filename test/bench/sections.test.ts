import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENCY_SECTION, carrySection, SCALE_SECTION, sectionOf, withSection } from '../../bench/lib/sections.js';
import { writeScaleSection } from '../../bench/scale.js';

const agency = `${AGENCY_SECTION.begin}\n## Scale simulation at 10× (agency)\n\nfigures of its own run\n${AGENCY_SECTION.end}`;
const scale = (what: string) => `${SCALE_SECTION.begin}\n## Scale simulation\n\n${what}\n${SCALE_SECTION.end}`;

/**
 * RESULTS.md's sections: a whole `npm run bench` rewrites the file and must keep the agency
 * run's section, which only `npm run bench:scale -- --agency` measures (a whole run once dropped
 * it); each scale profile replaces its own section and no other.
 */
describe('bench: the sections of RESULTS.md', () => {
  it('a rewrite of the whole file keeps the agency section, byte for byte', () => {
    const previous = `# Benchmark results\n\nold targets\n\n${scale('old 200 accounts')}\n\n${agency}\n`;
    const next = '# Benchmark results\n\nnew targets\n';
    const out = carrySection(previous, next, AGENCY_SECTION);
    expect(out.startsWith(next.trimEnd())).toBe(true);
    expect(sectionOf(out, AGENCY_SECTION)).toBe(agency);
    expect(out).not.toContain('old targets');
    // The 200-account section is not carried: the whole run measures it again.
    expect(sectionOf(out, SCALE_SECTION)).toBeNull();
    // Nothing to carry, or a fresh section already there: the new text as it is.
    expect(carrySection('# Benchmark results\n', next, AGENCY_SECTION)).toBe(next);
    const fresh = `${next}\n${agency.replace('figures of its own run', 'newer figures')}\n`;
    expect(carrySection(previous, fresh, AGENCY_SECTION)).toBe(fresh);
  });

  it('each scale profile replaces its own section and leaves the other where it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-sections-'));
    try {
      const file = join(dir, 'RESULTS.md');
      writeFileSync(file, `# Benchmark results\n\ntargets\n\n${scale('first')}\n\n${agency}\n`);
      writeScaleSection(file, `${scale('second')}\n`);
      const text = readFileSync(file, 'utf8');
      expect(sectionOf(text, SCALE_SECTION)).toBe(scale('second'));
      expect(sectionOf(text, AGENCY_SECTION)).toBe(agency);
      expect(text.indexOf(SCALE_SECTION.begin)).toBeLessThan(text.indexOf(AGENCY_SECTION.begin));
      expect(text.match(/scale:begin/g)).toHaveLength(1);
      // A file without the section gets it appended; a replacement keeps "$" in the figures as written.
      const bare = join(dir, 'bare.md');
      writeFileSync(bare, '# Benchmark results\n\ntargets\n');
      writeScaleSection(bare, `${scale('costs $1 and $& a call')}\n`);
      expect(sectionOf(readFileSync(bare, 'utf8'), SCALE_SECTION)).toBe(scale('costs $1 and $& a call'));
      writeScaleSection(bare, `${scale('now $2 and $$')}\n`);
      expect(sectionOf(readFileSync(bare, 'utf8'), SCALE_SECTION)).toBe(scale('now $2 and $$'));
      expect(withSection('# x\n', 'y', SCALE_SECTION)).toBe('# x\n\ny\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
