import { intentStatements } from '../../db/sql/intents.js';
import type { Ctx } from '../context.js';
import { LOCK_STEP_MIN_CALLS } from '../safety/rules.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The UTC day of `at` and its minute of that day, as account_call_minutes keeps them. */
const dayAndMinute = (at: number) => ({ day: Math.floor(at / DAY), minute: Math.floor((at % DAY) / MINUTE) });

/**
 * The other account a provider call by `accountId` at `now` would put in lock-step with it, or
 * null: the call would give the account, this UTC day, the very same minutes of calls as that
 * account has (at least LOCK_STEP_MIN_CALLS of them). The send then waits for the next minute.
 *
 * Random spacing alone cannot rule this out: calls are compared by the minute, so with a spacing
 * of 1 to 3 minutes an account's next call falls in one of only 2 or 3 minutes, and accounts
 * woken in the same minute (a batch of approved drafts) share short days' patterns by chance.
 * Checking each call against the others makes it impossible: a day's minutes only grow, so two
 * accounts that differ once differ for the rest of the day, and the only way two become equal is
 * a call that this check refuses. Read inside the transaction that records the call, so calls
 * decided in the same instant by other lanes are seen.
 *
 * Each account's day of calls is kept as one row (account_call_minutes, written by
 * recordCallMinute with every intent), so the twin is one lookup of the day's minutes with this
 * call added, whatever the number of accounts. Reading the calls of the current minute and of the
 * account's first minute instead cost a read per call of those minutes: at 2,000 accounts, whose
 * first calls of a day share the minute their zone opens, several hundred rows per check.
 */
export function lockStepTwin(ctx: Ctx, accountId: string, now: number): string | null {
  const s = intentStatements(ctx.db);
  const { day, minute } = dayAndMinute(now);
  const mine = s.minutesOfDay.get(accountId, day);
  const minutes = mine === undefined ? String(minute) : `${mine},${minute}`;
  // Commas between calls: one fewer than the calls.
  let calls = 1;
  for (let i = minutes.indexOf(','); i >= 0; i = minutes.indexOf(',', i + 1)) calls++;
  if (calls < LOCK_STEP_MIN_CALLS) return null;
  return s.twinOfMinutes.get({ me: accountId, day, minutes }) ?? null;
}

/** Until when a call by the account at `now` must wait so as not to be in lock-step (the next minute), or null when it may go. */
export function lockStepWait(ctx: Ctx, accountId: string, now: number): number | null {
  return lockStepTwin(ctx, accountId, now) === null ? null : (Math.floor(now / MINUTE) + 1) * MINUTE;
}

/**
 * Adds a provider call by a network account at `at` to its day of calls, which lockStepTwin
 * compares: called in the transaction that records the call's intent (not for an operator's
 * manual send or an email, which the audit leaves out of lock-step too).
 */
export function recordCallMinute(ctx: Ctx, accountId: string, at: number): void {
  const { day, minute } = dayAndMinute(at);
  intentStatements(ctx.db).addCallMinute.run({ account: accountId, day, minute: String(minute) });
}
