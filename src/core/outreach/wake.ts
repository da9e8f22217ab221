import { touchCache } from '../../db/cache.js';
import { leadStatements } from '../../db/sql/leads.js';
import type { Ctx } from '../context.js';

/**
 * The hand-off from a person's decision on drafts to the engine. A lead whose step waits for a
 * draft is put away by the engine (scheduled later, and its campaign remembered as having nothing
 * due); when a person approves or rejects its draft, the lead is due at once (1: before any sim
 * time) and the engine's memory of campaigns is dropped (`touchCache`: the engine follows the
 * `campaigns` group, src/workers/outreach/memory.ts), so the next tick looks at it. A lead due
 * already, never looked at, or with no work left is left as it is.
 *
 * Every caller that decides a draft calls it in the decision's transaction: update_drafts
 * (src/core/drafts/update.ts), approve-all (approve-all.ts) and approval turned off
 * (src/core/campaigns/manage.ts). Migration 0017 had done it in a trigger, out of sight. A
 * person's new tag on a lead (src/core/leads/update.ts) wakes it too: an `if tagged` waits on it;
 * so does a bounce of its email (src/core/email/inbox.ts), for an `if email_bounced`.
 */
export function wakeDecidedLeads(ctx: Pick<Ctx, 'db'>, leadIds: Iterable<string>): void {
  const st = leadStatements(ctx.db);
  let any = false;
  for (const id of new Set(leadIds)) {
    st.wake.run(id);
    any = true;
  }
  if (any) touchCache(ctx.db, 'campaigns');
}
