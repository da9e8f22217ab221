import { clean, composeFullName, nameParts } from '../text.js';

/**
 * The one placeholder renderer: the engine fills agents' notes and messages with it, and
 * preview_agent shows exactly what it produces. Writing an agent checks its texts with
 * `unknownPlaceholders`, so the engine never meets a placeholder it cannot fill.
 */

/** The placeholders a note or message may use, as documented (names are case-insensitive). */
export const PLACEHOLDERS = ['firstName', 'lastName', 'fullName', 'companyName', 'jobTitle', 'location', 'headline', 'personalization'] as const;
export type PlaceholderName = (typeof PLACEHOLDERS)[number];

const KNOWN: ReadonlyMap<string, PlaceholderName> = /* @__PURE__ */ new Map(/* @__PURE__ */ PLACEHOLDERS.map((p) => [p.toLowerCase(), p]));

/** `{{ name }}` or `{{ name | fallback }}`; the fallback may hold anything but braces. */
const TOKEN = /\{\{\s*([^{}|]*?)\s*(?:\|([^{}]*))?\}\}/g;

/** The lead fields the renderer reads (a lead row or a lead view both fit). */
export interface RenderLead {
  firstName: string | null;
  lastName: string | null;
  fullName: string | null;
  companyName: string | null;
  jobTitle: string | null;
  location: string | null;
  headline: string | null;
  personalization: string | null;
}

/**
 * Values for each placeholder; null when the lead has none. The first name falls back to the
 * first word of a full name the lead was given, never of one made from its last name alone: a
 * lead known only as "Customer" is greeted with the fallback (`{{firstName|there}}`), not by
 * its surname.
 */
export function placeholderValues(lead: RenderLead): Record<PlaceholderName, string | null> {
  const full = composeFullName(lead.fullName, lead.firstName, lead.lastName);
  return {
    firstName: clean(lead.firstName) ?? nameParts(lead.fullName, null, null).first,
    lastName: clean(lead.lastName),
    fullName: full,
    companyName: clean(lead.companyName),
    jobTitle: clean(lead.jobTitle),
    location: clean(lead.location),
    headline: clean(lead.headline),
    personalization: clean(lead.personalization),
  };
}

/** Every `{{…}}` of a text whose name is not a known placeholder, as written. */
export function unknownPlaceholders(text: string): string[] {
  const bad: string[] = [];
  for (const m of text.matchAll(TOKEN)) if (!KNOWN.has((m[1] ?? '').toLowerCase())) bad.push(m[0]);
  // Stray braces that do not form a token (`{{firstName}`, `{{{x}}}`) would reach a lead as
  // written, so they are refused too.
  const rest = text.replace(TOKEN, '');
  if (rest.includes('{{') || rest.includes('}}')) bad.push(rest.includes('{{') ? '{{' : '}}');
  return bad;
}

/**
 * Fills placeholders. A missing value renders its fallback, or nothing; the spacing left
 * behind is tidied (no double spaces, no space before punctuation, no blank edges), so
 * "Hi {{firstName}}, …" becomes "Hi, …" rather than "Hi , …". An unknown name renders as
 * nothing too: agents are checked when written, and this keeps old rows safe.
 */
export function renderTemplate(template: string, lead: RenderLead): string {
  const values = placeholderValues(lead);
  return template
    .replace(TOKEN, (_m, name: string, fallback: string | undefined) => {
      const key = KNOWN.get(name.toLowerCase());
      const value = key ? values[key] : null;
      return value ?? fallback?.trim() ?? '';
    })
    .replace(/[ \t]+([,.!?;:])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/^[ \t]+|[ \t]+$/gm, '')
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

/** The network's limits on what one send carries. */
export const NOTE_SEND_MAX = 300;
export const MESSAGE_SEND_MAX = 8000;

/** An invitation note as sent: rendered, fitted to the network's limit; null when nothing is left. */
export const renderNote = (note: string | null | undefined, lead: RenderLead): string | null =>
  note ? fitTo(renderTemplate(note, lead), NOTE_SEND_MAX) || null : null;

/** A sequence message as sent. */
export const renderMessage = (text: string, lead: RenderLead): string => fitTo(renderTemplate(text, lead), MESSAGE_SEND_MAX);
