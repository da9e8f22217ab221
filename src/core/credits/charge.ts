import { and, eq, gte, sql } from 'drizzle-orm';
import { creditBalance, creditLedger } from '../../db/schema.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';

/** Normal credits are spent before top-up credits (self-hosting.md, Credits). */
const LEAD_CREDIT_ORDER = [
  { field: 'credits', bucket: 'credits' },
  { field: 'topUpCredits', bucket: 'top_up_credits' },
] as const;

/** Normal credits left: credits plus top-up credits. */
export function leadCreditsAvailable(ctx: Ctx): number {
  const row = ctx.db
    .select({ credits: creditBalance.credits, topUp: creditBalance.topUpCredits })
    .from(creditBalance)
    .where(eq(creditBalance.id, 1))
    .get();
  return (row?.credits ?? 0) + (row?.topUp ?? 0);
}

/**
 * Spends one normal credit for a created lead and writes the ledger row; false when none is
 * left. Call it inside the transaction that inserts the lead, so the charge and the insert
 * land together or not at all. The guarded UPDATE (and the table's CHECK) keep the balance
 * from ever going below zero.
 */
export function chargeLeadCredit(ctx: Ctx, leadId: string): boolean {
  for (const { field, bucket } of LEAD_CREDIT_ORDER) {
    const column = creditBalance[field];
    const spent = ctx.db
      .update(creditBalance)
      .set({ [field]: sql`${column} - 1` })
      .where(and(eq(creditBalance.id, 1), gte(column, 1)))
      .run();
    if (spent.changes === 1) {
      ctx.db.insert(creditLedger).values({ at: ctx.clock.now(), bucket, delta: -1, reason: 'lead_created', ref: leadId }).run();
      return true;
    }
  }
  return false;
}

export const insufficientCredits = (available: number) =>
  new ApiError(
    'insufficient_credits',
    `Adding a lead costs 1 credit and ${available} ${available === 1 ? 'is' : 'are'} left. Top up credits, then retry.`,
    { available, required: 1 },
  );
