import { eq } from 'drizzle-orm';
import { z } from 'zod';
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

export function getCredits(ctx: Ctx, ws: Workspace): Credits {
  const row = ctx.db.select().from(creditBalance).where(eq(creditBalance.id, 1)).get();
  return {
    credits: row?.credits ?? 0,
    topUpCredits: row?.topUpCredits ?? 0,
    lookalikeCredits: row?.lookalikeCredits ?? 0,
    lookalikeTopUpCredits: row?.lookalikeTopUpCredits ?? 0,
    planId: ws.planId,
  };
}
