import { eq } from 'drizzle-orm';
import { exclusions, leads } from '../../db/schema.js';
import type { Ctx } from '../context.js';

type LeadRow = typeof leads.$inferSelect;

export function isOnExclusionList(ctx: Ctx, networkUrl: string | null): boolean {
  if (networkUrl === null) return false;
  return ctx.db.select({ u: exclusions.networkUrl }).from(exclusions).where(eq(exclusions.networkUrl, networkUrl)).get() !== undefined;
}

/**
 * Excludes a lead workspace-wide: its profile URL joins the exclusion list and every lead with
 * that URL, in any campaign, is excluded and leaves the engine's queue. A lead without a URL
 * only gets its own flag. Call inside a transaction.
 */
export function excludeLeadEverywhere(ctx: Ctx, lead: LeadRow, at: number): void {
  const set = { excluded: true, pendingPoliteClose: false, nextActionAt: null, updatedAt: at };
  if (lead.networkUrl === null) {
    ctx.db.update(leads).set(set).where(eq(leads.id, lead.id)).run();
    return;
  }
  ctx.db.insert(exclusions).values({ networkUrl: lead.networkUrl, createdAt: at }).onConflictDoNothing().run();
  ctx.db.update(leads).set(set).where(eq(leads.networkUrl, lead.networkUrl)).run();
}
