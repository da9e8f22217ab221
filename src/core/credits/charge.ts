import { and, eq, gte, sql } from 'drizzle-orm';
import { perDb } from '../../db/prepared.js';
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
  const row = ctx.db.select({ credits: creditBalance.credits, topUp: creditBalance.topUpCredits }).from(creditBalance).where(eq(creditBalance.id, 1)).get();
  return (row?.credits ?? 0) + (row?.topUp ?? 0);
}

/** Every created lead runs these (a batch, up to a hundred times), so they are prepared once per connection. */
const chargeStatements = perDb((db) => ({
  spends: LEAD_CREDIT_ORDER.map(({ field, bucket }) => {
    const column = creditBalance[field];
    const spend = db
      .update(creditBalance)
      .set({ [field]: sql`${column} - 1` })
      .where(and(eq(creditBalance.id, 1), gte(column, 1)))
      .prepare();
    return { bucket, spend };
  }),
  ledger: db
    .insert(creditLedger)
    .values({ at: sql.placeholder('at'), bucket: sql.placeholder('bucket'), delta: -1, reason: 'lead_created', ref: sql.placeholder('ref') })
    .prepare(),
}));

/**
 * Spends one normal credit for a created lead and writes the ledger row; false when none is
 * left. Call it inside the transaction that inserts the lead, so the charge and the insert
 * land together or not at all. The guarded UPDATE (and the table's CHECK) keep the balance
 * from ever going below zero.
 */
export function chargeLeadCredit(ctx: Ctx, leadId: string): boolean {
  const st = chargeStatements(ctx.db);
  for (const { bucket, spend } of st.spends) {
    if (spend.run().changes === 1) {
      st.ledger.run({ at: ctx.clock.now(), bucket, ref: leadId });
      return true;
    }
  }
  return false;
}

/** How the operator of a self-hosted workspace adds credits: named by every "no credit" message. */
export const GRANT_HINT = "The operator grants credits with `outreach credits add N` (or on the dashboard's Settings page)";

export const insufficientCredits = (available: number) =>
  new ApiError('insufficient_credits', `Adding a lead costs 1 credit and ${available} ${available === 1 ? 'is' : 'are'} left. ${GRANT_HINT}, then retry.`, {
    available,
    required: 1,
  });
