import { z } from 'zod';
import { resolveSafety, SafetyConfig, type SafetySettings } from '../safety/rules.js';
import type { WorkingHours } from '../safety/hours.js';

export type { WorkingHours };

/**
 * The `engine` section of the `--config` file. Strict, so a misspelt key is named. Every
 * field is optional; `resolveEngineSettings` fills the defaults. Times are on the simulated
 * clock.
 */
export const EngineConfig = z.strictObject({
  /**
   * Account safety: working hours (default weekdays 09:00-18:00 in `timeZone`, null for every
   * hour), the rhythm jitter, the weekly invitation cap, the warm-up curve and stale-invitation
   * withdrawal. Each account may override hours, zone and weekly cap.
   */
  ...SafetyConfig,
  /** Randomised pause between two sends of one account, in simulated seconds. */
  spacingSeconds: z
    .strictObject({ min: z.number().min(0), max: z.number().min(0) })
    .refine((s) => s.min <= s.max, { message: 'min must not exceed max', path: ['max'] })
    .optional(),
  /** Provider calls in flight at once, across accounts (one account sends one at a time). */
  concurrency: z.number().int().min(1).max(64).optional(),
  /** A connection request not accepted after this many days is given up on. */
  invitationTimeoutDays: z.number().positive().optional(),
  /** How long after the last sequence message a lead still counts as having work (a reply may come). */
  replyWaitDays: z.number().min(0).optional(),
  /** Due leads handled per campaign per tick. */
  batchSize: z.number().int().min(1).max(10_000).optional(),
});
export type EngineConfig = z.infer<typeof EngineConfig>;

export interface EngineSettings {
  /** Caps, warm-up, working hours and withdrawal: the rules that protect the accounts. */
  safety: SafetySettings;
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

export const ENGINE_DEFAULTS = {
  spacingSeconds: { min: 60, max: 180 },
  concurrency: 16,
  invitationTimeoutDays: 21,
  replyWaitDays: 7,
  batchSize: 200,
} as const;

export function resolveEngineSettings(config: EngineConfig = {}): EngineSettings {
  const spacing = config.spacingSeconds ?? ENGINE_DEFAULTS.spacingSeconds;
  return {
    safety: resolveSafety(config),
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
