import type { AccountRow } from '../accounts/resolve.js';
import type { Ctx } from '../context.js';
import { ApiError, toApiError } from '../errors.js';
import { nextWorkingTime } from '../safety/hours.js';
import { rhythmOf, type SafetySettings } from '../safety/rules.js';
import { nextUtcDay } from './calendar.js';

const MINUTE = 60_000;
/** How long an account that is not connected (or refused as disconnected) is left alone before it is tried again. */
export const ACCOUNT_RETRY_MS = 60 * MINUTE;
/** First backoff after a transient provider failure; doubles per attempt. */
export const RETRY_BASE_MS = 15 * MINUTE;

export type FailureClass = 'retry' | 'account' | 'quota' | 'permanent';

/** What a provider error code means for the next try. */
export function classify(code: string): FailureClass {
  if (code === 'upstream_unavailable') return 'retry';
  if (code === 'account_disconnected') return 'account';
  if (code === 'network_daily_quota') return 'quota';
  return 'permanent';
}

export interface FailurePlan {
  cls: FailureClass;
  /** When the lead's send is tried again (while it has attempts left; see settleFailed). */
  retryAt: number;
  /** Until when the account sends nothing: the provider's quota or a disconnection speak for the account, not the lead. */
  accountBlockedUntil: number | null;
}

/**
 * When to try again after a send failed with `code`, the lead's `attempts`-th failure in a row:
 * a transient failure backs off exponentially (15 min, 30, 60, ...); the provider's daily quota
 * holds the account until its next working time on the next UTC day; a disconnection holds it
 * an hour. A permanent failure is not retried (settleFailed ends the lead's step).
 */
export function planAfterFailure(code: string, attempts: number, account: AccountRow | null, now: number, safety: SafetySettings): FailurePlan {
  const cls = classify(code);
  if (cls === 'quota') {
    const until = account ? nextWorkingTime(nextUtcDay(now), rhythmOf(account, safety)) : nextUtcDay(now);
    return { cls, retryAt: until, accountBlockedUntil: until };
  }
  if (cls === 'account') return { cls, retryAt: now + ACCOUNT_RETRY_MS, accountBlockedUntil: now + ACCOUNT_RETRY_MS };
  return { cls, retryAt: now + RETRY_BASE_MS * 2 ** attempts, accountBlockedUntil: null };
}

/** When to look at a lead again after the engine could not process it (an unexpected error, not the provider's answer). */
export const retryAfterError = (now: number): number => now + RETRY_BASE_MS;

/**
 * A provider call that failed: its error code (anything not an ApiError is the server's own
 * temporary failure) and what follows for the lead and its account. A polite close is not on
 * the due queue (it is found by its pending close), so its next try is given apart: `closeAt`.
 */
export function sendFailure(
  ctx: Ctx,
  safety: SafetySettings,
  send: { intentId: string; leadId: string; kind: string; attempts: number },
  account: AccountRow | null,
  err: unknown,
): { code: string; plan: FailurePlan; closeAt: number | null } {
  const error = toApiError(err);
  if (!(err instanceof ApiError)) ctx.log.warn({ err, intentId: send.intentId }, 'provider call failed unexpectedly');
  const plan = planAfterFailure(error.code, send.attempts, account, ctx.simClock.now(), safety);
  ctx.log.info({ leadId: send.leadId, kind: send.kind, code: error.code }, 'send failed');
  return { code: error.code, plan, closeAt: send.kind === 'polite_close' ? plan.retryAt : null };
}
