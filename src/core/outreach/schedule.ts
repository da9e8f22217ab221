import type { WorkingHours } from './settings.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

const dayStart = (ms: number): number => ms - (((ms % DAY) + DAY) % DAY);

/** Whether `ms` (UTC) falls inside the working window. No window means always. */
export function isWorkingTime(ms: number, wh: WorkingHours | null): boolean {
  if (wh === null) return true;
  const d = new Date(ms);
  const minute = d.getUTCHours() * 60 + d.getUTCMinutes();
  return wh.days.has(d.getUTCDay()) && minute >= wh.startMinute && minute < wh.endMinute;
}

/** The earliest instant at or after `ms` inside the working window. */
export function nextWorkingTime(ms: number, wh: WorkingHours | null): number {
  if (wh === null || isWorkingTime(ms, wh)) return ms;
  for (let day = dayStart(ms), i = 0; i < 8; day += DAY, i++) {
    const open = day + wh.startMinute * MINUTE;
    const close = day + wh.endMinute * MINUTE;
    if (wh.days.has(new Date(day).getUTCDay()) && ms < close) return Math.max(ms, open);
  }
  // Unreachable with at least one working day; stay safe rather than spin.
  return ms + DAY;
}

/** The first working instant of the next UTC day: when a daily cap frees up. */
export const nextDayWorkingTime = (ms: number, wh: WorkingHours | null): number => nextWorkingTime(dayStart(ms) + DAY, wh);
