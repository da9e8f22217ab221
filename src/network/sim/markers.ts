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
  sendFail: 'sim-send-fail',
  neverAccepts: 'sim-never-accepts',
  fastAccept: 'sim-fast-accept',
  repliesPositive: 'sim-replies-positive',
  repliesQuestion: 'sim-replies-question',
  repliesNegative: 'sim-replies-negative',
  outOfOffice: 'sim-out-of-office',
  noReply: 'sim-no-reply',
  /** Account ids only: the status `accountHealth` reports (`sim-disconnected` works there too). */
  connecting: 'sim-connecting',
  failed: 'sim-failed',
} as const;

export const ALL_MARKERS: readonly string[] = Object.values(MARKERS);

export type SimOperation = 'lookup' | 'search' | 'connect' | 'message' | 'lookalike';

interface FailureRule {
  marker: string;
  code: NetworkErrorCode;
  on: readonly SimOperation[];
}

const EVERYWHERE: readonly SimOperation[] = ['lookup', 'search', 'connect', 'message', 'lookalike'];

/** First match wins, so a slug with two markers fails the same way every time. */
export const FAILURE_RULES: readonly FailureRule[] = [
  { marker: MARKERS.outage, code: 'upstream_unavailable', on: EVERYWHERE },
  { marker: MARKERS.disconnected, code: 'account_disconnected', on: EVERYWHERE },
  { marker: MARKERS.quota, code: 'network_daily_quota', on: EVERYWHERE },
  { marker: MARKERS.salesNavFail, code: 'sales_nav_required', on: ['lookup', 'search'] },
  { marker: MARKERS.notFound, code: 'not_found', on: ['lookup', 'connect', 'message', 'lookalike'] },
  { marker: MARKERS.sendFail, code: 'send_failed', on: ['connect', 'message'] },
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
