import type { Experience, FullProfile, Profile, SearchResult } from '../../core/network/provider.js';
import { MARKERS, stripMarkers } from './markers.js';
import { at, hashHex, Rng, sha256 } from './rng.js';
import { ABOUT_OPENERS, CITIES, COMPANIES, EXPERIENCE_VERBS, FIRST_NAMES, FUNCTIONS, INDUSTRIES, LAST_NAMES, SENIORITY_WEIGHTS, jobTitle } from './words.js';

/** The attributes that search and lookalike reason about, as indexes into words.ts. */
export interface Traits {
  fn: number;
  seniority: number;
  company: number;
  city: number;
}

export interface SimPerson {
  slug: string;
  traits: Traits;
  profile: FullProfile;
}

const SLUG = /^[\p{L}\p{N}_-]{1,100}$/u;

/**
 * The slug of a personal profile URL: any linkedin.com host, `/in/<slug>`, optional trailing
 * slash, query or fragment; percent-decoded and lower-cased. Null for anything else.
 */
export function slugFromNetworkUrl(raw: string): string | null {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(url.protocol) || !/(^|\.)linkedin\.com$/i.test(url.hostname)) return null;
  const encoded = /^\/in\/([^/]+)\/?$/.exec(url.pathname)?.[1];
  if (encoded === undefined) return null;
  try {
    const slug = decodeURIComponent(encoded).toLowerCase();
    return SLUG.test(slug) ? slug : null;
  } catch {
    return null;
  }
}

export const networkUrlFor = (slug: string): string => `https://www.linkedin.com/in/${slug}`;

/**
 * Provider ids embed the slug (after a hash that makes them look opaque and lets us reject
 * forgeries), so a send addressed by provider id alone still reaches the right simulated
 * person after a restart, with no registry to persist.
 */
const PROVIDER_PREFIX = 'ACoAA';
const PROVIDER_HASH_LENGTH = 12;

export const providerIdFor = (slug: string): string =>
  PROVIDER_PREFIX + sha256(`pid:${slug}`).toString('base64url').slice(0, PROVIDER_HASH_LENGTH) + Buffer.from(slug).toString('base64url');

export function slugFromProviderId(id: string): string | null {
  if (!id.startsWith(PROVIDER_PREFIX)) return null;
  const slug = Buffer.from(id.slice(PROVIDER_PREFIX.length + PROVIDER_HASH_LENGTH), 'base64url').toString('utf8');
  return slug !== '' && providerIdFor(slug) === id ? slug : null;
}

/** A seed or recipient given as URL, provider id or bare slug. Domains and websites give null. */
export function resolveProfileIdentifier(identifier: string): string | null {
  const text = identifier.trim();
  if (text.includes('/') || /^https?:/i.test(text)) return slugFromNetworkUrl(text);
  const fromId = slugFromProviderId(text);
  if (fromId !== null) return fromId;
  const slug = text.toLowerCase();
  return SLUG.test(slug) ? slug : null;
}

/*
 * Search and lookalike mint slugs like `anna-schmidt-0k3j2m1a` whose last part encodes the
 * traits, so the minted person looks up with exactly the title, company and city that made it
 * match; a checksum byte keeps ordinary slug suffixes from being read as codes. Layout (41
 * bits, 8 base-36 characters): fn 4, seniority 3, company 6, city 6, nonce 14, then the 33-bit
 * payload scrambled (so neighbours do not share prefixes) and a checksum byte appended.
 */
const NONCE_LIMIT = 16384;
const PAYLOAD_BITS = 33n;
const PAYLOAD_MASK = (1n << PAYLOAD_BITS) - 1n;
const CODE_LIMIT = 2 ** 41;
const MULTIPLIER = 0x1b873593dn & PAYLOAD_MASK;
/** Inverse of MULTIPLIER modulo 2^33 (Newton's iteration; MULTIPLIER is odd). */
const INVERSE = [1, 2, 3, 4, 5, 6].reduce((x) => (x * (2n - MULTIPLIER * x)) & PAYLOAD_MASK, MULTIPLIER);

const scramble = (x: bigint): bigint => {
  const y = (x * MULTIPLIER) & PAYLOAD_MASK;
  return y ^ (y >> 17n);
};
const unscramble = (y: bigint): bigint => ((y ^ (y >> 17n)) * INVERSE) & PAYLOAD_MASK;

const checksum = (payload: bigint): number => at([...sha256(`sim-code:${payload}`)], 0);

export function encodeTraits(t: Traits, nonce: number): string {
  const payload = (((t.fn * 8 + t.seniority) * 64 + t.company) * 64 + t.city) * NONCE_LIMIT + (nonce % NONCE_LIMIT);
  const scrambled = scramble(BigInt(payload));
  return (scrambled * 256n + BigInt(checksum(scrambled))).toString(36).padStart(8, '0');
}

export function decodeTraits(part: string): Traits | null {
  if (!/^[0-9a-z]{8}$/.test(part)) return null;
  const value = parseInt(part, 36);
  if (value >= CODE_LIMIT) return null;
  const scrambled = BigInt(Math.floor(value / 256));
  if (checksum(scrambled) !== value % 256) return null;
  const payload = Math.floor(Number(unscramble(scrambled)) / NONCE_LIMIT);
  const city = payload % 64;
  const company = Math.floor(payload / 64) % 64;
  const seniority = Math.floor(payload / 4096) % 8;
  const fn = Math.floor(payload / 32768);
  if (fn >= FUNCTIONS.length || company >= COMPANIES.length || city >= CITIES.length) return null;
  return { fn, seniority, company, city };
}

const capitalise = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * `ada-lovelace` and `ada-lovelace-123` read as Ada Lovelace; a lone known first name keeps
 * it; anything else gets a generated name. Markers and trait codes are not part of the name.
 */
export function nameFromSlug(slug: string): { first: string; last: string | null } | null {
  const text = stripMarkers(slug);
  const parts = text.split(/[-_]+/).filter((p) => p !== '');
  if (parts.length > 0 && decodeTraits(at(parts, parts.length - 1)) !== null) parts.pop();
  const words: string[] = [];
  for (const part of parts) {
    if (!/^\p{L}{2,}$/u.test(part)) break;
    words.push(part);
  }
  if (words.length >= 2 && words.length <= 3) {
    const [first = '', ...rest] = words;
    return { first: capitalise(first), last: rest.map(capitalise).join(' ') };
  }
  if (words.length === 1 && (FIRST_NAMES as readonly string[]).includes(at(words, 0))) {
    return { first: capitalise(at(words, 0)), last: null };
  }
  return null;
}

const month = (index: number): string => `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
const locationOf = (city: number): string => `${at(CITIES, city).name}, ${at(CITIES, city).countryName}`;
const companyUrl = (name: string): string => `https://www.linkedin.com/company/${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

/** The one simulated person behind a slug. Pure: the same slug gives the same person everywhere. */
export function simPerson(slug: string): SimPerson {
  const rng = new Rng(`profile:${slug}`);
  // Draw every trait even when a code overrides it, so the draws after it stay in place.
  const drawn: Traits = {
    fn: rng.int(FUNCTIONS.length),
    seniority: rng.weighted(SENIORITY_WEIGHTS),
    company: rng.int(COMPANIES.length),
    city: rng.int(CITIES.length),
  };
  const traits = decodeTraits(slug.split(/[-_]/).pop() ?? '') ?? drawn;
  const generatedFirst = capitalise(rng.pick(FIRST_NAMES));
  const generatedLast = capitalise(rng.pick(LAST_NAMES));
  const parsed = nameFromSlug(slug);
  const firstName = parsed?.first ?? generatedFirst;
  const lastName = parsed?.last ?? generatedLast;

  const fn = at(FUNCTIONS, traits.fn);
  const company = at(COMPANIES, traits.company);
  const industry = at(INDUSTRIES, company.industry);
  const title = jobTitle(fn, traits.seniority);
  const headline = at([`${title} at ${company.name}`, `${title} @ ${company.name} | ${industry}`, `${title} | ${fn.team} in ${industry}`], rng.int(3));

  const experience: Experience[] = [];
  let start = (2025 - rng.int(6)) * 12 + rng.int(12);
  let end: number | null = null;
  let seniority = traits.seniority;
  const count = rng.range(1, 10);
  for (let k = 0; k < count; k++) {
    const current = k === 0;
    const jobFn = current || rng.chance(0.75) ? fn : rng.pick(FUNCTIONS);
    const jobCompany = current ? company : rng.pick(COMPANIES);
    const jobCity = current || rng.chance(0.7) ? traits.city : rng.int(CITIES.length);
    if (!current) {
      seniority = Math.max(0, seniority - rng.int(2));
      end = start - rng.int(3);
      start = end - rng.range(10, 48);
    }
    experience.push({
      company: jobCompany.name,
      position: jobTitle(jobFn, seniority),
      location: locationOf(jobCity),
      description: rng.chance(0.3)
        ? null
        : `${rng.pick(EXPERIENCE_VERBS)} ${jobFn.team.toLowerCase()} work for ${at(INDUSTRIES, jobCompany.industry).toLowerCase()} customers.`,
      start: month(start),
      end: end === null ? null : month(end),
    });
  }
  const years = Math.max(1, Math.round((2026 * 12 - start) / 12));
  const about = rng.chance(0.1)
    ? null
    : `${rng.pick(ABOUT_OPENERS)} ${years} years in ${fn.team.toLowerCase()}, currently ${title} at ${company.name} (${industry}).`;
  // A profile that shows no name (`sim-no-name`): nothing to greet the person by.
  const named = !slug.includes(MARKERS.noName);
  const nameForUrl =
    `${firstName}${lastName}`
      .normalize('NFD')
      .replace(/[^a-z]/gi, '')
      .toLowerCase() || 'profile';

  return {
    slug,
    traits,
    profile: {
      fullName: named ? `${firstName} ${lastName}` : '',
      firstName: named ? firstName : '',
      lastName: named ? lastName : '',
      headline,
      jobTitle: title,
      companyName: company.name,
      companyNetwork: companyUrl(company.name),
      website: rng.chance(0.25) ? `https://www.${nameForUrl}.dev` : null,
      location: locationOf(traits.city),
      networkUrl: networkUrlFor(slug),
      providerId: providerIdFor(slug),
      profilePictureUrl: `https://media.sim.invalid/avatars/${hashHex(`avatar:${slug}`, 24)}.jpg`,
      about,
      experience,
    },
  };
}

export function basicProfile(p: FullProfile): Profile {
  const { about: _about, experience: _experience, ...basic } = p;
  return basic;
}

export function searchResult(p: Profile): SearchResult {
  const { fullName, headline, jobTitle: title, companyName, location, networkUrl, providerId, profilePictureUrl } = p;
  return { fullName, headline, jobTitle: title, companyName, location, networkUrl, providerId, profilePictureUrl };
}
