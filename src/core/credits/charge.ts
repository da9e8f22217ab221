import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { balanceRow, spendLeadCredit } from './store.js';

/** Normal credits left: credits plus top-up credits. */
export function leadCreditsAvailable(ctx: Ctx): number {
  const row = balanceRow(ctx.db);
  return (row?.credits ?? 0) + (row?.topUpCredits ?? 0);
}

/**
 * Spends one normal credit for a created lead and writes the ledger row; false when none is
 * left. Call it inside the transaction that inserts the lead, so the charge and the insert
 * land together or not at all. The guarded UPDATE (and the table's CHECK) keep the balance
 * from ever going below zero.
 */
export function chargeLeadCredit(ctx: Ctx, leadId: string): boolean {
  return spendLeadCredit(ctx.db, ctx.clock.now(), leadId);
}

/** How the operator of a self-hosted workspace adds credits: named by every "no credit" message. */
export const GRANT_HINT = "The operator grants credits with `outreach credits add N` (or on the dashboard's Settings page)";

export const insufficientCredits = (available: number) =>
  new ApiError('insufficient_credits', `Adding a lead costs 1 credit and ${available} ${available === 1 ? 'is' : 'are'} left. ${GRANT_HINT}, then retry.`, {
    available,
    required: 1,
  });
