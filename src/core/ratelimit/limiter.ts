import { isIPv6 } from 'node:net';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { BucketStore, type BucketState, type BucketStoreOptions, type Rate } from './buckets.js';
import { RATE_CLASSES, resolveLimits, type Limits, type NetworkOperation, type RateClass } from './config.js';
import { wholeSeconds, type PolicyState } from './report.js';

const MINUTE_MS = 60_000;

/** One bucket a request must draw from. */
interface Check {
  policy: string;
  key: string;
  rate: Rate;
}

export type Admission =
  | { ok: true; states: PolicyState[] }
  | { ok: false; states: PolicyState[]; retryAfterSeconds: number /** The policy that waits longest. */; refusedBy: string };

const stateOf = (check: Check, b: BucketState): PolicyState => ({
  name: check.policy,
  quota: check.rate.limit,
  windowSeconds: check.rate.windowMs / 1000,
  remaining: b.remaining,
  resetSeconds: b.nextTokenMs === null ? null : wholeSeconds(b.nextTokenMs),
});

/**
 * The in-process limiter behind every request, one per server (on `ctx.limits`). Buckets
 * live in this process's memory only: see docs/rate-limits.md for what several processes
 * would need.
 */
export class RateLimiter {
  private readonly buckets: BucketStore;

  constructor(
    readonly config: Limits,
    private readonly clock: Clock,
    options: BucketStoreOptions = {},
  ) {
    this.buckets = new BucketStore(options);
  }

  /** How many buckets are held: bounded, because full buckets are evicted. */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * The rate-limit stage of one API call: the key's global bucket and, when the tool has one,
   * its class bucket. Either both are charged or, when one is empty, neither.
   */
  admitCall(keyId: string, rateClass: RateClass | undefined): Admission {
    return this.admit(this.callChecks(keyId, rateClass));
  }

  /**
   * Gives back what `admitCall` charged, for a call refused with 429 after it was admitted (its
   * account's spacing or daily quota): a refused request consumes no token. The buckets' states
   * after the refund.
   */
  releaseCall(keyId: string, rateClass: RateClass | undefined): PolicyState[] {
    return this.release(this.callChecks(keyId, rateClass));
  }

  /** Gives back an account's spacing token, for a request that was admitted but then refused. */
  releaseSpacing(op: NetworkOperation, accountId: string): void {
    this.release(this.spacingChecks(op, accountId));
  }

  /** Whether any request could be refused now; false (no bucket is empty) is a cheap all-clear. */
  mayRefuse(): boolean {
    return this.buckets.anyEmptyAt(this.clock.now());
  }

  /** What admitCall would answer now, charging nothing: a refusal is the very same answer. */
  peekCall(keyId: string, rateClass: RateClass | undefined): Admission {
    return this.admit(this.callChecks(keyId, rateClass), false);
  }

  /** The global bucket of a key, charging nothing (for answers that never reach the rate stage). */
  peekGlobal(keyId: string): PolicyState {
    const check = this.globalCheck(keyId);
    return stateOf(check, this.buckets.peek(check.key, check.rate, this.clock.now()));
  }

  /** Per-account spacing: one accepted request per `accountSpacingSeconds` on one network account. */
  admitSpacing(op: NetworkOperation, accountId: string): Admission {
    return this.admit(this.spacingChecks(op, accountId));
  }

  /** Whether a client address may still try to authenticate; charges nothing. */
  authGuard(address: string): Admission {
    return this.admit([this.authCheck(address)], false);
  }

  /** Counts one failed authentication against a client address (nothing once it is blocked). */
  recordAuthFailure(address: string): PolicyState {
    return this.admit([this.authCheck(address)]).states[0]!;
  }

  /** The 429 for a refused admission, naming what was exceeded and when to retry. */
  refusal(admission: Extract<Admission, { ok: false }>): ApiError {
    return rateLimited(admission, this.config);
  }

  /** Forgets every bucket (tests; a restart does the same). */
  reset(): void {
    this.buckets.clear();
  }

  private callChecks(keyId: string, rateClass: RateClass | undefined): Check[] {
    const checks = [this.globalCheck(keyId)];
    if (rateClass) {
      checks.push({ policy: rateClass, key: `class:${rateClass}:${keyId}`, rate: { limit: this.config.perMinute[rateClass], windowMs: MINUTE_MS } });
    }
    return checks;
  }

  private globalCheck(keyId: string): Check {
    return { policy: 'global', key: `global:${keyId}`, rate: { limit: this.config.globalPerMinute, windowMs: MINUTE_MS } };
  }

  private spacingChecks(op: NetworkOperation, accountId: string): Check[] {
    const seconds = this.config.accountSpacingSeconds[op];
    if (seconds === 0) return [];
    return [{ policy: `${op}_spacing`, key: `spacing:${op}:${accountId}`, rate: { limit: 1, windowMs: seconds * 1000 } }];
  }

  private authCheck(address: string): Check {
    return { policy: 'auth_failures', key: `auth:${addressKey(address)}`, rate: { limit: this.config.authFailuresPerMinute, windowMs: MINUTE_MS } };
  }

  private release(checks: Check[]): PolicyState[] {
    const now = this.clock.now();
    return checks.map((c) => stateOf(c, this.buckets.give(c.key, c.rate, now)));
  }

  /** All checks pass and are charged together, or the request is refused and nothing is charged. */
  private admit(checks: Check[], charge = true): Admission {
    const now = this.clock.now();
    const peeks = checks.map((c) => this.buckets.peek(c.key, c.rate, now));
    let worst = -1;
    peeks.forEach((p, i) => {
      if (p.retryAfterMs > 0 && (worst < 0 || p.retryAfterMs > peeks[worst]!.retryAfterMs)) worst = i;
    });
    if (worst >= 0) {
      const states = checks.map((c, i) => {
        const p = peeks[i]!;
        return p.retryAfterMs > 0 ? { ...stateOf(c, p), remaining: 0, resetSeconds: wholeSeconds(p.retryAfterMs) } : stateOf(c, p);
      });
      return { ok: false, states, retryAfterSeconds: wholeSeconds(peeks[worst]!.retryAfterMs), refusedBy: checks[worst]!.policy };
    }
    if (!charge) return { ok: true, states: checks.map((c, i) => stateOf(c, peeks[i]!)) };
    return { ok: true, states: checks.map((c) => stateOf(c, this.buckets.take(c.key, c.rate, now))) };
  }
}

export const createLimiter = (clock: Clock, limits: Limits = resolveLimits(), options?: BucketStoreOptions): RateLimiter =>
  new RateLimiter(limits, clock, options);

/**
 * The bucket key of a client address. IPv6 clients usually hold a whole /64, so one /64 is one
 * client; an IPv4-mapped IPv6 address is its IPv4 address.
 */
export function addressKey(address: string): string {
  // IPv4, the common case, without the IPv6 parsing (every request's auth guard asks).
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

function rateLimited(admission: Extract<Admission, { ok: false }>, limits: Limits): ApiError {
  const s = admission.retryAfterSeconds;
  const wait = `Retry after ${s} second${s === 1 ? '' : 's'} (details.retryAfterSeconds).`;
  const by = admission.refusedBy;
  let message: string;
  if (by === 'global') message = `This API key reached its limit of ${limits.globalPerMinute} requests a minute. ${wait}`;
  else if (by === 'auth_failures') message = `Too many failed authentication attempts from this address. ${wait}`;
  else if (by in RATE_CLASSES) {
    const c = by as RateClass;
    message = `Rate limit reached for ${RATE_CLASSES[c].label}: ${limits.perMinute[c]} a minute per API key. ${wait}`;
  } else {
    const op = by.replace(/_spacing$/, '') as NetworkOperation;
    const what = op === 'profile_lookup' ? 'profile lookup' : 'search page';
    message = `This network account allows one ${what} every ${limits.accountSpacingSeconds[op]} seconds. ${wait}`;
  }
  return new ApiError('rate_limited', message, { retryAfterSeconds: s });
}
