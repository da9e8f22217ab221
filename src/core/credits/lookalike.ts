import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import type { Workspace } from '../workspace/get.js';
import { balanceRow, moveBalance, recordCreditMove } from './store.js';

/**
 * The Lookalike allowance, kept apart from normal credits. It is drawn from `lookalikeCredits`
 * before `lookalikeTopUpCredits` (self-hosting.md, Credits) and given back top-up first, the
 * reverse of the draw order (self-hosting.md, Lookalike). Every movement is a ledger row.
 */
const BUCKETS = {
  credits: { field: 'lookalikeCredits', bucket: 'lookalike_credits' },
  topUp: { field: 'lookalikeTopUpCredits', bucket: 'lookalike_top_up_credits' },
} as const;

type Part = keyof typeof BUCKETS;

/** How much of a reservation came from each balance. */
export interface LookalikeDraw {
  credits: number;
  topUp: number;
}

/**
 * What the workspace may draw now. An inactive plan keeps only its top-up: the plan's own
 * allowance lapses with the plan, which is why an inactive plan without a top-up is refused.
 */
export function lookalikeAvailable(ctx: Ctx, ws: Pick<Workspace, 'planActive'>): LookalikeDraw & { total: number } {
  const row = balanceRow(ctx.db);
  const credits = ws.planActive ? (row?.lookalikeCredits ?? 0) : 0;
  const topUp = row?.lookalikeTopUpCredits ?? 0;
  return { credits, topUp, total: credits + topUp };
}

function move(ctx: Ctx, part: Part, delta: number, reason: 'lookalike_reserve' | 'lookalike_refund', ref: string): void {
  if (delta === 0) return;
  const { field, bucket } = BUCKETS[part];
  // The guard (and the table's CHECK) keep a balance from going below zero, whatever the caller read.
  if (!moveBalance(ctx.db, field, delta)) throw new Error(`lookalike allowance: ${bucket} cannot move by ${delta}`);
  recordCreditMove(ctx.db, { at: ctx.clock.now(), bucket, delta, reason, ref });
}

/**
 * Reserves up to `wanted` for the job `ref`, clamped to what is available; returns what was
 * drawn from each balance. Call it inside the transaction that records the job.
 */
export function reserveLookalike(ctx: Ctx, ws: Pick<Workspace, 'planActive'>, ref: string, wanted: number): LookalikeDraw {
  const available = lookalikeAvailable(ctx, ws);
  const credits = Math.min(wanted, available.credits);
  const topUp = Math.min(wanted - credits, available.topUp);
  move(ctx, 'credits', -credits, 'lookalike_reserve', ref);
  move(ctx, 'topUp', -topUp, 'lookalike_reserve', ref);
  return { credits, topUp };
}

/**
 * Gives `amount` of a reservation back: to the top-up first, as far as it was drawn from there,
 * then to the plan allowance. Call it inside the transaction that finishes the job, so it
 * happens exactly once.
 */
export function refundLookalike(ctx: Ctx, ref: string, amount: number, drawn: LookalikeDraw): LookalikeDraw {
  const topUp = Math.min(amount, drawn.topUp);
  const credits = Math.min(amount - topUp, drawn.credits);
  move(ctx, 'topUp', topUp, 'lookalike_refund', ref);
  move(ctx, 'credits', credits, 'lookalike_refund', ref);
  return { credits, topUp };
}

export const insufficientLookalikeCredits = (available: number, required: number) =>
  new ApiError(
    'insufficient_lookalike_credits',
    `No Lookalike allowance is left (${available} available, ${required} asked for). The operator grants it with \`outreach credits add N --lookalike\` (or on the dashboard's Settings page), then retry; any amount lets the request run, clamped to what is available.`,
    { available, required },
  );
