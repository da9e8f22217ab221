import { networkError, type NetworkErrorCode } from '../../core/network/provider.js';
import type { ApiError } from '../../core/errors.js';

/**
 * Markers are substrings of a profile slug (or of a search query or URL, or of an account id)
 * that make the simulator fail or respond in a chosen way, so every path can be tried end to
 * end. `docs/simulated-network.md` documents the same table; keep them in step.
 */
export const MARKERS = {
  outage: 'sim-outage',
  disconnected: 'sim-disconnected',
  quota: 'sim-quota',
  salesNavFail: 'sim-salesnav-fail',
  notFound: 'sim-not-found',
  /** Profile lookups fail (`upstream_unavailable`), every time; sends to the person work. */
  lookupFail: 'sim-lookup-fail',
  /** A profile with no name at all (first, last and full name empty), as a private profile shows. */
  noName: 'sim-no-name',
  sendFail: 'sim-send-fail',
  neverAccepts: 'sim-never-accepts',
  fastAccept: 'sim-fast-accept',
  repliesPositive: 'sim-replies-positive',
  repliesQuestion: 'sim-replies-question',
  repliesNegative: 'sim-replies-negative',
  outOfOffice: 'sim-out-of-office',
  noReply: 'sim-no-reply',
  /** Has no post of their own: `likeLatestPost` answers `no_posts`. */
  noPosts: 'sim-no-posts',
  /** Takes no InMail: `sendInMail` answers `unreachable`. */
  noInMail: 'sim-no-inmail',
  /** `sim-accepts-after-<N>h`: accepts exactly N hours after the invitation (see `acceptsAfterHours`). */
  acceptsAfter: 'sim-accepts-after-',
  /** `sim-replies-after-<N>`: replies one hour after the Nth message or InMail of an account, and to no other (see `repliesAfterMessage`). */
  repliesAfter: 'sim-replies-after-',
  /** Account ids only: the status `accountHealth` reports (`sim-disconnected` works there too). */
  connecting: 'sim-connecting',
  failed: 'sim-failed',
} as const;

export const ALL_MARKERS: readonly string[] = Object.values(MARKERS);

const ACCEPTS_AFTER = /sim-accepts-after-(\d{1,4})h/;
const REPLIES_AFTER = /sim-replies-after-(\d{1,2})(?!\d)/;

/** The hours of a `sim-accepts-after-<N>h` marker in the slug, or null. */
export function acceptsAfterHours(slug: string): number | null {
  const m = ACCEPTS_AFTER.exec(slug);
  return m ? Number(m[1]) : null;
}

/** N of a `sim-replies-after-<N>` marker (1 or more) in the slug, or null. */
export function repliesAfterMessage(slug: string): number | null {
  const m = REPLIES_AFTER.exec(slug);
  return m && Number(m[1]) >= 1 ? Number(m[1]) : null;
}

/** The slug without its markers (the parameterised ones with their number), for reading a name. */
export function stripMarkers(slug: string): string {
  let text = slug.replace(new RegExp(ACCEPTS_AFTER.source, 'g'), '-').replace(new RegExp(REPLIES_AFTER.source, 'g'), '-');
  for (const marker of ALL_MARKERS) text = text.split(marker).join('-');
  return text;
}

export type SimOperation = 'lookup' | 'search' | 'connect' | 'message' | 'lookalike' | 'visit' | 'like' | 'inmail';

interface FailureRule {
  marker: string;
  code: NetworkErrorCode;
  on: readonly SimOperation[];
}

const EVERYWHERE: readonly SimOperation[] = ['lookup', 'search', 'connect', 'message', 'lookalike', 'visit', 'like', 'inmail'];

/** First match wins, so a slug with two markers fails the same way every time. */
export const FAILURE_RULES: readonly FailureRule[] = [
  { marker: MARKERS.outage, code: 'upstream_unavailable', on: EVERYWHERE },
  { marker: MARKERS.disconnected, code: 'account_disconnected', on: EVERYWHERE },
  { marker: MARKERS.quota, code: 'network_daily_quota', on: EVERYWHERE },
  { marker: MARKERS.salesNavFail, code: 'sales_nav_required', on: ['lookup', 'search'] },
  { marker: MARKERS.lookupFail, code: 'upstream_unavailable', on: ['lookup'] },
  { marker: MARKERS.notFound, code: 'not_found', on: ['lookup', 'connect', 'message', 'lookalike', 'visit', 'like', 'inmail'] },
  { marker: MARKERS.sendFail, code: 'send_failed', on: ['connect', 'message', 'like', 'inmail'] },
];

/**
 * The failure a marker in `text` forces for `op`, or null. Quota errors carry
 * `retryAfterSeconds` so transports can set `Retry-After` like for any 429.
 */
export function markerFailure(text: string, op: SimOperation, retryAfterSeconds: () => number): ApiError | null {
  const lower = text.toLowerCase();
  const rule = FAILURE_RULES.find((r) => r.on.includes(op) && lower.includes(r.marker));
  if (!rule) return null;
  const details = rule.code === 'network_daily_quota' ? { retryAfterSeconds: retryAfterSeconds() } : {};
  return networkError(rule.code, undefined, { ...details, simulated: rule.marker });
}
