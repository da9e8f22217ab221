/**
 * RESULTS.md holds sections that different commands write: `npm run bench` the whole file, the
 * scale simulation its own section, and `npm run bench:scale -- --agency` (an hour's run that no
 * other command repeats) the agency section. A section sits between two marker lines.
 */
export interface SectionMarkers {
  begin: string;
  end: string;
}

/** The section between `m`'s markers in `text`, markers included, or null when there is none. */
export function sectionOf(text: string, m: SectionMarkers): string | null {
  const a = text.indexOf(m.begin);
  const b = a < 0 ? -1 : text.indexOf(m.end, a);
  return a >= 0 && b > a ? text.slice(a, b + m.end.length) : null;
}

/** `text` with its section between `m`'s markers replaced by `section` (markers included), or with `section` appended. */
export function withSection(text: string, section: string, m: SectionMarkers): string {
  const old = sectionOf(text, m);
  const out = old !== null ? text.replace(old, () => section.trimEnd()) : `${text.trimEnd()}\n\n${section}`;
  return out.endsWith('\n') ? out : `${out}\n`;
}

/**
 * `next`, with the section of `previous` between `m`'s markers appended when `next` has none:
 * a rewrite of the file keeps figures that only another command measures.
 */
export function carrySection(previous: string, next: string, m: SectionMarkers): string {
  const kept = sectionOf(previous, m);
  return kept === null || sectionOf(next, m) !== null ? next : withSection(next, kept, m);
}

/** The 200-account scale simulation's section (`npm run bench:scale`, the last step of `npm run bench`). */
export const SCALE_SECTION: SectionMarkers = { begin: '<!-- scale:begin -->', end: '<!-- scale:end -->' };
/** The agency run's section (`npm run bench:scale -- --agency`). */
export const AGENCY_SECTION: SectionMarkers = { begin: '<!-- scale-agency:begin -->', end: '<!-- scale-agency:end -->' };
