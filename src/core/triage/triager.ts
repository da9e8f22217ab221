import { LEAD_TAGS, type LeadTag } from '../leads/enums.js';

/**
 * The optional model's second task (config `drafter`): it reads a thread and suggests one of
 * the lead tags. This is the seam; the adapter lives in src/network/drafter/. It answers with
 * text, which `parseTagAnswer` holds to the contract: the model's words are untrusted.
 */
export interface TagRequest {
  lead: { name: string | null; jobTitle: string | null; companyName: string | null };
  /** The thread's newest messages, oldest first: `lead` wrote it, or `us` (any of our senders). */
  messages: { from: 'lead' | 'us'; text: string }[];
}

export interface Triager {
  /** The model's answer, as text. Throws on failure (a `DrafterFailure` names what happened). */
  suggestTag(request: TagRequest): Promise<string>;
}

export interface TagAnswer {
  tag: LeadTag;
  confidence: number;
  reason: string | null;
}

/** The tags as the model is told them, with what each means. */
export const TAG_MEANINGS: Readonly<Record<LeadTag, string>> = {
  'Meeting request': 'they ask for or accept a call or meeting',
  Interested: 'they show interest without asking for a meeting yet',
  'Information request': 'they ask a question or for more details before deciding',
  'Not interested': 'they decline, or ask not to be contacted',
  'Wrong person': 'they are not the right contact, have left, or point to someone else',
  'To be defined': 'none of the above can be told yet (an automatic reply, an unclear answer)',
};

export const REASON_MAX = 200;

/**
 * The model's answer as a suggestion, or null when it breaks the contract: a JSON object (alone
 * or inside other words, as models add them) with `tag` one of the lead tags (case aside) and
 * `confidence` a number 0..1; `reason` optional, cut to 200 characters.
 */
export function parseTagAnswer(text: string): TagAnswer | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { tag, confidence, reason } = value as Record<string, unknown>;
  if (typeof tag !== 'string') return null;
  const known = LEAD_TAGS.find((t) => t.toLowerCase() === tag.trim().toLowerCase());
  if (!known) return null;
  if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) return null;
  const why = typeof reason === 'string' && reason.trim() !== '' ? Array.from(reason.trim()).slice(0, REASON_MAX).join('') : null;
  return { tag: known, confidence, reason: why };
}
