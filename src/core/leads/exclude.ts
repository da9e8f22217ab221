import { and, eq, isNotNull, or, sql } from 'drizzle-orm';
import { perDb } from '../../db/prepared.js';
import { exclusions, leads } from '../../db/schema.js';
import type { Ctx } from '../context.js';

type LeadRef = { id: string; networkUrl: string | null };

/**
 * Excludes a lead workspace-wide: its profile URL joins the exclusion list (so later adds
 * are stored excluded) and one bulk UPDATE excludes every lead with that URL in every
 * campaign. A lead with no URL gets only its own flag. Excluded leads get no outreach, so a
 * pending polite close is dropped with it. Call inside the transaction making the change.
 */
export function excludeEverywhere(ctx: Ctx, lead: LeadRef): void {
  const now = ctx.clock.now();
  // nextActionAt null takes the lead off the engine's due-work queue.
  const excluding = { excluded: true, politeClosePendingAt: null, nextActionAt: null, updatedAt: now };
  if (lead.networkUrl === null) {
    ctx.db.update(leads).set(excluding).where(eq(leads.id, lead.id)).run();
    return;
  }
  ctx.db.insert(exclusions).values({ networkUrl: lead.networkUrl, createdAt: now }).onConflictDoNothing().run();
  ctx.db
    .update(leads)
    .set(excluding)
    .where(and(eq(leads.networkUrl, lead.networkUrl), or(eq(leads.excluded, false), isNotNull(leads.politeClosePendingAt))))
    .run();
}

/**
 * Takes a lead back into outreach: its own flag clears and its URL leaves the exclusion list,
 * so it can be added again without being excluded. Other leads with the same URL keep their
 * flags: each may have been excluded for its own reason (a tag in its own campaign).
 */
export function includeAgain(ctx: Ctx, lead: LeadRef): void {
  if (lead.networkUrl !== null) ctx.db.delete(exclusions).where(eq(exclusions.networkUrl, lead.networkUrl)).run();
  // nextActionAt 0 puts the lead back on the engine's queue, to pick up where it stopped.
  ctx.db.update(leads).set({ excluded: false, politeClosePendingAt: null, nextActionAt: 0, updatedAt: ctx.clock.now() }).where(eq(leads.id, lead.id)).run();
}

/** Prepared once per connection: every lead a batch or a Lookalike page places looks it up. */
const exclusionOf = perDb((db) =>
  db.select({ u: exclusions.networkUrl }).from(exclusions).where(eq(exclusions.networkUrl, sql.placeholder('networkUrl'))).prepare(),
);

export function isOnExclusionList(ctx: Ctx, networkUrl: string | null): boolean {
  if (networkUrl === null) return false;
  return exclusionOf(ctx.db).get({ networkUrl }) !== undefined;
}
