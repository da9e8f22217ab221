import { fitTo } from '../agents/render.js';
import { CONNECTION_NOTE_MAX, EMAIL_TEXT_MAX, MESSAGE_TEXT_MAX } from '../outreach/limits.js';
import { wordsProblem } from '../validation.js';

/**
 * What a draft may hold, defined once: a person's edit, the optional model's rewrite and the
 * engine's rendering are all held to these rules, so a draft never carries `{{` and never
 * exceeds what its step may send.
 */

export const DRAFT_STATUSES = ['pending', 'approved', 'rejected', 'sent', 'skipped'] as const;
export type DraftStatus = (typeof DRAFT_STATUSES)[number];

/** The steps that send words a person can read: an invitation's note, a message, an InMail, an email. */
export const DRAFT_KINDS = ['invite', 'message', 'inmail', 'email'] as const;
export type DraftKind = (typeof DRAFT_KINDS)[number];

/** Longest InMail subject, in characters (code points). */
export const INMAIL_SUBJECT_MAX = 200;

/** The longest text (and subject, for an InMail) a draft of each kind may hold, in code points. */
export const DRAFT_LIMITS: Record<DraftKind, { text: number; subject: number | null }> = {
  invite: { text: CONNECTION_NOTE_MAX, subject: null },
  message: { text: MESSAGE_TEXT_MAX, subject: null },
  inmail: { text: MESSAGE_TEXT_MAX, subject: INMAIL_SUBJECT_MAX },
  email: { text: EMAIL_TEXT_MAX, subject: INMAIL_SUBJECT_MAX },
};

const KIND_NAME: Record<DraftKind, string> = { invite: 'an invitation note', message: 'a message', inmail: 'an InMail', email: 'an email' };

/** Whether a draft of this kind carries a subject (an InMail, an email). */
export const hasSubject = (kind: DraftKind): boolean => DRAFT_LIMITS[kind].subject !== null;

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * Why a text cannot stand in a draft of this kind, or null when it can. `field` is `text` or
 * `subject`; the message names the rule broken so a caller (or a model's output) can be fixed.
 */
export function draftFieldProblem(kind: DraftKind, field: 'text' | 'subject', value: string): string | null {
  const max = DRAFT_LIMITS[kind][field];
  if (max === null) return `only an InMail or an email draft has a subject; this is ${KIND_NAME[kind]}.`;
  if (value.trim() === '') return `must not be blank.`;
  const words = wordsProblem(value);
  if (words) return words;
  const length = codePoints(value);
  if (length > max) return `is ${length} characters; ${KIND_NAME[kind]} takes at most ${max}.`;
  if (value.includes('{{')) return 'still holds "{{": write the words the lead should read, with no placeholder left.';
  return null;
}

/**
 * A rendered step text made fit for a draft. The renderer fills every placeholder, but a lead's
 * own data may hold `{{` (a company named "{{Acme}}"); that pair is cut to one brace, so no draft
 * ever holds a placeholder-looking text. Then the text is fitted to its kind's length.
 */
export function fitRendered(kind: DraftKind, field: 'text' | 'subject', rendered: string): string {
  const max = DRAFT_LIMITS[kind][field] ?? DRAFT_LIMITS[kind].text;
  return fitTo(rendered.replace(/\{\{+/g, '{').trim(), max);
}
