import { memo } from '../memo.js';
/**
 * Working hours in an account's own time zone. A person works on local weekdays between local
 * times; the engine asks two questions of that: is this instant inside the window, and when does
 * the window next open. Both work on epoch ms and take DST into account through `Intl`.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface WorkingHours {
  /** Minutes after local midnight. */
  startMinute: number;
  /** Minutes after local midnight; 1440 is the end of the day. */
  endMinute: number;
  /** Local weekdays, 0 = Sunday. */
  days: ReadonlySet<number>;
}

/** An account's rhythm: its window (null: every hour of every day), its zone and its daily jitter. */
export interface Rhythm {
  hours: WorkingHours | null;
  timeZone: string;
  /**
   * Minutes by which this account's day opens later and closes earlier than the window, drawn per
   * account and local day, so no two accounts of a workspace start and stop in lock-step.
   */
  jitter: (localDay: number) => { open: number; close: number };
}

const formatters = memo<string, Intl.DateTimeFormat>(1000);

function formatter(timeZone: string): Intl.DateTimeFormat {
  return formatters.get(
    timeZone,
    () =>
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      }),
  );
}

/** Whether `Intl` knows the zone (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

const QUARTER = 15 * MINUTE;
const OFFSETS_MAX_KEYS = 50_000;
/** Offsets by zone and UTC quarter-hour; NaN marks a quarter with a change of offset in it. */
const offsets = memo<string, number>(OFFSETS_MAX_KEYS);

/**
 * The zone's offset from UTC at `ms`, in ms (positive east of Greenwich). `Intl` is slow and the
 * engine asks for every send, so the offset is kept per zone and quarter-hour when it is the same
 * at both ends of the quarter (offsets change at most twice a year); a quarter with a change in
 * it is always computed exactly.
 */
export function zoneOffset(ms: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  const quarter = Math.floor(ms / QUARTER);
  const key = `${timeZone}|${quarter}`;
  const cached = offsets.get(key, () => {
    const start = exactOffset(quarter * QUARTER, timeZone);
    return start === exactOffset((quarter + 1) * QUARTER - 1000, timeZone) ? start : Number.NaN;
  });
  return Number.isNaN(cached) ? exactOffset(ms, timeZone) : cached;
}

function exactOffset(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const asUtc = Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/** The local calendar day of `ms` as days since the epoch (so day + 4 mod 7 is the weekday). */
export const localDayNumber = (ms: number, timeZone: string): number => Math.floor((ms + zoneOffset(ms, timeZone)) / DAY);

/** The UTC instant of `minutes` after local midnight of local day `day`. */
function localToUtc(day: number, minutes: number, timeZone: string): number {
  const guess = day * DAY + minutes * MINUTE;
  const first = guess - zoneOffset(guess, timeZone);
  const second = guess - zoneOffset(first, timeZone);
  return second;
}

const weekdayOf = (day: number): number => (((day + 4) % 7) + 7) % 7;

/** The account's open window on local day `day`, or null when it does not work that day. */
export function windowOn(day: number, rhythm: Rhythm): { open: number; close: number } | null {
  const { hours, timeZone } = rhythm;
  if (hours === null) return { open: localToUtc(day, 0, timeZone), close: localToUtc(day + 1, 0, timeZone) };
  if (!hours.days.has(weekdayOf(day))) return null;
  // The jitter takes at most a quarter of the window from each end, so a short window (an hour,
  // a minute) still opens every working day rather than vanishing into it.
  const j = rhythm.jitter(day);
  const most = Math.floor((hours.endMinute - hours.startMinute) / 4);
  const open = localToUtc(day, hours.startMinute + Math.min(j.open, most), timeZone);
  const close = localToUtc(day, hours.endMinute - Math.min(j.close, most), timeZone);
  return close > open ? { open, close } : null;
}

/** The earliest instant at or after `ms` when the account may send. */
export function nextWorkingTime(ms: number, rhythm: Rhythm): number {
  if (rhythm.hours === null) return ms;
  const today = localDayNumber(ms, rhythm.timeZone);
  for (let day = today - 1; day <= today + 8; day++) {
    const w = windowOn(day, rhythm);
    if (w && ms < w.close) return Math.max(ms, w.open);
  }
  // Unreachable with at least one working day; stay safe rather than spin.
  return ms + DAY;
}

export const isWorkingTime = (ms: number, rhythm: Rhythm): boolean => nextWorkingTime(ms, rhythm) === ms;

/** Whether `ms` lies inside the configured window (without jitter): what the auditor holds the engine to. */
export function insideHours(ms: number, hours: WorkingHours | null, timeZone: string): boolean {
  if (hours === null) return true;
  const day = localDayNumber(ms, timeZone);
  if (!hours.days.has(weekdayOf(day))) return false;
  return ms >= localToUtc(day, hours.startMinute, timeZone) && ms < localToUtc(day, hours.endMinute, timeZone);
}
