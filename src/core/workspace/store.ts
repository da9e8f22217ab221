import { sql } from 'drizzle-orm';
import type { Ctx } from '../context.js';

/** SQL over the workspace as a whole: what `seed --reset` empties. */

/**
 * Every table but SQLite's, the migration bookkeeping, the members (the people, not the
 * workspace's data) and the append-only audit trail: the workspace's state.
 */
export function stateTables(ctx: Pick<Ctx, 'db'>): string[] {
  return ctx.db.$client
    .prepare<[], string>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' AND name NOT IN ('members', 'audit_events', 'audit_targets')",
    )
    .pluck()
    .all();
}

/** Deletes every row of the state tables but those of `except` (tables with a writer of their own, which empties them). */
export function emptyStateTables(ctx: Pick<Ctx, 'db'>, except: readonly string[]): void {
  for (const table of stateTables(ctx)) if (!except.includes(table)) ctx.db.run(sql.raw(`DELETE FROM "${table}"`));
}
