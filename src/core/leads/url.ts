/**
 * Personal profile URLs (self-hosting.md, Adding leads): http(s) or no scheme, host linkedin.com,
 * www.linkedin.com or a two-letter country subdomain, path /in/<slug> with an optional
 * trailing slash, query and fragment. The normal form, used for dedupe and the exclusion
 * list, is https://www.linkedin.com/in/<slug> with the slug percent-decoded and lower-cased.
 */
const SCHEME = /^https?:\/\//i;
const HOST = /^(?:www\.|[a-z]{2}\.)?linkedin\.com$/;
const PATH = /^\/in\/([^/]+)\/?$/;
/**
 * A decoded slug: letters (any script, with combining marks), digits, `-` and `_`, as profile
 * slugs are. This refuses `%2F`, spaces, quotes and markup smuggled in through encoding.
 */
const SLUG = /^[\p{L}\p{M}\p{N}_-]{1,100}$/u;
/**
 * The WHATWG parser silently drops tabs and newlines and reads `\` as `/`, which would turn
 * garbage into a profile; such input is refused before parsing.
 */
const UNPARSED_JUNK = /[\s\\\p{Cc}]/u;
const MAX_URL_LENGTH = 2048;

export const PROFILE_URL_HINT = 'a personal profile URL like https://www.linkedin.com/in/<slug>';

/** A LinkedIn address written without its scheme, as people copy it from the address bar: `linkedin.com/in/x`. */
const BARE = /^(?:www\.|[a-z]{2}\.)?linkedin\.com\//i;

/**
 * The normal form of a personal profile URL, or null when `input` is not one. An address
 * without a scheme (`linkedin.com/in/x`, `www.linkedin.com/in/x/`) is read as https.
 */
export function normalizeProfileUrl(input: string): string | null {
  const given = input.trim();
  const text = !SCHEME.test(given) && BARE.test(given) ? `https://${given}` : given;
  if (text.length > MAX_URL_LENGTH || !SCHEME.test(text) || UNPARSED_JUNK.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.username || url.password || url.port) return null;
  if (!HOST.test(url.hostname)) return null;
  const match = PATH.exec(url.pathname);
  if (!match) return null;
  let slug: string;
  try {
    slug = decodeURIComponent(match[1] as string).toLowerCase();
  } catch {
    return null;
  }
  return SLUG.test(slug) ? `https://www.linkedin.com/in/${slug}` : null;
}

/** The slug of a normalised profile URL. */
export const profileSlug = (normalized: string): string => normalized.slice('https://www.linkedin.com/in/'.length);
