import type { Draft, DraftKind } from './types.js';

/**
 * What the reviewer has seen of each draft, and how a fresh list compares with it. A draft is
 * "changed under the reviewer" when its revision (or, from a server without revisions, its
 * words) moved on since the card showed it, other than by the reviewer's own save.
 */
export interface Seen {
  revision: number | undefined;
  text: string;
  subject: string | null;
}

/** Words the reviewer just sent: a list that shows exactly them is the reviewer's own change. */
export interface Expected {
  text: string;
  subject: string | null;
}

export const seenOf = (d: Pick<Draft, 'revision' | 'text' | 'subject'>): Seen => ({ revision: d.revision, text: d.text, subject: d.subject });

/** True when the draft stands where the reviewer last saw it. */
export function sameAsSeen(d: Pick<Draft, 'revision' | 'text' | 'subject'>, seen: Seen): boolean {
  if (d.revision !== undefined && seen.revision !== undefined) return d.revision === seen.revision;
  return d.text === seen.text && d.subject === seen.subject;
}

/**
 * The reviewer's view of a fresh list: drafts shown for the first time are seen as they are; a
 * draft that now holds the words the reviewer sent is seen at its new revision. Any other
 * change is left unseen, for the card to mark. Returns `seen` itself when nothing moved.
 */
export function reconcile(
  seen: Readonly<Record<string, Seen>>,
  expected: Readonly<Record<string, Expected>>,
  drafts: readonly Draft[],
): { seen: Record<string, Seen>; expected: Record<string, Expected> } {
  const nextSeen = { ...seen };
  const nextExpected = { ...expected };
  let moved = false;
  for (const d of drafts) {
    if (!seen[d.id] || isExpected(d, expected[d.id])) {
      nextSeen[d.id] = seenOf(d);
      delete nextExpected[d.id];
      moved = true;
    }
  }
  return moved ? { seen: nextSeen, expected: nextExpected } : { seen: seen as Record<string, Seen>, expected: expected as Record<string, Expected> };
}

/** Words that differ from the draft's own: its text, or the subject of an InMail (the one kind whose subject is edited). */
export const wordsDiffer = (d: Pick<Draft, 'kind' | 'text' | 'subject'>, text: string, subject: string | null): boolean =>
  text !== d.text || (d.kind === 'inmail' && subject !== d.subject);

/** The draft holds exactly the words the reviewer sent. */
export const isExpected = (d: Pick<Draft, 'text' | 'subject'>, mine: Expected | undefined): boolean =>
  mine !== undefined && d.text === mine.text && d.subject === mine.subject;

const KIND_WORDS: Record<DraftKind, [one: string, many: string]> = {
  invite: ['invitation', 'invitations'],
  message: ['message', 'messages'],
  inmail: ['InMail', 'InMails'],
  email: ['email', 'emails'],
};

/** "1 invitation", "3 messages": a count with its noun, singular or plural. */
export const countOf = (kind: DraftKind, n: number): string => `${n} ${KIND_WORDS[kind][n === 1 ? 0 : 1]}`;

/** "1 invitation and 2 messages", "3 InMails": what an approval sends, by kind, in words. */
export function kindsInWords(kinds: Partial<Record<DraftKind, number>>): string {
  const parts = (['invite', 'message', 'inmail', 'email'] as const).filter((k) => (kinds[k] ?? 0) > 0).map((k) => countOf(k, kinds[k] ?? 0));
  if (parts.length === 0) return 'nothing';
  if (parts.length === 1) return parts[0] as string;
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** Drafts counted by sender and by kind, as a confirmation names them. */
export function countSends(drafts: readonly Pick<Draft, 'accountId' | 'kind'>[]): {
  count: number;
  kinds: Record<Exclude<DraftKind, 'email'>, number> & { email?: number };
  accounts: { accountId: string; count: number }[];
} {
  // `email` is counted once there is an email draft, so the counts read as before for LinkedIn alone.
  const kinds: Record<Exclude<DraftKind, 'email'>, number> & { email?: number } = { invite: 0, message: 0, inmail: 0 };
  const accounts = new Map<string, number>();
  for (const d of drafts) {
    kinds[d.kind] = (kinds[d.kind] ?? 0) + 1;
    const from = d.accountId ?? '';
    accounts.set(from, (accounts.get(from) ?? 0) + 1);
  }
  return { count: drafts.length, kinds, accounts: [...accounts].map(([accountId, count]) => ({ accountId, count })) };
}

/** A long text cut for a card: the first `max` characters (whole code points) and an ellipsis. */
export function clip(text: string, max: number): { shown: string; clipped: boolean } {
  const points = [...text];
  if (points.length <= max) return { shown: text, clipped: false };
  return { shown: `${points.slice(0, max).join('').trimEnd()}…`, clipped: true };
}
