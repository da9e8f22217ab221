import { z } from 'zod';
import { cached } from '../../db/cache.js';
import type { Ctx } from '../context.js';
import type { Workspace } from '../workspace/get.js';
import { balanceRow } from './store.js';

export const Credits = z.object({
  credits: z.number(),
  topUpCredits: z.number(),
  lookalikeCredits: z.number(),
  lookalikeTopUpCredits: z.number(),
  planId: z.string(),
});
export type Credits = z.infer<typeof Credits>;

/** Read on every get_credits and charge check: kept while the `credits` counter stands still (db/cache.ts). */
const keptBalance = cached('credits', balanceRow);

export function getCredits(ctx: Ctx, ws: Workspace): Credits {
  const row = keptBalance(ctx.db);
  return {
    credits: row?.credits ?? 0,
    topUpCredits: row?.topUpCredits ?? 0,
    lookalikeCredits: row?.lookalikeCredits ?? 0,
    lookalikeTopUpCredits: row?.lookalikeTopUpCredits ?? 0,
    planId: ws.planId,
  };
}
