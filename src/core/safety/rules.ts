import { z } from 'zod';
import type { accounts } from '../../db/schema.js';
import { activityStatements, type WeekRow } from '../../db/sql/activity.js';
import { kindsOfMany } from '../../db/sql/intents.js';
import { OWN_LIMITS } from '../steps/registry.js';
import { utcDay } from '../clock.js';
import type { Ctx } from '../context.js';
import { isTimeZone, WEEKDAYS, type Rhythm, type WorkingHours } from './hours.js';
import type { SafetySettings } from './types.js';

export type { SafetySettings };

type AccountRow = typeof accounts.$inferSelect;

const DAY = 86_400_000;
const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be HH:MM (00:00 to 24:00)');
const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** A working window as written in the config, a workspace file or an account: local times and weekdays. */
export const WorkingHoursInput = z
  .strictObject({
    start: HHMM,
    end: HHMM,
    days: z.array(z.enum(WEEKDAYS)).min(1).default(['mon', 'tue', 'wed', 'thu', 'fri']),
  })
  .refine((w) => w.start < w.end, { message: 'start must be before end', path: ['end'] });
export type WorkingHoursInput = z.infer<typeof WorkingHoursInput>;

export const TimeZone = z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin or UTC');

/** The account-safety keys of the config's `engine` section. Every one is optional. */
export const SafetyConfig = {
  /** The default window of every account; null sends at any hour. */
  workingHours: WorkingHoursInput.nullable().optional(),
  /** The default zone of the window, for accounts that set none. */
  timeZone: TimeZone.optional(),
  /** Up to this many minutes, drawn per account and day, the day opens later and closes earlier. */
  rhythmJitterMinutes: z.number().int().min(0).max(120).optional(),
  /** Rolling 7-day cap on connection requests, for accounts that set none. */
  weeklyConnectionRequestLimit: z.number().int().min(1).max(1000).optional(),
  warmUp: z
    .strictObject({
      /** Days from the first (lowest) limit to the account's configured limits. */
      days: z.number().int().min(1).max(90).optional(),
      /** Limits of the first day; they rise in equal steps to the configured ones. */
      connectionRequestsStart: z.number().int().min(1).max(100).optional(),
      messagesStart: z.number().int().min(1).max(150).optional(),
      profileVisitsStart: z.number().int().min(1).max(150).optional(),
      postReactionsStart: z.number().int().min(1).max(100).optional(),
      /** Whether connect_account warms a new account up when its call does not say (default true). */
      onConnect: z.boolean().optional(),
    })
    .optional(),
  /** Withdraw invitations still pending when the invitation timeout runs out (default true). */
  withdrawStaleInvitations: z.boolean().optional(),
};

/**
 * Two accounts whose provider calls of a UTC day fall in the very same minutes, at least this
 * many of them, send in lock-step: a pattern that links the accounts. The engine never makes
 * one (core/outreach/lockstep.ts) and the safety audit reports any.
 */
export const LOCK_STEP_MIN_CALLS = 3;

export const SAFETY_DEFAULTS = {
  workingHours: { start: '09:00', end: '18:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] } satisfies WorkingHoursInput,
  timeZone: 'UTC',
  rhythmJitterMinutes: 30,
  weeklyConnectionRequestLimit: 100,
  warmUp: { days: 14, connectionRequestsStart: 5, messagesStart: 10, onConnect: true },
  /** Where the warm-up starts the daily visit and like limits. */
  actionsWarmUp: { profileVisitsStart: 10, postReactionsStart: 5 },
} as const;

const DAY_INDEX = Object.fromEntries(WEEKDAYS.map((d, i) => [d, i])) as Record<(typeof WEEKDAYS)[number], number>;

export function toWorkingHours(w: WorkingHoursInput | null): WorkingHours | null {
  return w && { startMinute: minutes(w.start), endMinute: minutes(w.end), days: new Set(w.days.map((d) => DAY_INDEX[d])) };
}

type SafetyConfigInput = { [K in keyof typeof SafetyConfig]?: z.infer<(typeof SafetyConfig)[K]> };

export function resolveSafety(config: SafetyConfigInput = {}): SafetySettings {
  return {
    workingHours: toWorkingHours(config.workingHours === undefined ? WorkingHoursInput.parse(SAFETY_DEFAULTS.workingHours) : config.workingHours),
    timeZone: config.timeZone ?? SAFETY_DEFAULTS.timeZone,
    jitterMinutes: config.rhythmJitterMinutes ?? SAFETY_DEFAULTS.rhythmJitterMinutes,
    weeklyConnectionRequestLimit: config.weeklyConnectionRequestLimit ?? SAFETY_DEFAULTS.weeklyConnectionRequestLimit,
    warmUp: warmUpOf(config.warmUp),
    actionsWarmUp: {
      profileVisitsStart: config.warmUp?.profileVisitsStart ?? SAFETY_DEFAULTS.actionsWarmUp.profileVisitsStart,
      postReactionsStart: config.warmUp?.postReactionsStart ?? SAFETY_DEFAULTS.actionsWarmUp.postReactionsStart,
    },
    withdrawStaleInvitations: config.withdrawStaleInvitations ?? true,
  };
}

/** The invitation and message curve and `onConnect`; the visit and like starts are kept apart, in `actionsWarmUp`. */
function warmUpOf(config: SafetyConfigInput['warmUp']): SafetySettings['warmUp'] {
  const { profileVisitsStart: _v, postReactionsStart: _r, ...rest } = config ?? {};
  return { ...SAFETY_DEFAULTS.warmUp, ...rest };
}

/** The settings a context runs with: the server's, else the defaults. */
export const safetyOf = (ctx: Pick<Ctx, 'safety'>): SafetySettings => ctx.safety ?? DEFAULT_SAFETY;
const DEFAULT_SAFETY = resolveSafety();

/** An account's stored window: `"always"`, a window, or null for the config's default. */
export const AccountHoursInput = z.union([z.literal('always'), WorkingHoursInput]);
export type AccountHoursInput = z.infer<typeof AccountHoursInput>;

/** Reads the stored `working_hours` column; anything unreadable falls back to the default. */
function storedHours(json: string | null, fallback: WorkingHours | null): WorkingHours | null {
  if (json === null) return fallback;
  try {
    const parsed = AccountHoursInput.safeParse(JSON.parse(json));
    if (!parsed.success) return fallback;
    return parsed.data === 'always' ? null : toWorkingHours(parsed.data);
  } catch {
    return fallback;
  }
}

/** A 32-bit hash of a string (FNV-1a), for the per-account jitter. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The account's working rhythm: its window, zone and per-day jitter. */
export function rhythmOf(account: Pick<AccountRow, 'id' | 'timeZone' | 'workingHours'>, s: SafetySettings): Rhythm {
  const span = s.jitterMinutes;
  return {
    hours: storedHours(account.workingHours, s.workingHours),
    timeZone: account.timeZone ?? s.timeZone,
    jitter: (day) =>
      span === 0 ? { open: 0, close: 0 } : { open: hash(`${account.id}:${day}:open`) % (span + 1), close: hash(`${account.id}:${day}:close`) % (span + 1) },
  };
}

/** The account's configured window and zone, without jitter: what the auditor checks against. */
export function hoursOf(account: Pick<AccountRow, 'timeZone' | 'workingHours'>, s: SafetySettings): { hours: WorkingHours | null; timeZone: string } {
  return { hours: storedHours(account.workingHours, s.workingHours), timeZone: account.timeZone ?? s.timeZone };
}

/** Day `index` of a warm-up (0 = the day it began): rises in equal steps from `start` to `full`. */
export function warmUpLimit(full: number, start: number, days: number, index: number): number {
  if (index >= days || start >= full) return full;
  return Math.min(full, Math.round(start + ((full - start) * Math.max(0, index)) / days));
}

const dayStart = (ms: number): number => ms - (((ms % DAY) + DAY) % DAY);

/** Which day of its warm-up the account is in at `now` (0-based), or null when it has none or it is over. */
export function warmUpDay(account: Pick<AccountRow, 'warmUpStartedAt'>, s: SafetySettings, now: number): number | null {
  if (account.warmUpStartedAt === null) return null;
  const index = Math.floor((dayStart(now) - dayStart(account.warmUpStartedAt)) / DAY);
  return index < s.warmUp.days ? Math.max(0, index) : null;
}

export interface Allowance {
  /** Today's (UTC) limits in force: warm-up and the weekly cap applied; never above the configured ones. */
  connectionRequestLimit: number;
  messageLimit: number;
  /** Profile visits and post reactions (a sequence's `visit` and `like_post` steps), warm-up applied. */
  profileVisitLimit: number;
  postReactionLimit: number;
  connectionRequestsSentToday: number;
  /** Messages of every kind today, InMails included. */
  messagesSentToday: number;
  profileVisitsToday: number;
  postReactionsToday: number;
  /** Connection requests in the rolling week: today and the six UTC days before. */
  week: { connectionRequestsSent: number; connectionRequestLimit: number };
  /**
   * The limits step kinds declare of their own (src/core/steps/), by name: today's limit
   * (warm-up applied) and the kind's sends today. Empty when no kind declares one.
   */
  own?: Record<string, { limit: number; today: number }>;
  /** Day of the warm-up (0-based), or null when none is running. */
  warmUpDay: number | null;
  /** When the weekly cap holds connection requests: the start of the first UTC day it frees one; else null. */
  weekFullUntil: number | null;
}

/**
 * What the account may still send today, from its stored counters (so a restart forgets
 * nothing). Days are UTC days, as `today` in list_accounts; the week is today and the six
 * days before it.
 */
export function allowance(ctx: Ctx, account: AccountRow, s: SafetySettings, now: number): Allowance {
  return allowances(ctx, [account], s, now).get(account.id) as Allowance;
}

/**
 * The account's rolling week of invitations (`allowance(...).week`) without reading the step
 * kinds' own counts of today, which the week does not need: the touch pacing asks it for every
 * visit and like.
 */
export function weekAllowance(ctx: Ctx, account: AccountRow, s: SafetySettings, now: number): Allowance['week'] {
  return allowances(ctx, [account], s, now, false).get(account.id)?.week as Allowance['week'];
}

/** `allowance` for several accounts at once, read in one statement (`withOwn` false: the kinds' own counts left at 0). */
export function allowances(ctx: Ctx, accountRows: readonly AccountRow[], s: SafetySettings, now: number, withOwn = true): Map<string, Allowance> {
  const out = new Map<string, Allowance>();
  if (accountRows.length === 0) return out;
  const today = dayStart(now);
  const day = (k: number) => utcDay(today - (6 - k) * DAY);
  const rows = activityStatements(ctx.db).weekOfMany.all({
    ids: JSON.stringify(accountRows.map((a) => a.id)),
    d0: day(0),
    d1: day(1),
    d2: day(2),
    d3: day(3),
    d4: day(4),
    d5: day(5),
    d6: day(6),
  });
  const weeks = new Map(rows.map((r) => [r.accountId, r]));
  const own = withOwn ? ownCounts(ctx, accountRows, today, now) : new Map<string, Map<string, number>>();
  for (const account of accountRows) out.set(account.id, allowanceFrom(account, weeks.get(account.id), s, now, own.get(account.id)));
  return out;
}

/**
 * `allowances`, taking those in `known` (counters the caller read for this same instant) as they
 * are: only the other accounts are read, in one statement (none when every one is known).
 */
export function allowancesWith(
  ctx: Ctx,
  accountRows: readonly AccountRow[],
  s: SafetySettings,
  now: number,
  known: ReadonlyMap<string, Allowance> | undefined,
): Map<string, Allowance> {
  if (known === undefined) return allowances(ctx, accountRows, s, now);
  const out = allowances(
    ctx,
    accountRows.filter((a) => !known.has(a.id)),
    s,
    now,
  );
  for (const a of accountRows) {
    const kept = known.get(a.id);
    if (kept !== undefined) out.set(a.id, kept);
  }
  return out;
}

const OWN_INTENTS = OWN_LIMITS.map((l) => l.intent);

/** Today's sends of the kinds with a limit of their own, per account and intent kind (one statement; none when no kind has one). */
function ownCounts(ctx: Ctx, accountRows: readonly AccountRow[], today: number, now: number): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  if (OWN_LIMITS.length === 0) return out;
  const rows = kindsOfMany(ctx.db, OWN_INTENTS).all({
    ids: JSON.stringify(accountRows.map((a) => a.id)),
    from: today,
    to: Math.max(now + 1, today + DAY),
  });
  for (const r of rows) {
    const byKind = out.get(r.accountId) ?? new Map<string, number>();
    byKind.set(r.kind, r.n);
    out.set(r.accountId, byKind);
  }
  return out;
}

/** The limits of their own that step kinds declare, on day `wd` of a warm-up (null: none runs): each rises from its start to its full value. */
export function ownDailyLimits(s: SafetySettings, wd: number | null): { name: string; intent: string; label: string; limit: number }[] {
  return OWN_LIMITS.map((l) => ({
    name: l.own,
    intent: l.intent,
    label: l.label,
    limit: wd === null ? l.perDay : warmUpLimit(l.perDay, l.warmUpStart, s.warmUp.days, wd),
  }));
}

/** The account's daily limits on a day `wd` of its warm-up (null: none runs): they rise from the start values to the configured ones. */
export function dailyLimits(
  account: Pick<AccountRow, 'connectionRequestLimit' | 'messageLimit' | 'profileVisitLimit' | 'postReactionLimit'>,
  s: SafetySettings,
  wd: number | null,
): { connections: number; messages: number; visits: number; reactions: number } {
  const ramp = (full: number, start: number) => (wd === null ? full : warmUpLimit(full, start, s.warmUp.days, wd));
  return {
    connections: ramp(account.connectionRequestLimit, s.warmUp.connectionRequestsStart),
    messages: ramp(account.messageLimit, s.warmUp.messagesStart),
    visits: ramp(account.profileVisitLimit, s.actionsWarmUp.profileVisitsStart),
    reactions: ramp(account.postReactionLimit, s.actionsWarmUp.postReactionsStart),
  };
}

function allowanceFrom(account: AccountRow, week: WeekRow | undefined, s: SafetySettings, now: number, ownToday?: ReadonlyMap<string, number>): Allowance {
  const today = dayStart(now);
  // Invitations day by day, six days ago first and today last; an account with no row sent none.
  const conn = week ? [week.conn0, week.conn1, week.conn2, week.conn3, week.conn4, week.conn5, week.conn6] : [0, 0, 0, 0, 0, 0, 0];
  const connToday = conn[6] as number;
  const weekSent = conn.reduce((n, c) => n + c, 0);
  const weeklyLimit = account.weeklyConnectionRequestLimit ?? s.weeklyConnectionRequestLimit;
  const wd = warmUpDay(account, s, now);
  const limits = dailyLimits(account, s, wd);
  const dailyConn = limits.connections;
  const dailyMsg = limits.messages;
  const weekRoom = Math.max(0, weeklyLimit - (weekSent - connToday));
  let weekFullUntil: number | null = null;
  if (weekSent >= weeklyLimit) {
    // The window slides one day at a time; the first day whose window holds less than the cap frees a slot.
    for (let k = 1; k <= 7; k++) {
      let sum = 0;
      for (let d = k; d <= 6; d++) sum += conn[d] as number;
      if (sum < weeklyLimit) {
        weekFullUntil = today + k * DAY;
        break;
      }
    }
  }
  return {
    connectionRequestLimit: Math.min(dailyConn, weekRoom),
    messageLimit: dailyMsg,
    profileVisitLimit: limits.visits,
    postReactionLimit: limits.reactions,
    connectionRequestsSentToday: connToday,
    messagesSentToday: week?.msgs ?? 0,
    profileVisitsToday: week?.visits ?? 0,
    postReactionsToday: week?.reactions ?? 0,
    week: { connectionRequestsSent: weekSent, connectionRequestLimit: weeklyLimit },
    own: Object.fromEntries(ownDailyLimits(s, wd).map((l) => [l.name, { limit: l.limit, today: ownToday?.get(l.intent) ?? 0 }])),
    warmUpDay: wd,
    weekFullUntil,
  };
}
