import type { Ctx } from '../context.js';
import { type Completable, matchingIds } from './store.js';

export type { Completable } from './store.js';

/** The most values one completion answers with (the MCP limit); `total` and `hasMore` tell of the rest. */
export const MAX_COMPLETIONS = 100;

/** What a completion answers: ids, best match first, and how many matched in all. */
export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

/**
 * Ids whose id starts with what was typed, or whose name contains it, both without regard to
 * case (SQLite folds ASCII letters): first the id matches, then the names that start with it,
 * then the other names, each by name. Nothing typed offers every row, by name.
 */
export function completeByIdOrName(ctx: Ctx, from: Completable, typed: string): Completion {
  const text = typed.trim();
  const { ids, total } = matchingIds(ctx.db, from, text, MAX_COMPLETIONS);
  return { values: ids, total, hasMore: total > ids.length };
}
