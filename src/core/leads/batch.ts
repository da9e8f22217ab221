import { z } from 'zod';
import { inTransaction, savepoint, transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { PATH_ID } from '../ids.js';

/** Why one batch item was not applied. `upstream_unavailable` marks a `failed` item: retry it. */
export const ItemError = z.object({
  code: z.enum(['validation_error', 'not_found', 'upstream_unavailable']),
  message: z.string(),
});
export type ItemError = z.infer<typeof ItemError>;

export const LEAD_PREFIX = 'lead_';

export const failedItem = () => ({
  code: 'upstream_unavailable' as const,
  message: 'Not applied: the batch stopped at a temporary failure. Retry this item.',
});

export const leadNotFound = (leadId: string, campaignId: string): ItemError => ({
  code: 'not_found',
  message: `Lead ${leadId} is not in campaign ${campaignId}. Call list_leads for its lead ids.`,
});

export interface BatchLeadId {
  /** The id to act on: as sent with `lead_` added when missing; as sent when malformed. */
  leadId: string;
  /** Set when the id is malformed or repeats an earlier one (the first wins). */
  error: ItemError | null;
}

/**
 * Reads the lead ids of a batch in order (self-hosting.md, Updating leads): an id is
 * well-formed when it matches [A-Za-z0-9_-]{1,64} as sent; `lead_` is added when missing, so
 * `x` and `lead_x` are the same lead; a repeat of an earlier id is an item error.
 */
export function readBatchLeadIds(ids: readonly string[], field: (index: number) => string): BatchLeadId[] {
  const firstAt = new Map<string, number>();
  return ids.map((raw, index) => {
    if (!PATH_ID.test(raw)) {
      return { leadId: raw, error: { code: 'validation_error', message: `${field(index)} must be a lead id: 1-64 characters of A-Z, a-z, 0-9, _ or -.` } };
    }
    const leadId = raw.startsWith(LEAD_PREFIX) ? raw : LEAD_PREFIX + raw;
    const first = firstAt.get(leadId);
    if (first !== undefined) {
      return { leadId, error: { code: 'validation_error', message: `${field(index)} repeats ${field(first)} (${leadId}); only the first is applied.` } };
    }
    firstAt.set(leadId, index);
    return { leadId, error: null };
  });
}

/** A batch `summary`: `total` plus one count per item status, in the statuses' order. */
export function BatchSummary<const S extends readonly string[]>(statuses: S) {
  const shape: Record<string, z.ZodNumber> = { total: z.number().int() };
  for (const status of statuses) shape[status] = z.number().int();
  return z.object(shape as { total: z.ZodNumber } & { [K in S[number]]: z.ZodNumber });
}

export function summarize<const S extends readonly string[]>(statuses: S, results: readonly { status: S[number] }[]) {
  const summary: Record<string, number> = { total: results.length };
  for (const status of statuses) summary[status] = results.filter((r) => r.status === status).length;
  return summary as { total: number } & { [K in S[number]]: number };
}

/**
 * Writes the items of an add, update or delete batch in one transaction, and commits once: one
 * commit instead of a hundred is most of a batch's cost. The items are first written with no
 * savepoint of their own: a savepoint per item makes SQLite journal every page each item
 * changes (100 lead inserts took 4.6 ms so, 0.9 ms without). Should an item throw, that attempt
 * is rolled back whole, and the items before it are written again, each in its own savepoint,
 * which gives the answers below (items write only to the database, so writing one twice is safe).
 *
 * `write` answers one item from the database and the answers before it (`earlier`), never from
 * state of its own, since an item may be written twice; when it throws (an unexpected write failure) that item's writes
 * alone are undone, `failed` answers it and every later item, and the items before it commit.
 * When the transaction itself is lost (SQLite rolled it back, as it may on SQLITE_FULL or
 * SQLITE_IOERR, or COMMIT failed) nothing landed, so `failed` answers every item.
 * `finish` writes what the items share (a campaign count), in the transaction after the last
 * item; should it fail, the transaction is lost as above.
 *
 * `alongside` is the caller's own writes that must commit with the answers returned (an
 * import's progress): it runs last in the same transaction, with the answers, so a caller
 * need not open a transaction around the batch, which would put the batch in a savepoint (an
 * import's chunk of 100 leads cost a fifth more so: the savepoint's undo journal outgrows
 * memory and goes to a temporary file). When the batch is lost it runs, with every item
 * `failed`, in a transaction (or savepoint) of its own; when SQLite has rolled a caller's
 * transaction back, the error goes to the caller instead. A throw from it is the caller's and
 * goes to the caller, with nothing of the batch committed.
 */
export function writeBatch<T, R>(
  ctx: Ctx,
  what: { verb: string; campaignId: string; alongside?: ((results: readonly R[]) => void) | undefined },
  items: readonly T[],
  write: (item: T, index: number, earlier: readonly R[]) => R,
  failed: (item: T, index: number) => R,
  finish?: (results: readonly R[]) => void,
): R[] {
  const { verb, campaignId } = what;
  // Inside a caller's transaction the batch is one savepoint of it, so a batch lost as a whole
  // leaves nothing behind there either.
  const nested = inTransaction(ctx.db);
  const unit = nested ? savepoint : transaction;
  // The caller's writes, marked so that their throw is not taken for the batch's own failure.
  const alongside = (results: readonly R[]): void => {
    if (!what.alongside) return;
    try {
      what.alongside(results);
    } catch (err) {
      throw new CallersThrow(err);
    }
  };
  const lostWhole = (err: unknown): R[] => {
    ctx.log.error({ err, campaignId }, `batch ${verb} not committed: no item was written`);
    const results = items.map(failed);
    if (what.alongside) {
      // SQLite rolled the caller's transaction back with the batch: nothing may commit for it.
      if (nested && !inTransaction(ctx.db)) throw err;
      unit(ctx.db, () => what.alongside?.(results));
    }
    return results;
  };
  // The index of the item that threw in the first attempt: it and the items after it are
  // answered `failed` and not written again; the items before it are, each in its savepoint.
  let stopAt = items.length;
  let lost = false;
  try {
    return unit(ctx.db, () => {
      const results: R[] = [];
      for (const [index, item] of items.entries()) {
        try {
          results.push(write(item, index, results));
        } catch (err) {
          if (!inTransaction(ctx.db)) lost = true;
          else ctx.log.error({ err, campaignId, index }, `batch ${verb} stopped: an item could not be written`);
          stopAt = index;
          throw err;
        }
      }
      finish?.(results);
      alongside(results);
      return results;
    });
  } catch (err) {
    if (err instanceof CallersThrow) throw err.cause;
    // SQLite rolled the whole transaction back (SQLITE_FULL, SQLITE_IOERR): nothing landed.
    if (lost) return lostWhole(err);
    // Otherwise written again below, item by item, where a failure is that item's alone.
  }
  try {
    return unit(ctx.db, () => {
      let stopped = false;
      const results: R[] = [];
      for (const [index, item] of items.entries()) {
        if (stopped || index >= stopAt) {
          results.push(failed(item, index));
          continue;
        }
        try {
          results.push(savepoint(ctx.db, () => write(item, index, results)));
        } catch (err) {
          ctx.log.error({ err, campaignId, index }, `batch ${verb} stopped: an item could not be written`);
          stopped = true;
          results.push(failed(item, index));
        }
      }
      // Checked before `finish`: once SQLite has rolled the transaction back, its writes would commit alone.
      if (!inTransaction(ctx.db)) throw new Error('SQLite rolled the batch transaction back');
      finish?.(results);
      alongside(results);
      return results;
    });
  } catch (err) {
    if (err instanceof CallersThrow) throw err.cause;
    return lostWhole(err);
  }
}

/** A throw from a batch caller's `alongside` writes, carried through the batch's own handling. */
class CallersThrow {
  constructor(readonly cause: unknown) {}
}
