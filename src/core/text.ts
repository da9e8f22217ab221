/** Trimmed text, or null when nothing is left (spec, General rule 3). */
export const clean = (value: string | null | undefined): string | null => {
  if (value === null || value === undefined) return null;
  const t = value.trim();
  return t === '' ? null : t;
};

/**
 * fullName, falling back to firstName and lastName joined by one space, or to whichever of
 * them exists; null when there is nothing to compose.
 */
export function composeFullName(fullName: string | null | undefined, firstName: string | null | undefined, lastName: string | null | undefined): string | null {
  const full = clean(fullName);
  if (full !== null) return full;
  const parts = [clean(firstName), clean(lastName)].filter((p): p is string => p !== null);
  return parts.length === 0 ? null : parts.join(' ');
}

/**
 * A person's first and last name: as given, or, for one given only a full name, its first word
 * (without the punctuation that parts it from the rest: "Carol, Jr." → "Carol") and the rest.
 */
export function nameParts(
  fullName: string | null | undefined,
  firstName: string | null | undefined,
  lastName: string | null | undefined,
): { first: string | null; last: string | null } {
  const first = clean(firstName);
  const last = clean(lastName);
  if (first !== null || last !== null) return { first, last };
  const words = clean(fullName)?.split(/\s+/u) ?? [];
  const head = words[0]?.replace(/[,;:.]+$/u, '') || null;
  return { first: head, last: words.length > 1 ? words.slice(1).join(' ') : null };
}

/** The longest message preview, in UTF-16 units (what a JSON schema's maxLength and `.length` count). */
export const MESSAGE_PREVIEW_MAX = 80;

/**
 * A message's one-line preview, the same wherever one is shown (the activity feed, a webhook's
 * reply text, a thread's last line): whitespace runs become one space; a text longer than 80
 * UTF-16 units is cut at a code point (never half an emoji) and ends with an ellipsis, so the
 * preview is never longer than 80 by any count. Null when nothing is left. A preview passed
 * through it again comes out unchanged.
 */
export function messagePreview(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return null;
  if (flat.length <= MESSAGE_PREVIEW_MAX) return flat;
  let out = '';
  for (const ch of flat) {
    if (out.length + ch.length > MESSAGE_PREVIEW_MAX - 1) break;
    out += ch;
  }
  return `${out.trimEnd()}…`;
}

/**
 * A CSV cell a spreadsheet would run as a formula (a leading `=`, `+`, `-` or `@`, or a tab or
 * carriage return before one) with an apostrophe in front, so it opens as text: for every CSV
 * made to be opened in a spreadsheet (the audit trail's export, an import's rejected rows).
 */
export const defuseFormula = (value: string): string => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
