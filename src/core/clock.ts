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

export const iso = (ms: number): string => new Date(ms).toISOString();

/** What `iso` renders, as output schemas declare it: a plain date-time string, without zod's long ISO regex. */
export const IsoTimestamp = z.string().meta({ format: 'date-time' });

const DAY_MS = 86_400_000;
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
