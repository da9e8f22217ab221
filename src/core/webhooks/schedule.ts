const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Nominal delay before attempt n+2 after attempt n+1 failed. Attempt 1 goes out at once. The
 * first eight steps are the Standard Webhooks example; 10 h steps then stretch it to ~3 days
 * (12 attempts, the last 67 h 35 m after the first, before jitter).
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Each delay is scaled by a factor in [1 - JITTER, 1 + JITTER) so retries after an outage spread out. */
export const JITTER = 0.1;

/**
 * A receiver's Retry-After can postpone a retry but not park it indefinitely: beyond this it is
 * clamped, so the endpoint still gets its remaining attempts within days.
 */
export const MAX_RETRY_AFTER_SECONDS = 12 * 60 * 60;

/** Returns a value in [0, 1). */
export type Rng = () => number;

/**
 * Delay in ms before the next attempt, after attempt `attemptNumber` (1-based) failed; null when
 * that was the last attempt. The delay is the jittered schedule step, or the receiver's
 * Retry-After (clamped to MAX_RETRY_AFTER_SECONDS) when that is longer.
 */
export function nextAttemptDelay(attemptNumber: number, rng: Rng, retryAfterSeconds: number | null = null): number | null {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) {
    throw new RangeError('attemptNumber is 1-based: the number of the attempt that just failed');
  }
  const base = RETRY_DELAYS_MS[attemptNumber - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (1 + JITTER * (2 * rng() - 1)));
  if (retryAfterSeconds === null || !(retryAfterSeconds > 0)) return jittered;
  return Math.max(jittered, Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * SECOND);
}

/**
 * Seconds a `Retry-After` header asks for: either delta-seconds or an HTTP date relative to
 * `nowMs`. Null when absent or unparseable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (raw === undefined || raw === '') return null;
  if (/^\d+$/.test(raw)) return Number(raw);
  // All three HTTP date formats open with a day name; this keeps Date.parse off inputs like "-5".
  if (!/^[A-Za-z]{3}/.test(raw)) return null;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / SECOND));
}

/** mulberry32: a tiny deterministic Rng for tests and the simulator. */
export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
