import { and, eq, isNotNull, or } from 'drizzle-orm';
import { cached } from '../../db/cache.js';
import { exclusions, leads } from '../../db/schema.js';
import { exclusionStatements } from '../../db/sql/exclusions.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';

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

/** Past this many entries the list is not kept in memory, and each URL is looked up. */
const KEPT_EXCLUSIONS_MAX = 50_000;
/**
 * The whole exclusion list, kept while the `exclusions` counter stands still (the engine asks
 * about every lead it plans), or null when it is too long to keep.
 */
const keptList = cached('exclusions', (db): ReadonlySet<string> | null => {
  const rows = db
    .select({ u: exclusions.networkUrl })
    .from(exclusions)
    .limit(KEPT_EXCLUSIONS_MAX + 1)
    .all();
  return rows.length > KEPT_EXCLUSIONS_MAX ? null : new Set(rows.map((r) => r.u));
});

export function isOnExclusionList(ctx: Ctx, networkUrl: string | null): boolean {
  if (networkUrl === null) return false;
  const list = keptList(ctx.db);
  return list !== null ? list.has(networkUrl) : exclusionStatements(ctx.db).has.get(networkUrl) !== undefined;
}

/** Whether a lead is kept out of outreach: its own flag, or its profile URL on the workspace exclusion list. */
export function isExcludedLead(ctx: Ctx, lead: { excluded: boolean; networkUrl: string | null }): boolean {
  return lead.excluded || isOnExclusionList(ctx, lead.networkUrl);
}

/**
 * Refuses a person's message to an excluded lead (see isExcludedLead), on either channel, with
 * a `conflict` before anything is recorded: the LinkedIn send (send_message, reply_conversation)
 * and the email reply make this one check.
 */
export function refuseExcludedLead(ctx: Ctx, lead: { id: string; excluded: boolean; networkUrl: string | null }, channel: 'linkedin' | 'email'): void {
  if (!isExcludedLead(ctx, lead)) return;
  throw new ApiError(
    'conflict',
    `Lead ${lead.id} is excluded from outreach, so it is not ${channel === 'email' ? 'emailed' : 'messaged'}. Clear the exclusion first if this is intended.`,
  );
}
