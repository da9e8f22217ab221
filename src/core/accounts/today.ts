import { utcDay } from '../clock.js';
import type { Ctx } from '../context.js';

/**
 * The day an account's `today` counters belong to: the UTC day of the engine's clock
 * (`ctx.simClock`). The engine checks its daily caps on that day, every send and acceptance is
 * counted on that day at the moment it is recorded, and `list_accounts` shows that day, so at
 * any `--sim-speed` the counters show what the engine counted against the caps it applies.
 * At speed 1 the engine's day is the wall-clock day. See docs/rate-limits.md, "Which day is today".
 */
export const accountToday = (ctx: Pick<Ctx, 'simClock'>): string => utcDay(ctx.simClock.now());
