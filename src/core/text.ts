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
