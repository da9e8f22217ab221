import { networkError, type Profile, type SearchPage } from '../../core/network/provider.js';
import { basicProfile, encodeTraits, searchResult, simPerson, type Traits } from './profiles.js';
import { at, hashHex, Rng } from './rng.js';
import { CITIES, COMPANIES, FIRST_NAMES, FUNCTIONS, INDUSTRIES, LAST_NAMES, SENIORITIES, SENIORITY_WEIGHTS, jobTitle } from './words.js';

/**
 * Search and lookalike pages. A result set is a virtual list: entry `i` is minted from a hash of
 * (query fingerprint, i) with traits drawn from the sets the query allows, so any page is
 * computed directly from its offset, pages never overlap, and every result looks up as itself.
 */

export const SEARCH_CAPS = { classic: 1000, sales_nav: 2500 } as const;
export const PAGE_LIMITS = { classic: 50, sales_nav: 100, lookalike: 100 } as const;
/** People behind a query before its filters narrow them; sets the size of narrow searches. */
const POPULATION = 5_000_000;

interface Pair {
  fn: number;
  seniority: number;
}

const ALL_PAIRS: readonly Pair[] = FUNCTIONS.flatMap((_, fn) => SENIORITIES.map((_s, seniority) => ({ fn, seniority })));
const indexes = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const titleOf = (p: Pair): string => jobTitle(at(FUNCTIONS, p.fn), p.seniority);

export const clampLimit = (limit: number, max: number): number => Math.min(max, Math.max(1, Number.isFinite(limit) ? Math.floor(limit) : max));

// ---- cursors -------------------------------------------------------------------------------

/** Opaque to clients; bound to the query it came from so it cannot be replayed elsewhere. */
export const encodeCursor = (fingerprint: string, offset: number): string => Buffer.from(`${fingerprint}:${offset}`).toString('base64url');

export function decodeCursor(cursor: string | null | undefined, fingerprint: string, total: number): number {
  if (cursor === null || cursor === undefined || cursor === '') return 0;
  const [fp, raw] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  const offset = Number(raw);
  if (fp !== fingerprint || !Number.isInteger(offset) || offset < 0 || offset >= total) {
    throw networkError('validation_error', 'The cursor does not belong to this search. Start again without a cursor.', { fields: ['cursor'] });
  }
  return offset;
}

// ---- keyword search ------------------------------------------------------------------------

const STOPWORDS = new Set(['a', 'an', 'and', 'at', 'for', 'from', 'in', 'of', 'on', 'or', 'the', 'to', 'with', 'who', 'based', 'people', 'working']);

const wordsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');

/** Prefix match with a crude plural strip: `engineers` finds Engineering, `ctos` finds CTO. */
const tokenMatches = (token: string, text: string): boolean =>
  wordsOf(text).some((w) => w.startsWith(token) || (token.length > 3 && token.endsWith('s') && w.startsWith(token.slice(0, -1))));

/** Allowed indexes per dimension; `pairs` index ALL_PAIRS. */
interface Allowed {
  pairs: number[];
  companies: number[];
  cities: number[];
  firsts: number[];
  lasts: number[];
}

/**
 * Each keyword narrows the first dimension it names (title, industry, company, place, first or
 * last name); keywords the network does not know are ignored, as a fuzzy search would.
 */
function allowedFor(keywords: string): Allowed & { narrowed: boolean } {
  const allowed: Allowed = {
    pairs: indexes(ALL_PAIRS.length),
    companies: indexes(COMPANIES.length),
    cities: indexes(CITIES.length),
    firsts: indexes(FIRST_NAMES.length),
    lasts: indexes(LAST_NAMES.length),
  };
  const dimensions: [keyof Allowed, number, (i: number) => string][] = [
    ['pairs', ALL_PAIRS.length, (i) => titleOf(at(ALL_PAIRS, i))],
    ['companies', COMPANIES.length, (i) => at(INDUSTRIES, at(COMPANIES, i).industry)],
    ['companies', COMPANIES.length, (i) => at(COMPANIES, i).name],
    ['cities', CITIES.length, (i) => `${at(CITIES, i).name} ${at(CITIES, i).countryName}`],
    ['firsts', FIRST_NAMES.length, (i) => at(FIRST_NAMES, i)],
    ['lasts', LAST_NAMES.length, (i) => at(LAST_NAMES, i)],
  ];
  let narrowed = false;
  for (const token of wordsOf(keywords)) {
    if (token.length < 2 || STOPWORDS.has(token)) continue;
    const dimension = dimensions.find(([, size, text]) => indexes(size).some((i) => tokenMatches(token, text(i))));
    if (!dimension) continue;
    const [key, , text] = dimension;
    allowed[key] = allowed[key].filter((i) => tokenMatches(token, text(i)));
    narrowed = true;
  }
  return { ...allowed, narrowed };
}

/** The keywords inside a search URL (`keywords=` or Sales Navigator's `keywords:`); else none. */
export function keywordsFromSearchUrl(url: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(new URL(url).search.replace(/\+/g, ' '));
  } catch {
    throw networkError('validation_error', 'The search URL is not a valid URL.', { fields: ['url'] });
  }
  return /keywords[:=]([^&,)]+)/i.exec(decoded)?.[1] ?? null;
}

function slugFor(rng: Rng, traits: Traits, nonce: number, firsts: readonly number[], lasts: readonly number[]): string {
  return `${at(FIRST_NAMES, rng.pick(firsts))}-${at(LAST_NAMES, rng.pick(lasts))}-${encodeTraits(traits, nonce)}`;
}

export interface SearchSpec {
  type: 'classic' | 'sales_nav';
  query?: string;
  url?: string;
  limit: number;
  cursor?: string | null;
}

export function searchPage(spec: SearchSpec): SearchPage {
  const source = spec.query !== undefined ? `q:${spec.query.trim().toLowerCase()}` : `u:${spec.url?.trim() ?? ''}`;
  const keywords = spec.query ?? keywordsFromSearchUrl(spec.url ?? '') ?? '';
  const fingerprint = hashHex(`search|${spec.type}|${source}`, 12);
  const allowed = allowedFor(keywords);
  const cap = SEARCH_CAPS[spec.type];
  const fraction =
    (allowed.pairs.length / ALL_PAIRS.length) *
    (allowed.companies.length / COMPANIES.length) *
    (allowed.cities.length / CITIES.length) *
    (allowed.firsts.length / FIRST_NAMES.length) *
    (allowed.lasts.length / LAST_NAMES.length);
  const jitter = 0.7 + 0.6 * new Rng(`size:${fingerprint}`).next();
  const total = allowed.narrowed ? Math.min(cap, Math.floor(POPULATION * fraction * jitter)) : cap;
  const offset = decodeCursor(spec.cursor, fingerprint, total);
  const end = Math.min(total, offset + clampLimit(spec.limit, PAGE_LIMITS[spec.type]));

  const results = [];
  for (let i = offset; i < end; i++) {
    const rng = new Rng(`search:${fingerprint}:${i}`);
    // Unnarrowed titles follow the population's seniority mix; narrowed ones are uniform.
    const pair =
      allowed.pairs.length === ALL_PAIRS.length
        ? { fn: rng.int(FUNCTIONS.length), seniority: rng.weighted(SENIORITY_WEIGHTS) }
        : at(ALL_PAIRS, rng.pick(allowed.pairs));
    const traits = { ...pair, company: rng.pick(allowed.companies), city: rng.pick(allowed.cities) };
    results.push(searchResult(simPerson(slugFor(rng, traits, i, allowed.firsts, allowed.lasts)).profile));
  }
  return { results, cursor: end < total ? encodeCursor(fingerprint, end) : null };
}

// ---- lookalike -----------------------------------------------------------------------------

export interface LookalikeSpec {
  seedSlug: string;
  /** Lower-cased, trimmed, non-empty. */
  jobTitleKeywords: readonly string[];
  /** Upper-case ISO alpha-2. */
  countries: readonly string[];
  cursor: string | null;
  limit: number;
}

/** Similarity to the seed in [0, 1]: function, seniority, industry, then place. */
export function similarity(seed: Traits, c: Traits): number {
  const seedCity = at(CITIES, seed.city);
  const city = at(CITIES, c.city);
  return (
    (c.fn === seed.fn ? 0.4 : 0) +
    0.2 * (1 - Math.abs(c.seniority - seed.seniority) / (SENIORITIES.length - 1)) +
    (at(COMPANIES, c.company).industry === at(COMPANIES, seed.company).industry ? 0.25 : 0) +
    (c.city === seed.city ? 0.15 : city.country === seedCity.country ? 0.1 : 0)
  );
}

/**
 * The ranked candidate pool for one (seed, titles, countries). It is finite, so a campaign that
 * keeps extending reaches the end; narrow filters give smaller pools, impossible ones none.
 */
export function lookalikePool(spec: Omit<LookalikeSpec, 'cursor' | 'limit'>): { fingerprint: string; slugs: string[] } {
  const seed = simPerson(spec.seedSlug).traits;
  const fingerprint = hashHex(`lookalike|${spec.seedSlug}|${spec.jobTitleKeywords.join('\n')}|${spec.countries.join(',')}`, 12);
  const pairs =
    spec.jobTitleKeywords.length === 0 ? ALL_PAIRS : ALL_PAIRS.filter((p) => spec.jobTitleKeywords.some((k) => titleOf(p).toLowerCase().includes(k)));
  const cities = indexes(CITIES.length).filter((c) => spec.countries.length === 0 || spec.countries.includes(at(CITIES, c).country));
  if (pairs.length === 0 || cities.length === 0) return { fingerprint, slugs: [] };

  const rng = new Rng(`pool:${fingerprint}`);
  const size = Math.max(10, Math.round((400 + rng.int(800)) * Math.sqrt((pairs.length / ALL_PAIRS.length) * (cities.length / CITIES.length))));
  // Draw near the seed so the ranking has real neighbours at the top.
  const pairWeights = pairs.map((p) => (p.fn === seed.fn ? 6 : 1) * ([4, 2, 1][Math.abs(p.seniority - seed.seniority)] ?? 0.3));
  const companyWeights = COMPANIES.map((c, i) => (i === seed.company ? 2 : c.industry === at(COMPANIES, seed.company).industry ? 6 : 1));
  const cityWeights = cities.map((c) => (c === seed.city ? 5 : at(CITIES, c).country === at(CITIES, seed.city).country ? 3 : 1));

  const ranked: { slug: string; score: number; tie: number }[] = [];
  for (let j = 0; j < size; j++) {
    const r = new Rng(`lookalike:${fingerprint}:${j}`);
    const pair = at(pairs, r.weighted(pairWeights));
    const traits = { ...pair, company: r.weighted(companyWeights), city: at(cities, r.weighted(cityWeights)) };
    const slug = slugFor(r, traits, j, indexes(FIRST_NAMES.length), indexes(LAST_NAMES.length));
    // Equal scores are ordered by a drawn key, not by name, so ties do not read alphabetically.
    if (slug !== spec.seedSlug) ranked.push({ slug, score: similarity(seed, traits), tie: r.next() });
  }
  ranked.sort((a, b) => b.score - a.score || a.tie - b.tie);
  return { fingerprint, slugs: ranked.map((c) => c.slug) };
}

export function lookalikePage(spec: LookalikeSpec): { candidates: Profile[]; cursor: string | null } {
  const { fingerprint, slugs } = lookalikePool(spec);
  if (slugs.length === 0) return { candidates: [], cursor: null };
  const offset = decodeCursor(spec.cursor, fingerprint, slugs.length);
  const end = Math.min(slugs.length, offset + clampLimit(spec.limit, PAGE_LIMITS.lookalike));
  return {
    candidates: slugs.slice(offset, end).map((slug) => basicProfile(simPerson(slug).profile)),
    cursor: end < slugs.length ? encodeCursor(fingerprint, end) : null,
  };
}
