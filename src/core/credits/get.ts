import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { perDb } from '../../db/prepared.js';
import { cached } from '../../db/cache.js';
import { creditBalance } from '../../db/schema.js';
import type { Ctx } from '../context.js';
import type { Workspace } from '../workspace/get.js';

export const Credits = z.object({
  credits: z.number(),
  topUpCredits: z.number(),
  lookalikeCredits: z.number(),
  lookalikeTopUpCredits: z.number(),
  planId: z.string(),
});
export type Credits = z.infer<typeof Credits>;

const balanceRow = perDb((db) => db.select().from(creditBalance).where(eq(creditBalance.id, 1)).prepare());
/** Read on every get_credits and charge check: kept while the `credits` counter stands still (db/cache.ts). */
const keptBalance = cached('credits', (db) => balanceRow(db).get());

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
