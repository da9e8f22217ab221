import { eq } from 'drizzle-orm';
import { campaigns } from '../../db/schema.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';
import type { Ctx } from '../context.js';
import type { CampaignRow, CampaignStatus } from './campaign.js';

/**
 * The campaign state machine: every change of `campaigns.status` (and of the `importing` flag
 * that says leads are still being added) is written here and nowhere else.
 *
 * **The clock rule.** `campaigns.updated_at` is always wall time (`ctx.clock`), whoever writes
 * it: an API call, the Lookalike worker or the outreach engine. The engine times outreach on
 * `ctx.simClock`, which at `--sim-speed` above 1 runs ahead of the wall; writing it here too
 * made `updated_at` jump ahead and then back. `updated_at` says when the row last changed, so
 * it follows the clock that API writes use. (Leads and activity keep the engine's sim times.)
 */

/** What can happen to a campaign. Each event has exactly one row in TRANSITIONS. */
export type CampaignEvent =
  /** POST start on a campaign that never ran, or that FAILED and has leads. */
  | 'start'
  /** POST start on a paused campaign. */
  | 'resume'
  /** POST pause on a running campaign while no leads are being added. */
  | 'pause'
  /** A lead was inserted into a FAILED campaign, so start works without a new campaign. */
  | 'lead_added'
  /** The Lookalike worker finished and found leads. */
  | 'lookalike_filled'
  /** The Lookalike worker finished and found none. */
  | 'lookalike_found_none'
  /** The engine found a running campaign whose agent is gone: it can never send. */
  | 'engine_failed'
  /** The engine found a running campaign with leads and no work left. */
  | 'engine_completed';

export interface Transition {
  event: CampaignEvent;
  from: readonly CampaignStatus[];
  to: CampaignStatus;
  /** Who causes it. */
  by: 'api' | 'lookalike worker' | 'outreach engine';
}

/**
 * The one transition table. Guards that need more than the status (an agent, a connected
 * account, leads, not importing) are checked by the verb before it applies the event; the
 * status check itself is repeated in the write, so a concurrent change makes the event a no-op
 * instead of a wrong transition.
 */
export const TRANSITIONS: readonly Transition[] = [
  { event: 'start', from: ['READY_TO_SEND', 'FAILED'], to: 'CAMPAIGN_IN_PROGRESS', by: 'api' },
  { event: 'resume', from: ['CAMPAIGN_PAUSED'], to: 'CAMPAIGN_IN_PROGRESS', by: 'api' },
  { event: 'pause', from: ['CAMPAIGN_IN_PROGRESS'], to: 'CAMPAIGN_PAUSED', by: 'api' },
  { event: 'lead_added', from: ['FAILED'], to: 'READY_TO_SEND', by: 'api' },
  { event: 'lookalike_filled', from: ['PENDING'], to: 'READY_TO_SEND', by: 'lookalike worker' },
  { event: 'lookalike_found_none', from: ['PENDING'], to: 'FAILED', by: 'lookalike worker' },
  { event: 'engine_failed', from: ['CAMPAIGN_IN_PROGRESS'], to: 'FAILED', by: 'outreach engine' },
  { event: 'engine_completed', from: ['CAMPAIGN_IN_PROGRESS'], to: 'COMPLETED', by: 'outreach engine' },
];

/** The status a new campaign is created with: Lookalike ones wait for their worker. */
export const CREATED_STATUS = { plain: 'READY_TO_SEND', lookalike: 'PENDING' } as const satisfies Record<string, CampaignStatus>;

const BY_EVENT = new Map(TRANSITIONS.map((t) => [t.event, t]));

export function transitionOf(event: CampaignEvent): Transition {
  const t = BY_EVENT.get(event);
  if (!t) throw new Error(`no transition for campaign event ${event}`);
  return t;
}

/** The status after `event`, or null when the event does not apply to `status`. */
export function nextStatus(status: string, event: CampaignEvent): CampaignStatus | null {
  const t = transitionOf(event);
  return (t.from as readonly string[]).includes(status) ? t.to : null;
}

/** The campaign clock (see the clock rule above). */
export const campaignNow = (ctx: Pick<Ctx, 'clock'>): number => ctx.clock.now();

/**
 * One prepared update per event, built once per connection: adding leads applies `lead_added`
 * on every insert, so it must cost no more than the CASE it replaced.
 */
const statements = new Map(TRANSITIONS.map((t) => [t.event, transitionStatement(t.from, t.to)]));

function transitionStatement(from: readonly string[], to: string): (db: Db) => Statement<[{ id: string; now: number }]> {
  const literal = (s: string): string => `'${s.replaceAll("'", "''")}'`;
  return perDb((db) =>
    db.$client.prepare(`UPDATE campaigns SET status = ${literal(to)}, updated_at = @now WHERE id = @id AND status IN (${from.map(literal).join(', ')})`),
  );
}

/**
 * Applies `event` to a campaign, in the caller's transaction when there is one. Returns whether
 * the status changed: false when the campaign does not exist or is not in a `from` status.
 */
export function applyCampaignEvent(ctx: Pick<Ctx, 'db' | 'clock'>, campaignId: string, event: CampaignEvent): boolean {
  const stmt = statements.get(event);
  if (!stmt) throw new Error(`no transition for campaign event ${event}`);
  return stmt(ctx.db).run({ id: campaignId, now: campaignNow(ctx) }).changes === 1;
}

/**
 * Marks a campaign as having leads added (a Lookalike fill or extension, a CSV import): while
 * it is set, pause and batch delete answer 409 and the engine does not complete the campaign.
 */
export function beginImporting(ctx: Pick<Ctx, 'db' | 'clock'>, campaignId: string): void {
  ctx.db
    .update(campaigns)
    .set({ importing: true, updatedAt: campaignNow(ctx) })
    .where(eq(campaigns.id, campaignId))
    .run();
}

/** Ends what beginImporting started. */
export function endImporting(ctx: Pick<Ctx, 'db' | 'clock'>, campaignId: string): void {
  ctx.db
    .update(campaigns)
    .set({ importing: false, updatedAt: campaignNow(ctx) })
    .where(eq(campaigns.id, campaignId))
    .run();
}

/** True when leads are still being added to the campaign. */
export const isImporting = (row: Pick<CampaignRow, 'importing'>): boolean => row.importing;
