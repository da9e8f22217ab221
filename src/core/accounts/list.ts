import { z } from 'zod';
import type { Ctx } from '../context.js';
import { iso, IsoTimestamp } from '../clock.js';
import { allowance, safetyOf } from '../safety/rules.js';
import { accountToday } from './today.js';
import { type AccountDailyRow, type AccountRow, accountPageWithDay, accountSeqExists, accountWithDay } from './store.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';

export const ACCOUNT_STATUSES = ['connected', 'connecting', 'failed', 'disconnected'] as const;
export const AccountStatus = z.enum(ACCOUNT_STATUSES);

export const Account = z.object({
  id: z.string(),
  name: z.string(),
  status: AccountStatus,
  active: z.boolean(),
  hasSalesNavigator: z.boolean(),
  today: z.object({
    connectionRequestsSent: z.number().int(),
    connectionRequestsAccepted: z.number().int(),
    connectionRequestLimit: z.number().int(),
    messagesSent: z.number().int(),
    messageLimit: z.number().int(),
    /** Profile visits and post likes (a sequence's visit and like_post steps) against their own daily limits. */
    profileVisits: z.number().int(),
    profileVisitLimit: z.number().int(),
    postReactions: z.number().int(),
    postReactionLimit: z.number().int(),
  }),
  /** The daily limits the operator set (connect_account, update_account); `today` can be lower. */
  limits: z.object({
    connectionRequestLimit: z.number().int(),
    messageLimit: z.number().int(),
    profileVisitLimit: z.number().int(),
    postReactionLimit: z.number().int(),
  }),
  /** Connection requests in the rolling week (today and the six days before) against the weekly cap. */
  week: z.object({
    connectionRequestsSent: z.number().int(),
    connectionRequestLimit: z.number().int(),
    /** When the weekly cap holds new invitations: the day it frees one; else null. */
    fullUntil: IsoTimestamp.nullable(),
  }),
  /** A running warm-up: today is day `day` (1-based) of `days`; null when none runs. */
  warmUp: z.object({ day: z.number().int(), days: z.number().int() }).nullable(),
});
export type Account = z.infer<typeof Account>;

export interface ListAccountsInput {
  limit: number;
  cursor?: string | undefined;
}

const SCOPE = 'accounts';

/** Accounts in the order they were added, with today's counters (the engine's UTC day, see today.ts). */
export function listAccounts(ctx: Ctx, secret: string, input: ListAccountsInput): { accounts: Account[]; nextCursor: string | null } {
  // The engine's clock, as `today` is the engine's day (today.ts).
  const now = ctx.simClock.now();
  const safety = safetyOf(ctx);
  let after = 0;
  if (input.cursor !== undefined) {
    const [seq] = decodeCursor(secret, SCOPE, input.cursor);
    if (typeof seq !== 'number' || !accountSeqExists(ctx.db, seq)) throw invalidCursor();
    after = seq;
  }
  const rows = accountPageWithDay(ctx.db, accountToday(ctx), after, input.limit + 1);
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, SCOPE, [last.a.seq]));
  return {
    accounts: page.items.map(({ a, d }) => toAccount(ctx, a, d, safety, now)),
    nextCursor: page.nextCursor,
  };
}

/**
 * An account as the API shows it, with today's counters (a missing day row is all zeros) and the
 * limits in force today: warm-up and the weekly cap can lower them, never raise them.
 */
export function toAccount(ctx: Ctx, a: AccountRow, d: AccountDailyRow | null | undefined, safety = safetyOf(ctx), now = ctx.simClock.now()): Account {
  const allowed = allowance(ctx, a, safety, now);
  return {
    id: a.id,
    name: a.name,
    status: a.status as Account['status'],
    active: a.active,
    hasSalesNavigator: a.hasSalesNavigator,
    today: {
      connectionRequestsSent: d?.connectionRequestsSent ?? 0,
      connectionRequestsAccepted: d?.connectionRequestsAccepted ?? 0,
      connectionRequestLimit: Math.max(allowed.connectionRequestLimit, 0),
      messagesSent: d?.messagesSent ?? 0,
      messageLimit: allowed.messageLimit,
      profileVisits: d?.profileVisits ?? 0,
      profileVisitLimit: allowed.profileVisitLimit,
      postReactions: d?.postReactions ?? 0,
      postReactionLimit: allowed.postReactionLimit,
    },
    limits: {
      connectionRequestLimit: a.connectionRequestLimit,
      messageLimit: a.messageLimit,
      profileVisitLimit: a.profileVisitLimit,
      postReactionLimit: a.postReactionLimit,
    },
    week: { ...allowed.week, fullUntil: allowed.weekFullUntil === null ? null : iso(allowed.weekFullUntil) },
    warmUp: allowed.warmUpDay === null ? null : { day: allowed.warmUpDay + 1, days: safety.warmUp.days },
  };
}

/** One account with today's counters, or undefined. */
export function findAccountView(ctx: Ctx, id: string): Account | undefined {
  const row = accountWithDay(ctx.db, id, accountToday(ctx));
  return row ? toAccount(ctx, row.a, row.d) : undefined;
}
