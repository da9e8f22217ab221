import type { AccountRow } from '../../../src/core/accounts/resolve.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** An account row as stored, with the defaults of a new connected account. */
export const account = (over: Partial<AccountRow> = {}): AccountRow => ({
  seq: 1,
  id: 'acc_a',
  name: 'A',
  status: 'connected',
  active: true,
  hasSalesNavigator: false,
  connectionRequestLimit: 25,
  messageLimit: 50,
  profileVisitLimit: 40,
  postReactionLimit: 30,
  providerAccountId: null,
  createdAt: 0,
  weeklyConnectionRequestLimit: null,
  warmUpStartedAt: null,
  timeZone: 'UTC',
  workingHours: null,
  ...over,
});
