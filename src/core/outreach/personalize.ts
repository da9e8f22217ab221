import { clean, composeFullName } from '../text.js';
import type { leads } from '../../db/schema.js';

type LeadRow = typeof leads.$inferSelect;

/** The fallback for a greeting when the lead has no usable first name. */
const NO_FIRST_NAME = 'there';

/** Values for `{{placeholder}}`s, from the lead. Names are case-insensitive. */
export function placeholders(lead: LeadRow): Record<string, string> {
  const full = composeFullName(lead.fullName, lead.firstName, lead.lastName);
  const first = clean(lead.firstName) ?? full?.split(' ')[0] ?? NO_FIRST_NAME;
  const values: Record<string, string | null> = {
    firstname: first,
    lastname: clean(lead.lastName),
    fullname: full,
    companyname: clean(lead.companyName),
    company: clean(lead.companyName),
    jobtitle: clean(lead.jobTitle),
    title: clean(lead.jobTitle),
    location: clean(lead.location),
    headline: clean(lead.headline),
    personalization: clean(lead.personalization),
  };
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v ?? '']));
}

/**
 * Fills `{{firstName}}`-style placeholders (any case, spaces inside the braces allowed).
 * Unknown placeholders and empty values render as nothing, and the spacing left behind is
 * tidied, so a lead never receives a literal `{{…}}`.
 */
export function personalize(template: string, lead: LeadRow): string {
  const values = placeholders(lead);
  return template
    .replace(/\{\{\s*([A-Za-z_]+)\s*\}\}/g, (_m, name: string) => values[name.toLowerCase()] ?? '')
    .replace(/[ \t]+([,.!?;:])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** Cuts text to at most `max` characters, at a word boundary when one is near. */
export function fitTo(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max).join('');
  const space = cut.lastIndexOf(' ');
  return (space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd();
}
