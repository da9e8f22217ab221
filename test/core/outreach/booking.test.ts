import { describe, expect, it } from 'vitest';
import { bookInvitation, invitationsPerDay, type InvitationBooking } from '../../../src/core/outreach/booking.js';
import { resolveEngineSettings } from '../../../src/core/outreach/settings.js';
import { account, DAY, HOUR, MINUTE } from './helpers.js';

const safety = resolveEngineSettings({}).safety;
const D = 20_000 * DAY;
/** Opens every day at 09:00 UTC. */
const openOn = (dayStart: number) => dayStart + 9 * HOUR;

describe('invitation booking', () => {
  it('allows a day the daily limit, bounded by the weekly cap, and at least one', () => {
    expect(invitationsPerDay(account({ connectionRequestLimit: 25 }), safety)).toBe(25);
    expect(invitationsPerDay(account({ connectionRequestLimit: 25, weeklyConnectionRequestLimit: 10 }), safety)).toBe(10);
    expect(invitationsPerDay(account({ connectionRequestLimit: 0 }), safety)).toBe(1);
    expect(invitationsPerDay(undefined, safety)).toBe(1);
  });

  it('books invitations a step apart from when the account may invite again, and moves on when a day is full', () => {
    const until = D + 9 * HOUR;
    let booking: InvitationBooking | undefined;
    const slots: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = bookInvitation(booking, { until, now: D, step: 2 * MINUTE, perDay: 2, openOn });
      slots.push(r.at);
      booking = r.booking;
    }
    expect(slots).toEqual([until, until + 2 * MINUTE, D + DAY + 9 * HOUR, D + DAY + 9 * HOUR + 2 * MINUTE, D + 2 * DAY + 9 * HOUR]);
    expect(booking).toEqual({ day: (D + 2 * DAY) / DAY, count: 1, next: D + 2 * DAY + 9 * HOUR + 2 * MINUTE, perDay: 2 });
  });

  it('starts again when the booking is behind the new wait or the clock', () => {
    const first = bookInvitation(undefined, { until: D + HOUR, now: D, step: MINUTE, perDay: 5, openOn }).booking;
    expect(bookInvitation(first, { until: D + 3 * HOUR, now: D, step: MINUTE, perDay: 5, openOn }).at).toBe(D + 3 * HOUR);
    expect(bookInvitation(first, { until: D + HOUR, now: D + 2 * HOUR, step: MINUTE, perDay: 5, openOn }).at).toBe(D + HOUR);
    expect(bookInvitation(first, { until: D + HOUR, now: D, step: MINUTE, perDay: 5, openOn }).at).toBe(D + HOUR + MINUTE);
  });
});
