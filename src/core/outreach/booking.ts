import { findAccount, type AccountRow } from '../accounts/resolve.js';
import type { Ctx } from '../context.js';
import { nextWorkingTime } from '../safety/hours.js';
import { rhythmOf, type SafetySettings } from '../safety/rules.js';

import { DAY_MS as DAY, dayOf } from './calendar.js';

/**
 * Where an account's invitations held back by a cap are booked: the day being filled, how many
 * are booked on it, the next free slot, and how many it may send a day.
 */
export interface InvitationBooking {
  day: number;
  count: number;
  next: number;
  perDay: number;
}

/** How many invitations a day the account may send: its daily limit, bounded by the weekly cap. */
export function invitationsPerDay(account: AccountRow | undefined, safety: SafetySettings): number {
  if (!account) return 1;
  const weekly = account.weeklyConnectionRequestLimit ?? safety.weeklyConnectionRequestLimit;
  return Math.max(1, Math.min(account.connectionRequestLimit, weekly));
}

/**
 * Books one invitation held by a daily or weekly cap: the next free slot at or after `until`
 * (when the account may invite again), `step` apart, no more a day than `perDay`; a full day
 * moves on to the next day's first working time (`openOn(dayStart)`). A booking behind `until`
 * or `now` starts again. Returns the slot and the booking after it; nothing is stored here.
 */
export function bookInvitation(
  prev: InvitationBooking | undefined,
  input: { until: number; now: number; step: number; perDay: number; openOn: (dayStart: number) => number },
): { at: number; booking: InvitationBooking } {
  let b: InvitationBooking =
    prev === undefined || prev.next < input.until || prev.next < input.now
      ? { day: dayOf(input.until), count: 0, next: input.until, perDay: input.perDay }
      : { ...prev };
  if (b.count >= b.perDay) {
    const open = input.openOn((b.day + 1) * DAY);
    b = { ...b, day: dayOf(open), count: 0, next: open };
  }
  const at = b.next;
  return { at, booking: { ...b, count: b.count + 1, next: at + input.step } };
}

/** `bookInvitation` for an account as stored: its daily limit, weekly cap and working hours. */
export function bookInvitationFor(
  ctx: Ctx,
  safety: SafetySettings,
  accountId: string,
  prev: InvitationBooking | undefined,
  at: { until: number; now: number; step: number },
): { at: number; booking: InvitationBooking } {
  const account = findAccount(ctx, accountId);
  return bookInvitation(prev, {
    ...at,
    perDay: invitationsPerDay(account, safety),
    openOn: (dayStart) => (account ? nextWorkingTime(dayStart, rhythmOf(account, safety)) : dayStart),
  });
}
