import { z } from 'zod';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be HH:MM (00:00 to 24:00)');

/**
 * The `engine` section of the `--config` file. Strict, so a misspelt key is named. Every
 * field is optional; `resolveEngineSettings` fills the defaults. Times are on the simulated
 * clock, in UTC.
 */
export const EngineConfig = z.strictObject({
  /** Sends happen only inside this window; null (the default) sends at any hour. */
  workingHours: z
    .strictObject({
      start: HHMM,
      end: HHMM,
      days: z.array(z.enum(DAYS)).min(1).default(['mon', 'tue', 'wed', 'thu', 'fri']),
    })
    .refine((w) => w.start < w.end, { message: 'start must be before end', path: ['end'] })
    .nullable()
    .optional(),
  /** Randomised pause between two sends of one account, in simulated seconds. */
  spacingSeconds: z
    .strictObject({ min: z.number().min(0), max: z.number().min(0) })
    .refine((s) => s.min <= s.max, { message: 'min must not exceed max', path: ['max'] })
    .optional(),
  /** Provider calls in flight at once (one account sends one at a time). */
  concurrency: z.number().int().min(1).max(64).optional(),
  /** A connection request not accepted after this many days is given up on. */
  invitationTimeoutDays: z.number().positive().optional(),
  /** How long after the last sequence message a lead still counts as having work (a reply may come). */
  replyWaitDays: z.number().min(0).optional(),
  /** Due leads handled per campaign per tick. */
  batchSize: z.number().int().min(1).max(10_000).optional(),
});
export type EngineConfig = z.infer<typeof EngineConfig>;

export interface WorkingHours {
  /** Minutes after UTC midnight. */
  startMinute: number;
  endMinute: number;
  /** UTC weekdays, 0 = Sunday. */
  days: ReadonlySet<number>;
}

export interface EngineSettings {
  workingHours: WorkingHours | null;
  spacingMinMs: number;
  spacingMaxMs: number;
  concurrency: number;
  invitationTimeoutMs: number;
  replyWaitMs: number;
  batchSize: number;
  /** Sends of one lead that fail transiently before the lead is marked failed. */
  maxSendAttempts: number;
  /** Wall-clock pacing of the loop. */
  minTickMs: number;
  maxTickMs: number;
  /** Wall-clock lease: held this long, renewed every `leaseRenewMs`. */
  leaseTtlMs: number;
  leaseRenewMs: number;
}

const DAY_MS = 86_400_000;
const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const DAY_INDEX: Record<(typeof DAYS)[number], number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

export const ENGINE_DEFAULTS = {
  spacingSeconds: { min: 60, max: 180 },
  concurrency: 4,
  invitationTimeoutDays: 21,
  replyWaitDays: 7,
  batchSize: 200,
} as const;

export function resolveEngineSettings(config: EngineConfig = {}): EngineSettings {
  const spacing = config.spacingSeconds ?? ENGINE_DEFAULTS.spacingSeconds;
  const wh = config.workingHours ?? null;
  return {
    workingHours: wh && { startMinute: minutes(wh.start), endMinute: minutes(wh.end), days: new Set(wh.days.map((d) => DAY_INDEX[d])) },
    spacingMinMs: spacing.min * 1000,
    spacingMaxMs: spacing.max * 1000,
    concurrency: config.concurrency ?? ENGINE_DEFAULTS.concurrency,
    invitationTimeoutMs: (config.invitationTimeoutDays ?? ENGINE_DEFAULTS.invitationTimeoutDays) * DAY_MS,
    replyWaitMs: (config.replyWaitDays ?? ENGINE_DEFAULTS.replyWaitDays) * DAY_MS,
    batchSize: config.batchSize ?? ENGINE_DEFAULTS.batchSize,
    maxSendAttempts: 5,
    minTickMs: 20,
    maxTickMs: 250,
    leaseTtlMs: 30_000,
    leaseRenewMs: 5_000,
  };
}
