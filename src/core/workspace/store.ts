import { eq, sql } from 'drizzle-orm';
import { workspace } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/** SQL over the workspace as a whole: its row and lifetime counters, and what `seed --reset` empties. */

/** Inserts the workspace's row as given. */
export function insertWorkspaceRow(ctx: Pick<Ctx, 'db'>, row: typeof workspace.$inferInsert): void {
  ctx.db.insert(workspace).values(row).run();
}

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

/** The workspace's lifetime outreach counters; undefined when there is no workspace. */
export const workspaceCounters = (ctx: Pick<Ctx, 'db'>, workspaceId: number) =>
  ctx.db
    .select({
      repliesReceived: workspace.repliesReceived,
      connectionRequestsSent: workspace.connectionRequestsSent,
      connectionRequestsAccepted: workspace.connectionRequestsAccepted,
      messagesSent: workspace.messagesSent,
    })
    .from(workspace)
    .where(eq(workspace.id, workspaceId))
    .get();
