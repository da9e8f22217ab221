/**
 * Personal profile URLs (self-hosting.md, Adding leads): http(s), host linkedin.com,
 * www.linkedin.com or a two-letter country subdomain, path /in/<slug> with an optional
 * trailing slash, query and fragment. The normal form, used for dedupe and the exclusion
 * list, is https://www.linkedin.com/in/<slug> with the slug percent-decoded and lower-cased.
 */
const HOST = /^(?:www\.|[a-z]{2}\.)?linkedin\.com$/;
const PATH = /^\/in\/([^/]+)\/?$/;
const MAX_URL_LENGTH = 2048;

/** The normal form of a personal profile URL, or null when `input` is not one. */
export function normalizeProfileUrl(input: string): string | null {
  const text = input.trim();
  if (text.length === 0 || text.length > MAX_URL_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
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
  // A decoded slug must still be one path segment of visible characters.
  if (slug.length === 0 || slug.length > 200 || /[\s/\\?#]/.test(slug) || /\p{Cc}/u.test(slug)) return null;
  return `https://www.linkedin.com/in/${slug}`;
}

/** The slug of a normalised profile URL. */
export const profileSlug = (normalized: string): string => normalized.slice('https://www.linkedin.com/in/'.length);
