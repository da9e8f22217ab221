/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * The characters that reorder text around them (embeddings, overrides, isolates and marks:
 * U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069). In a name a stranger chose, such as
 * an OAuth client's, they can make the name read as something else ("U+202E" turns "evil.txt"
 * around); shown as their code points, the name reads as given.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Text a stranger chose, with every direction control shown as its code point, e.g. [U+202E]. */
export const showBidiControls = (s: string): string =>
  s.replace(BIDI_CONTROLS, (c) => `[U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`);

/**
 * Such text as HTML: escaped, its direction controls shown, and isolated in `<bdi>`, so
 * right-to-left letters in it (a name in Arabic or Hebrew) neither reorder the sentence around
 * it nor are reordered by it.
 */
export const strangerText = (s: string): string => `<bdi>${escapeHtml(showBidiControls(s))}</bdi>`;
