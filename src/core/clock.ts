import { z } from 'zod';
import { memo } from './memo.js';

/**
 * Time reaches the domain only through a Clock, so tests and the simulator can move it.
 * `now()` is epoch milliseconds.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. Used by unit tests and deterministic runs. */
export class FakeClock implements Clock {
  constructor(private ms: number = Date.parse('2026-11-21T12:00:00Z')) {}
  now(): number {
    return this.ms;
  }
  set(ms: number | string | Date): void {
    this.ms = typeof ms === 'number' ? ms : new Date(ms).getTime();
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

const DAY_MS = 86_400_000;
/** The largest time a Date holds, either side of 1970 (ECMA-262's TimeClip). */
const MAX_TIME = 8.64e15;
/** Days as `iso` begins them (`2026-11-30T`), by their start. */
const isoDays = memo<number, string>(64);
const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * An instant as ISO 8601 in UTC, exactly as `Date.prototype.toISOString` writes it (and throwing
 * its RangeError for an invalid time). The day's part is kept per day and the time of day written
 * here: toISOString costs about a microsecond a call, and a page of 50 drafts or leads renders a
 * hundred timestamps or more.
 */
export function iso(ms: number): string {
  // Outside Date's range, or not a number: toISOString's own error.
  if (!(Math.abs(ms) <= MAX_TIME)) return new Date(ms).toISOString();
  const t = Math.trunc(ms);
  const start = Math.floor(t / DAY_MS) * DAY_MS;
  const day = isoDays.get(start, (s) => {
    const full = new Date(s).toISOString();
    return full.slice(0, full.indexOf('T') + 1);
  });
  let rest = t - start;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const sec = rest % 60;
  rest = (rest - sec) / 60;
  const min = rest % 60;
  return `${day}${two((rest - min) / 60)}:${two(min)}:${two(sec)}.${three(milli)}Z`;
}

/** What `iso` renders, as output schemas declare it: a plain date-time string, without zod's long ISO regex. */
export const IsoTimestamp = z.string().meta({ format: 'date-time' });

/** Days rendered by `utcDay`, by their start: the engine asks for a few days many times a send. */
const dayNames = memo<number, string>(64);

/** The UTC calendar day of an instant, as `YYYY-MM-DD`. */
export const utcDay = (ms: number): string => dayNames.get(Math.floor(ms / DAY_MS) * DAY_MS, (start) => new Date(start).toISOString().slice(0, 10));

/** Milliseconds from `ms` to the next UTC midnight. */
export const msToNextUtcMidnight = (ms: number): number => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - ms;
};

/**
 * The simulated clock: `anchorSim + (wall − anchorWall) × speed`. It starts at `anchorSim`
 * (normally the wall time, or a later time a previous run reached) and runs `speed` times
 * faster than `wall`.
 */
export class ScaledClock implements Clock {
  private readonly anchorWall: number;
  constructor(
    private readonly wall: Clock,
    readonly speed: number,
    private readonly anchorSim: number = wall.now(),
  ) {
    this.anchorWall = wall.now();
  }
  now(): number {
    return this.anchorSim + Math.floor((this.wall.now() - this.anchorWall) * this.speed);
  }
}
