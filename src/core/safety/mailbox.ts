import { utcDay } from '../clock.js';
import type { Ctx } from '../context.js';
import { lastSendAt, mailboxSendTimes, mailboxSentOnDay, type MailboxRow } from '../mailboxes/store.js';
import { insideHours, nextWorkingTime } from './hours.js';
import { hoursOf, rhythmOf, warmUpLimit, type SafetySettings } from './rules.js';

/**
 * The sending rules of a mailbox: its daily limit, its warm-up, its working hours and the
 * spacing between two sends. A new mailbox's domain and address have no sending reputation;
 * receiving servers trust volume that grows slowly, so a mailbox warms up over three weeks:
 * day 1 sends at most MAILBOX_WARM_UP.start emails, and the limit rises in equal daily steps to
 * the mailbox's own daily limit on day MAILBOX_WARM_UP.days + 1 (docs/email.md has the table).
 * Days are UTC days of the engine's clock, as an account's are.
 */
export const MAILBOX_WARM_UP = { days: 21, start: 10 } as const;
export const MAILBOX_DAILY_LIMIT_DEFAULT = 50;
export const MAILBOX_DAILY_LIMIT_MAX = 500;
export const MAILBOX_SPACING_DEFAULT_SECONDS = 120;

const DAY = 86_400_000;
const dayStart = (ms: number): number => ms - (((ms % DAY) + DAY) % DAY);

type Row = Pick<MailboxRow, 'id' | 'dailyLimit' | 'warmUpStartedAt' | 'timeZone' | 'workingHours'>;

/** Which day of its warm-up the mailbox is in at `now` (0-based), or null when none runs. */
export function mailboxWarmUpDay(row: Pick<MailboxRow, 'warmUpStartedAt'>, now: number): number | null {
  if (row.warmUpStartedAt === null) return null;
  const index = Math.floor((dayStart(now) - dayStart(row.warmUpStartedAt)) / DAY);
  return index < MAILBOX_WARM_UP.days ? Math.max(0, index) : null;
}

/** The mailbox's limit on the UTC day holding `at`: the warm-up's step that day, never above its own limit. */
export function mailboxLimitOn(row: Row, at: number): number {
  if (row.warmUpStartedAt === null) return row.dailyLimit;
  const index = Math.floor((dayStart(at) - dayStart(row.warmUpStartedAt)) / DAY);
  // Days before a warm-up began (one restarted by update_mailbox) ran at the full limit.
  if (index < 0) return row.dailyLimit;
  return warmUpLimit(row.dailyLimit, Math.min(MAILBOX_WARM_UP.start, row.dailyLimit), MAILBOX_WARM_UP.days, index);
}

/** The mailbox's emails on the UTC day holding `at` (every one that did not fail). */
export function mailboxSentOn(ctx: Pick<Ctx, 'db'>, mailboxId: string, at: number): number {
  return mailboxSentOnDay(ctx, mailboxId, at);
}

export type MailboxWait = 'paused' | 'login_failed' | 'hours' | 'spacing' | 'daily_limit';

/** Whether the mailbox may send at `now`, or from when and why not. */
export type MailboxReadiness = { ready: true } | { ready: false; reason: MailboxWait; until: number | null };

export function mailboxReadiness(
  ctx: Pick<Ctx, 'db'>,
  row: MailboxRow,
  s: SafetySettings,
  now: number,
  spacingMs = row.spacingSeconds * 1000,
): MailboxReadiness {
  if (row.status === 'paused') return { ready: false, reason: 'paused', until: null };
  if (row.status === 'login_failed') return { ready: false, reason: 'login_failed', until: null };
  if (mailboxSentOn(ctx, row.id, now) >= mailboxLimitOn(row, now)) return { ready: false, reason: 'daily_limit', until: dayStart(now) + DAY };
  const rhythm = rhythmOf(row, s);
  const open = nextWorkingTime(now, rhythm);
  if (open > now) return { ready: false, reason: 'hours', until: open };
  const last = lastSendAt(ctx, row.id);
  if (last !== null && now - last < spacingMs) return { ready: false, reason: 'spacing', until: last + spacingMs };
  return { ready: true };
}

export interface MailboxViolation {
  rule: 'mailbox_daily_cap' | 'mailbox_working_hours' | 'mailbox_spacing';
  mailboxId: string;
  day: string;
  detail: string;
}

/** Replays a mailbox's sends against its rules: the daily limit (warm-up applied), its working hours, its spacing. */
export function auditMailbox(ctx: Pick<Ctx, 'db'>, row: MailboxRow, s: SafetySettings): MailboxViolation[] {
  const out: MailboxViolation[] = [];
  const sends = mailboxSendTimes(ctx, row.id, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const perDay = new Map<string, { count: number; at: number }>();
  const { hours, timeZone } = hoursOf(row, s);
  const spacingMs = row.spacingSeconds * 1000;
  let previous: number | null = null;
  for (const at of sends) {
    const day = utcDay(at);
    const d = perDay.get(day) ?? { count: 0, at };
    d.count++;
    perDay.set(day, d);
    if (!insideHours(at, hours, timeZone))
      out.push({ rule: 'mailbox_working_hours', mailboxId: row.id, day, detail: `email at ${new Date(at).toISOString()} outside working hours (${timeZone})` });
    if (previous !== null && at - previous < spacingMs)
      out.push({
        rule: 'mailbox_spacing',
        mailboxId: row.id,
        day,
        detail: `email ${Math.round((at - previous) / 1000)} s after the previous one, minimum ${row.spacingSeconds} s`,
      });
    previous = at;
  }
  for (const [day, { count, at }] of perDay) {
    const limit = mailboxLimitOn(row, at);
    if (count > limit) out.push({ rule: 'mailbox_daily_cap', mailboxId: row.id, day, detail: `${count} emails, limit ${limit}` });
  }
  return out;
}
