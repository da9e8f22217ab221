/**
 * Token buckets: `limit` tokens of capacity, refilled continuously at `limit` per `windowMs`.
 * A bucket is its token level at the instant it last changed, so all arithmetic is on small
 * numbers (epoch milliseconds only ever enter as an exact integer difference). A full bucket
 * is the same as a missing one, so full buckets can be dropped at any time.
 */
export interface Rate {
  /** Bucket capacity, and tokens added per window. */
  limit: number;
  windowMs: number;
}

export interface BucketState {
  /** Whole tokens left. */
  remaining: number;
  /** Milliseconds until the next whole token arrives; null when the bucket is full. */
  nextTokenMs: number | null;
  /** Milliseconds until one request would pass; 0 when it passes now. */
  retryAfterMs: number;
}

interface Bucket {
  tokens: number;
  at: number;
  /** When the bucket is full again, and so may be forgotten. */
  fullAt: number;
}

/** Float slack in tokens, so that e.g. 7 requests a minute never fail on rounding. */
const EPSILON = 1e-9;

const msPerToken = (rate: Rate): number => rate.windowMs / rate.limit;

function level(bucket: Bucket | undefined, rate: Rate, now: number): number {
  if (!bucket) return rate.limit;
  return Math.min(rate.limit, bucket.tokens + (Math.max(0, now - bucket.at) * rate.limit) / rate.windowMs);
}

function stateOf(tokens: number, rate: Rate): BucketState {
  const whole = Math.floor(tokens + EPSILON);
  const full = tokens >= rate.limit - EPSILON;
  return {
    remaining: Math.max(0, whole),
    nextTokenMs: full ? null : (whole + 1 - tokens) * msPerToken(rate),
    retryAfterMs: tokens >= 1 - EPSILON ? 0 : (1 - tokens) * msPerToken(rate),
  };
}

export interface BucketStoreOptions {
  /** Above this many keys, full buckets are swept at once and then the oldest keys dropped. */
  maxKeys?: number;
  /** How often full buckets are swept in normal operation. */
  sweepEveryMs?: number;
}

/** Buckets keyed by string, with bounded memory: idle (full) buckets are evicted. */
export class BucketStore {
  /** Insertion order doubles as recency: a key is re-inserted on every take. */
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxKeys: number;
  private readonly sweepEveryMs: number;
  private lastSweep = Number.NEGATIVE_INFINITY;
  /** When the last bucket left without a whole token gets one back. */
  private emptyUntil = Number.NEGATIVE_INFINITY;

  constructor(options: BucketStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 100_000;
    this.sweepEveryMs = options.sweepEveryMs ?? 60_000;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Whether some bucket may still be empty at `now`: false means every bucket holds a token. */
  anyEmptyAt(now: number): boolean {
    return now < this.emptyUntil;
  }

  /** The bucket as it stands, consuming nothing. */
  peek(key: string, rate: Rate, now: number): BucketState {
    return stateOf(level(this.buckets.get(key), rate, now), rate);
  }

  /** Consumes one token. The caller has checked (with `peek`) that one is there. */
  take(key: string, rate: Rate, now: number): BucketState {
    const tokens = Math.max(0, level(this.buckets.get(key), rate, now) - 1);
    if (tokens < 1 - EPSILON) this.emptyUntil = Math.max(this.emptyUntil, now + (1 - tokens) * msPerToken(rate));
    this.buckets.delete(key);
    this.buckets.set(key, { tokens, at: now, fullAt: now + (rate.limit - tokens) * msPerToken(rate) });
    this.evict(now);
    return stateOf(tokens, rate);
  }

  /** Gives one token back (a request that was charged and then refused): never above the limit. */
  give(key: string, rate: Rate, now: number): BucketState {
    const held = this.buckets.get(key);
    if (held === undefined) return stateOf(rate.limit, rate);
    const tokens = Math.min(rate.limit, level(held, rate, now) + 1);
    this.buckets.set(key, { tokens, at: now, fullAt: now + (rate.limit - tokens) * msPerToken(rate) });
    return stateOf(tokens, rate);
  }

  clear(): void {
    this.buckets.clear();
    this.emptyUntil = Number.NEGATIVE_INFINITY;
  }

  private evict(now: number): void {
    const overfull = this.buckets.size > this.maxKeys;
    if (!overfull && now - this.lastSweep < this.sweepEveryMs) return;
    this.lastSweep = now;
    for (const [key, b] of this.buckets) if (b.fullAt <= now) this.buckets.delete(key);
    // Only a flood of distinct keys gets here; forgetting the least recent is the bounded answer.
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}
