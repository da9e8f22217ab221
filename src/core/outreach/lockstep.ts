import { intentStatements } from '../../db/sql/intents.js';
import type { Ctx } from '../context.js';
import { LOCK_STEP_MIN_CALLS } from '../safety/rules.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

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
 * Only accounts with a call in this same minute and one in the minute of the account's first call
 * today can be the twin: those two minutes' calls are read by time (index engine_intents_at), then
 * each candidate's day by account.
 */
export function lockStepTwin(ctx: Ctx, accountId: string, now: number): string | null {
  const s = intentStatements(ctx.db);
  const dayStart = Math.floor(now / DAY) * DAY;
  const mine = s.callsOfAccount.all(accountId, dayStart, now);
  if (mine.length + 1 < LOCK_STEP_MIN_CALLS) return null;
  const minute = Math.floor(now / MINUTE);
  const minutes = [...mine.map((at) => Math.floor(at / MINUTE)), minute];
  const signature = minutes.join(',');
  const first = minutes[0] as number;
  const others = s.othersCalling.all({
    me: accountId,
    from: minute * MINUTE,
    to: (minute + 1) * MINUTE,
    firstFrom: first * MINUTE,
    firstTo: (first + 1) * MINUTE,
  });
  for (const other of others) {
    const theirs = s.callsOfAccount.all(other, dayStart, (minute + 1) * MINUTE - 1);
    if (theirs.length === mine.length + 1 && theirs.map((at) => Math.floor(at / MINUTE)).join(',') === signature) return other;
  }
  return null;
}

/** Until when a call by the account at `now` must wait so as not to be in lock-step (the next minute), or null when it may go. */
export function lockStepWait(ctx: Ctx, accountId: string, now: number): number | null {
  return lockStepTwin(ctx, accountId, now) === null ? null : (Math.floor(now / MINUTE) + 1) * MINUTE;
}
