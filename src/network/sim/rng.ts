import { hash } from 'node:crypto';

/**
 * SHA-256 of a string. Every simulated value starts from one of these, so it survives restarts.
 * The one-shot `crypto.hash` costs half a `createHash` object; the simulator draws several a call.
 */
export const sha256 = (text: string): Buffer => hash('sha256', text, 'buffer');

/** The first `length` hex characters of SHA-256, for ids. */
export const hashHex = (text: string, length = 16): string => sha256(text).toString('hex').slice(0, length);

/**
 * Reads `items[i]`. Callers index with `rng.int(items.length)` or a validated code, so the
 * element exists; this keeps `noUncheckedIndexedAccess` honest in one place.
 */
export function at<T>(items: readonly T[], i: number): T {
  return items[i] as T;
}

/** sfc32 seeded from a SHA-256 digest: small, fast and good enough to look random. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    const h = sha256(seed);
    this.a = h.readUInt32LE(0);
    this.b = h.readUInt32LE(4);
    this.c = h.readUInt32LE(8);
    this.d = h.readUInt32LE(12);
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return at(items, this.int(items.length));
  }

  /** Index drawn with probability proportional to `weights[i]`. */
  weighted(weights: readonly number[]): number {
    let r = this.next() * weights.reduce((sum, w) => sum + w, 0);
    for (let i = 0; i < weights.length; i++) {
      r -= at(weights, i);
      if (r < 0) return i;
    }
    return weights.length - 1;
  }
}
