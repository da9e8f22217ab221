import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { getWorkspace } from '../workspace/get.js';
import { Credits, getCredits } from './get.js';
import { ensureBalanceRow, moveBalance, recordCreditMove } from './store.js';

/** The most one grant adds; larger amounts are several grants (and a typo of a zero too many is caught). */
export const MAX_GRANT = 10_000_000;

/**
 * Which balance a grant adds to. `lookalike` and `topUp` combine: both is the Lookalike
 * top-up, as the four balances are the normal and Lookalike allowances, each with a top-up.
 */
export const GrantCreditsInput = z.strictObject({
  amount: z
    .number()
    .int()
    .min(1)
    .max(MAX_GRANT)
    .describe(`Credits to add, 1..${MAX_GRANT.toLocaleString('en-US')}.`),
  lookalike: z.boolean().optional().describe('Add to the Lookalike allowance instead of the normal credits.'),
  topUp: z.boolean().optional().describe('Add to the top-up balance (spent after the plan balance, and kept when the plan lapses).'),
});
export type GrantCreditsInput = z.infer<typeof GrantCreditsInput>;

const BALANCES = {
  credits: { field: 'credits', bucket: 'credits' },
  topUpCredits: { field: 'topUpCredits', bucket: 'top_up_credits' },
  lookalikeCredits: { field: 'lookalikeCredits', bucket: 'lookalike_credits' },
  lookalikeTopUpCredits: { field: 'lookalikeTopUpCredits', bucket: 'lookalike_top_up_credits' },
} as const;
export type Balance = keyof typeof BALANCES;

export const balanceFor = (input: Pick<GrantCreditsInput, 'lookalike' | 'topUp'>): Balance =>
  input.lookalike ? (input.topUp ? 'lookalikeTopUpCredits' : 'lookalikeCredits') : input.topUp ? 'topUpCredits' : 'credits';

export const GrantCreditsResult = z.object({ granted: z.number().int(), balance: z.enum(Object.keys(BALANCES) as [Balance, ...Balance[]]), credits: Credits });
export type GrantCreditsResult = z.infer<typeof GrantCreditsResult>;

/**
 * The operator's grant (workspace.md, Credits in a self-hosted workspace): adds `amount` to one
 * balance and writes its ledger entry, in one transaction. The server reads balances afresh
 * after any other connection commits, so a grant from the CLI shows in get_credits at once.
 */
export function grantCredits(ctx: Ctx, input: GrantCreditsInput): GrantCreditsResult {
  const { amount } = GrantCreditsInput.parse(input);
  const balance = balanceFor(input);
  const { field, bucket } = BALANCES[balance];
  return transaction(ctx.db, () => {
    const ws = getWorkspace(ctx);
    if (!ws)
      throw new ApiError(
        'not_found',
        'This database holds no workspace yet. Create one with `outreach keys create --env test` (or `outreach start`), then grant credits.',
      );
    ensureBalanceRow(ctx.db);
    moveBalance(ctx.db, field, amount);
    recordCreditMove(ctx.db, { at: ctx.clock.now(), bucket, delta: amount, reason: 'grant', ref: 'operator' });
    return { granted: amount, balance, credits: getCredits(ctx, ws) };
  });
}
