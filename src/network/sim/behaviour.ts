import { networkError } from '../../core/network/provider.js';
import { acceptsAfterHours, MARKERS, repliesAfterMessage } from './markers.js';
import { resolveProfileIdentifier, simPerson } from './profiles.js';
import { at, Rng } from './rng.js';
import { REPLIES } from './words.js';

/**
 * How simulated people respond. Each decision is a pure function of the person (and of the
 * send time, for the absolute time of the response), so the engine, tests and docs can predict
 * it, and a restart cannot change an answer already scheduled.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export type ReplyKind = 'positive' | 'question' | 'negative' | 'out_of_office';
export const REPLY_KINDS: readonly ReplyKind[] = ['positive', 'question', 'negative', 'out_of_office'];

export interface AcceptanceDecision {
  accepts: boolean;
  /** Epoch ms of the acceptance; null when it never comes. */
  at: number | null;
}

export interface ReplyDecision {
  replies: boolean;
  kind: ReplyKind | null;
  at: number | null;
  text: string | null;
}

function slugOf(profile: string): string {
  const slug = resolveProfileIdentifier(profile);
  if (slug === null) throw networkError('validation_error', 'Give a personal profile URL, provider id or slug.', { fields: ['profile'] });
  return slug;
}

/** A delay drawn from [min, max] buckets with the given weights. */
function delay(rng: Rng, buckets: readonly (readonly [number, number, number])[]): number {
  const [min, max] = at(buckets, rng.weighted(buckets.map((b) => b[2])));
  return min + Math.floor(rng.next() * (max - min));
}

const REPLY_MARKERS: readonly (readonly [string, ReplyKind])[] = [
  [MARKERS.repliesPositive, 'positive'],
  [MARKERS.repliesQuestion, 'question'],
  [MARKERS.repliesNegative, 'negative'],
  [MARKERS.outOfOffice, 'out_of_office'],
];

const forcedReplyKind = (slug: string): ReplyKind | null => REPLY_MARKERS.find(([m]) => slug.includes(m))?.[1] ?? null;

/**
 * Whether and when the person accepts an invitation sent at `sentAt`: about 60% accept
 * (45% of directors and above), mostly within two days, some after up to five.
 * `profile` is a profile URL, provider id or slug.
 */
export function acceptanceDecision(profile: string, sentAt: number): AcceptanceDecision {
  const slug = slugOf(profile);
  const rng = new Rng(`accept:${slug}`);
  const accepts = rng.chance(simPerson(slug).traits.seniority >= 5 ? 0.45 : 0.6);
  const normal = delay(rng, [
    [HOUR, 8 * HOUR, 40],
    [8 * HOUR, 2 * DAY, 40],
    [2 * DAY, 5 * DAY, 20],
  ]);
  const fast = delay(rng, [[2 * MINUTE, 15 * MINUTE, 1]]);
  if (slug.includes(MARKERS.neverAccepts)) return { accepts: false, at: null };
  const after = acceptsAfterHours(slug);
  if (after !== null) return { accepts: true, at: sentAt + after * HOUR };
  if (slug.includes(MARKERS.fastAccept)) return { accepts: true, at: sentAt + fast };
  // A forced reply needs a connection first, so reply markers imply acceptance.
  if (accepts || forcedReplyKind(slug) !== null || repliesAfterMessage(slug) !== null) return { accepts: true, at: sentAt + normal };
  return { accepts: false, at: null };
}

const untilDate = (ms: number): string => new Date(ms).toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });

/**
 * Whether, when and what the person answers to a message sent at `sentAt`: about 35% reply;
 * of those 35% positive, 25% a question, 30% negative, 10% an out-of-office note within
 * minutes. Others answer within 20 minutes to 3 days. `nth` counts the messages and InMails
 * the account has sent the person, this one included; only `sim-replies-after-<N>` reads it.
 */
export function replyDecision(profile: string, sentAt: number, nth = 1): ReplyDecision {
  const slug = slugOf(profile);
  const onlyAfter = repliesAfterMessage(slug);
  if (onlyAfter !== null && !slug.includes(MARKERS.noReply)) {
    if (nth !== onlyAfter) return { replies: false, kind: null, at: null, text: null };
    const forced = forcedReplyKind(slug);
    const kind = forced === null || forced === 'out_of_office' ? 'positive' : forced;
    return { replies: true, kind, at: sentAt + HOUR, text: at(REPLIES[kind], new Rng(`reply:${slug}`).int(3)) };
  }
  const rng = new Rng(`reply:${slug}`);
  const replies = rng.chance(0.35);
  const drawnKind = at(REPLY_KINDS, rng.weighted([35, 25, 30, 10]));
  const variant = rng.int(3);
  const normal = delay(rng, [
    [20 * MINUTE, 4 * HOUR, 50],
    [4 * HOUR, DAY, 35],
    [DAY, 3 * DAY, 15],
  ]);
  const autoReply = delay(rng, [[MINUTE, 10 * MINUTE, 1]]);
  const backAfterDays = rng.range(2, 14);

  const forced = forcedReplyKind(slug);
  if (slug.includes(MARKERS.noReply) || (!replies && forced === null)) {
    return { replies: false, kind: null, at: null, text: null };
  }
  const kind = forced ?? drawnKind;
  if (kind === 'out_of_office') {
    const when = sentAt + autoReply;
    const text = `Thanks for your message. I am out of the office until ${untilDate(when + backAfterDays * DAY)} with limited access to messages, and will reply when I am back.`;
    return { replies: true, kind, at: when, text };
  }
  return { replies: true, kind, at: sentAt + normal, text: at(REPLIES[kind], variant) };
}

export interface PostDecision {
  /** The id of the person's latest own post; null when they have none. */
  latestPostId: string | null;
}

/** Whether the person has a post of their own to like: about three in four do; `sim-no-posts` never. */
export function postDecision(profile: string): PostDecision {
  const slug = slugOf(profile);
  const rng = new Rng(`posts:${slug}`);
  const has = rng.chance(0.75);
  if (slug.includes(MARKERS.noPosts) || !has) return { latestPostId: null };
  return { latestPostId: `urn:li:activity:7${String(Math.floor(rng.next() * 1e17)).padStart(17, '0')}` };
}
