import { and, asc, eq, gt } from 'drizzle-orm';
import { z } from 'zod';
import { accountDaily, accounts } from '../../db/schema.js';
import type { Ctx } from '../context.js';
import { utcDay } from '../clock.js';
import { countRows } from '../../db/tx.js';
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
  }),
});
export type Account = z.infer<typeof Account>;

export interface ListAccountsInput {
  limit: number;
  cursor?: string | undefined;
}

const SCOPE = 'accounts';

/** Accounts in the order they were added, with today's (UTC) counters. */
export function listAccounts(ctx: Ctx, secret: string, input: ListAccountsInput): { accounts: Account[]; nextCursor: string | null } {
  let after = 0;
  if (input.cursor !== undefined) {
    const [seq] = decodeCursor(secret, SCOPE, input.cursor);
    if (typeof seq !== 'number' || !countRows(ctx.db, accounts, eq(accounts.seq, seq))) throw invalidCursor();
    after = seq;
  }
  const rows = ctx.db
    .select({ a: accounts, d: accountDaily })
    .from(accounts)
    .leftJoin(accountDaily, and(eq(accountDaily.accountId, accounts.id), eq(accountDaily.day, utcDay(ctx.clock.now()))))
    .where(gt(accounts.seq, after))
    .orderBy(asc(accounts.seq))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, SCOPE, [last.a.seq]));
  return {
    accounts: page.items.map(({ a, d }) => toAccount(a, d)),
    nextCursor: page.nextCursor,
  };
}

type AccountRow = typeof accounts.$inferSelect;
type DailyRow = typeof accountDaily.$inferSelect;

/** An account as the API shows it, with today's counters (a missing day row is all zeros). */
export function toAccount(a: AccountRow, d: DailyRow | null | undefined): Account {
  return {
    id: a.id,
    name: a.name,
    status: a.status as Account['status'],
    active: a.active,
    hasSalesNavigator: a.hasSalesNavigator,
    today: {
      connectionRequestsSent: d?.connectionRequestsSent ?? 0,
      connectionRequestsAccepted: d?.connectionRequestsAccepted ?? 0,
      connectionRequestLimit: a.connectionRequestLimit,
      messagesSent: d?.messagesSent ?? 0,
      messageLimit: a.messageLimit,
    },
  };
}

/** One account with today's counters, or undefined. */
export function findAccountView(ctx: Ctx, id: string): Account | undefined {
  const row = ctx.db
    .select({ a: accounts, d: accountDaily })
    .from(accounts)
    .leftJoin(accountDaily, and(eq(accountDaily.accountId, accounts.id), eq(accountDaily.day, utcDay(ctx.clock.now()))))
    .where(eq(accounts.id, id))
    .get();
  return row ? toAccount(row.a, row.d) : undefined;
}
