import { normalizeProfileUrl, profileSlug } from '../leads/url.js';

/** A bare profile identifier: a slug or a provider id, with the slug characters of a profile URL. */
const IDENTIFIER = /^[\p{L}\p{M}\p{N}_-]{1,100}$/u;
/** `linkedin.com/in/…` typed without a scheme is still a profile URL, not a website. */
const SCHEMELESS_PROFILE = /^(?:www\.|[a-z]{2}\.)?linkedin\.com\/in\//i;

export const SEED_HINT = 'a personal profile URL like https://www.linkedin.com/in/<slug>, or the profile identifier (slug or provider id)';

/**
 * The seed as the worker hands it to the provider, or null when it is neither a personal
 * profile URL nor a bare identifier (websites, domains, company pages, search links). A URL
 * becomes its normal form; an identifier is kept as given, because provider ids are
 * case-sensitive.
 */
export function parseSeed(input: string): string | null {
  const text = input.trim();
  if (IDENTIFIER.test(text)) return text;
  return normalizeProfileUrl(SCHEMELESS_PROFILE.test(text) ? `https://${text}` : text);
}

/** How a seed reads in a campaign name or a message: the slug of a URL, or the identifier. */
export const seedLabel = (seed: string): string => (seed.startsWith('https://') ? profileSlug(seed) : seed);

export interface LookalikeQuery {
  seed: string;
  /** Lower-cased, trimmed, de-duplicated and sorted: matching is partial and case-free. */
  jobTitleKeywords: string[];
  /** Upper-case, de-duplicated and sorted. */
  countries: string[];
  /**
   * One string for the three: the same key means an extend continues the same pool. The seed
   * enters it by its label (a URL's slug), so a profile URL and its bare slug are one seed.
   */
  key: string;
  /** The key as jobs made before the seed entered by its label stored it (the full URL). */
  legacyKey: string;
}

/**
 * The canonical form of a lookalike query. Order, case and repeats of titles and countries do
 * not change what the provider returns, so they do not make an extend start fresh.
 */
export function lookalikeQuery(seed: string, jobTitleKeywords: readonly string[], countries: readonly string[]): LookalikeQuery {
  const titles = [...new Set(jobTitleKeywords.map((k) => k.trim().toLowerCase()))].sort();
  const codes = [...new Set(countries.map((c) => c.toUpperCase()))].sort();
  return {
    seed,
    jobTitleKeywords: titles,
    countries: codes,
    key: JSON.stringify([seedLabel(seed), titles, codes]),
    legacyKey: JSON.stringify([seed, titles, codes]),
  };
}
