/** UTC days, as the daily counters (account_daily) count them. */
export const DAY_MS = 86_400_000;

/** The UTC day number of an instant. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** The start of the next UTC day: when daily counters start again. */
export const nextUtcDay = (ms: number): number => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS) + DAY_MS;
