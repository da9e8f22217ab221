import { transaction } from '../../db/tx.js';
import { msToNextUtcMidnight, utcDay } from '../clock.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import type { NetworkOperation } from './config.js';
import { wholeSeconds, type PolicyState, type RateLimitReport } from './report.js';
import { addToDailyCount, dailyCount, takeFromDailyCount, type DailyCounter } from './store.js';

/**
 * Per-account limits on live network calls: spacing between accepted requests (in memory) and
 * daily quotas per UTC day (in SQLite, so a restart keeps them). The lookup and search tools,
 * and in-app search, call these before they touch the network.
 */

/** The account fields the quotas depend on. */
export interface QuotaAccount {
  id: string;
  hasSalesNavigator: boolean;
}

export type DailyQuota = DailyCounter;

const QUOTA: Record<DailyQuota, { policy: string; what: string }> = {
  profileLookups: { policy: 'profile_lookup_daily', what: 'profile lookups' },
  searchResults: { policy: 'people_search_daily', what: 'search results' },
};

export interface DailyUsage {
  /** The UTC day the counter belongs to, `YYYY-MM-DD`. */
  day: string;
  limit: number;
  used: number;
  remaining: number;
  /** Whole seconds to the next UTC midnight, when the counter starts again at 0. */
  resetSeconds: number;
}

/**
 * Today's use of one quota by one account. The cap follows the account's Sales Navigator flag.
 * `now` picks the day: the request's clock by default; the engine passes its own (sim) time.
 */
export function dailyUsage(ctx: Ctx, quota: DailyQuota, account: QuotaAccount, now: number = ctx.clock.now()): DailyUsage {
  const day = utcDay(now);
  const caps = ctx.limits.config.daily[quota];
  const limit = account.hasSalesNavigator ? caps.salesNavigator : caps.classic;
  const used = dailyCount(ctx, quota, account.id, day);
  return { day, limit, used, remaining: Math.max(0, limit - used), resetSeconds: wholeSeconds(msToNextUtcMidnight(now)) };
}

const dailyState = (quota: DailyQuota, u: DailyUsage): PolicyState => ({
  name: QUOTA[quota].policy,
  quota: u.limit,
  windowSeconds: 86_400,
  remaining: u.remaining,
  resetSeconds: u.resetSeconds,
});

function quotaReached(quota: DailyQuota, account: QuotaAccount, u: DailyUsage): ApiError {
  return new ApiError(
    'network_daily_quota',
    `Account ${account.id} used its ${u.limit} ${QUOTA[quota].what} for today (UTC). The quota resets at midnight UTC: retry after ${u.resetSeconds} seconds (details.retryAfterSeconds).`,
    { retryAfterSeconds: u.resetSeconds },
  );
}

/** Units of a daily quota taken for one request; `settle` gives back what was not used. */
export interface QuotaPermit {
  /** How many units were reserved: at most the number asked for, at least 1. */
  readonly granted: number;
  /** Records what the request really used (0 when the network call failed); call once. */
  settle(used: number): void;
  /**
   * The request was refused after all (the network refused what it was asked, such as a cursor
   * of another search): gives back its units and its account's spacing, since spacing counts
   * only accepted requests. Instead of `settle`.
   */
  refuse(): void;
}

/**
 * Reserves up to `wanted` units of today's quota for an account, in one write transaction, so
 * concurrent requests can never pass the cap together. With nothing left it throws 429
 * `network_daily_quota` (retry at the next UTC midnight) and records nothing.
 */
export function reserveDailyQuota(ctx: Ctx, quota: DailyQuota, account: QuotaAccount, wanted: number, report?: RateLimitReport, now?: number): QuotaPermit {
  return reserve(ctx, quota, account, wanted, report, undefined, now);
}

/** Spacing for `reserve`: checked once the quota has room (it may refuse by throwing), given back by `refuse`. */
interface Spacing {
  check(): void;
  release(): void;
}

function reserve(ctx: Ctx, quota: DailyQuota, account: QuotaAccount, wanted: number, report?: RateLimitReport, spacing?: Spacing, now?: number): QuotaPermit {
  const { day, granted } = transaction(ctx.db, () => {
    const u = dailyUsage(ctx, quota, account, now);
    if (u.remaining <= 0) {
      report?.add(dailyState(quota, u));
      throw quotaReached(quota, account, u);
    }
    report?.add(dailyState(quota, u));
    spacing?.check();
    const n = Math.min(Math.max(1, Math.floor(wanted)), u.remaining);
    addToDailyCount(ctx, quota, account.id, u.day, n);
    report?.add(dailyState(quota, { ...u, used: u.used + n, remaining: u.remaining - n }));
    return { day: u.day, granted: n };
  });
  let settled = false;
  const permit: QuotaPermit = {
    granted,
    settle(used: number) {
      if (settled) return;
      settled = true;
      const unused = granted - Math.min(granted, Math.max(0, Math.floor(used)));
      if (unused === 0) return;
      takeFromDailyCount(ctx, quota, account.id, day, unused);
    },
    refuse() {
      if (settled) return;
      permit.settle(0);
      spacing?.release();
    },
  };
  return permit;
}

/**
 * Per-account spacing: throws 429 `rate_limited` when the account's last accepted request of
 * this kind was too recent; otherwise counts this one as accepted.
 */
export function checkAccountSpacing(ctx: Ctx, op: NetworkOperation, accountId: string, report?: RateLimitReport): void {
  const admission = ctx.limits.admitSpacing(op, accountId);
  report?.add(...admission.states);
  if (!admission.ok) throw ctx.limits.refusal(admission);
}

/**
 * Admits one profile lookup (either depth) on an account: the daily lookup quota, then the
 * spacing. A refused lookup changes nothing. Settle the permit with 1 after the lookup, or 0
 * if the network call failed, which gives the unit back.
 */
export function admitProfileLookup(ctx: Ctx, account: QuotaAccount, report?: RateLimitReport): QuotaPermit {
  return admitNetworkCall(ctx, 'profile_lookup', 'profileLookups', account, 1, report);
}

/**
 * Admits one search page on an account: the daily results quota, then the spacing. `granted`
 * is the most results this page may return (the page size, capped by what is left today): ask
 * the network for at most that many, then settle with the number of results returned.
 */
export function admitPeopleSearch(ctx: Ctx, account: QuotaAccount, pageSize: number, report?: RateLimitReport): QuotaPermit {
  return admitNetworkCall(ctx, 'people_search', 'searchResults', account, pageSize, report);
}

function admitNetworkCall(ctx: Ctx, op: NetworkOperation, quota: DailyQuota, account: QuotaAccount, wanted: number, report?: RateLimitReport): QuotaPermit {
  // The quota is checked first: when both refuse, waiting out the spacing alone would not help.
  return reserve(ctx, quota, account, wanted, report, {
    check: () => checkAccountSpacing(ctx, op, account.id, report),
    release: () => ctx.limits.releaseSpacing(op, account.id),
  });
}
