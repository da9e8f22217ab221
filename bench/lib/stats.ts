/** Latency figures in milliseconds. */
export interface Summary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
}

/** The nearest-rank percentile (`p` in 0..100) of ascending-sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error('percentile of no values');
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean };
}

export const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

export interface LoopOptions {
  /** Untimed calls first, so the JIT and SQLite's page cache are warm. */
  warmup: number;
  /** Timed calls; each is timed on its own with process.hrtime. */
  iterations: number;
}

/**
 * Times several functions call by call, in milliseconds, taking turns (a b c, a b c, …): other
 * work on the machine then slows them alike, and their ratio holds. Async functions (the tool
 * pipeline) are awaited.
 */
export async function timeInTurns(fns: readonly (() => unknown)[], opts: LoopOptions): Promise<Summary[]> {
  for (let i = 0; i < opts.warmup; i++) for (const fn of fns) await fn();
  const times = fns.map(() => new Array<number>(opts.iterations));
  for (let i = 0; i < opts.iterations; i++) {
    for (const [k, fn] of fns.entries()) {
      const start = process.hrtime.bigint();
      await fn();
      times[k]![i] = Number(process.hrtime.bigint() - start) / 1e6;
    }
  }
  return times.map(summarize);
}
