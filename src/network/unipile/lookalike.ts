import { z } from 'zod';
import { normalizeProfileUrl, profileSlug } from '../../core/leads/url.js';
import { networkError, type LookalikeInput, type Profile } from '../../core/network/provider.js';
import { fingerprint } from './cursor.js';

/**
 * Unipile has no lookalike endpoint, so a lookalike pool is a classic people search built from
 * the seed: its title (or the caller's job-title keywords) as a title filter, and its location
 * (or the caller's countries) as a location filter. This module holds the pure parts; the
 * provider makes the calls.
 */

/** The slug or provider id in a seed; null for websites, domains and anything else. */
export function seedIdentifier(seed: string): string | null {
  const t = seed.trim();
  const withScheme = /^(?:[a-z]{2,3}\.)?linkedin\.com\//i.test(t) ? `https://${t}` : t;
  const url = normalizeProfileUrl(withScheme);
  if (url !== null) return profileSlug(url);
  // A bare identifier keeps its case: provider ids are case-sensitive.
  return /^[\p{L}\p{N}_-]{2,100}$/u.test(t) ? t : null;
}

export interface LookalikeQuery {
  seed: string;
  jobTitleKeywords: string[];
  countries: string[];
}

/**
 * Trimmed, de-duplicated, order- and case-free filters, so an extend with the same seed and
 * filters continues from its cursor. Countries must be ISO 3166-1 alpha-2.
 */
export function normalizeLookalike(input: LookalikeInput): LookalikeQuery & { scope: string } {
  const seed = seedIdentifier(input.seed);
  if (seed === null)
    throw networkError('validation_error', 'Give a personal profile URL or identifier as seed; websites and domains are not accepted.', { fields: ['seed'] });
  const countries = input.countries.map((c, i) => {
    if (!/^[A-Za-z]{2}$/.test(c.trim()))
      throw networkError('validation_error', 'Countries are ISO 3166-1 alpha-2 codes like DE or US.', { fields: [`countries[${i}]`] });
    return c.trim().toUpperCase();
  });
  const keywords = [...new Set(input.jobTitleKeywords.map((k) => k.trim().toLowerCase()).filter((k) => k !== ''))].sort();
  const uniqueCountries = [...new Set(countries)].sort();
  return { seed, jobTitleKeywords: keywords, countries: uniqueCountries, scope: fingerprint('lookalike', seed.toLowerCase(), keywords, uniqueCountries) };
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** English name of an ISO country code, for LinkedIn's location lookup; null when the code names no region. */
export const countryName = (code: string): string | null => regionNames.of(code) ?? null;

/** LinkedIn boolean syntax: `"VP Sales" OR CTO`. */
export function titleFilter(terms: readonly string[]): string | undefined {
  const cleaned = terms.map((t) => t.replace(/"/g, '').trim()).filter((t) => t !== '');
  if (cleaned.length === 0) return undefined;
  return cleaned.map((t) => (/\s/.test(t) ? `"${t}"` : t)).join(' OR ');
}

/** What a lookalike cursor carries, so later pages need no second look at the seed. */
export const LookalikeCursor = z.object({
  /** The classic search body built for this pool. */
  b: z.record(z.string(), z.unknown()),
  /** Unipile's cursor for the next page. */
  c: z.string().min(1),
  /** The seed's provider id, kept out of the candidates. */
  p: z.string(),
});
export type LookalikeCursor = z.infer<typeof LookalikeCursor>;

/** A candidate matches when its title (or headline) contains any keyword; no keywords match all. */
export function matchesKeywords(candidate: Profile, keywords: readonly string[]): boolean {
  if (keywords.length === 0) return true;
  const title = `${candidate.jobTitle} ${candidate.headline}`.toLowerCase();
  return keywords.some((k) => title.includes(k));
}
