import type { campaigns } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { noteChange } from '../live/feed.js';
import { holderGone, thisProcess, type HolderProcess } from '../holder.js';
import type { CampaignStatus } from './campaign.js';
import { insertCampaignRow, type LeaseColumns, leaseOf, writeCampaignStatus, writeLeaseColumns } from './store.js';

/**
 * The campaign state machine: a campaign row is inserted, and its `status` and importing mark
 * change, as this module decides and nowhere else. The writes themselves are in the campaigns
 * store (./store.ts), the one module that may open the gate of src/db/campaign-writer.ts, so
 * SQLite refuses them from anywhere else; this module is the store's one caller for them.
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

/** Statuses no event leaves: such a campaign never sends again. */
export const isFinished = (status: string): boolean => status === 'COMPLETED' || status === 'DONE';

/** The one wording of that rule, for every verb that refuses because of it. */
export const neverRestarted = (campaignId: string, status: string): string => `Campaign ${campaignId} is ${status} and is never restarted`;

/**
 * Applies `event` to a campaign, in the caller's transaction when there is one. Returns whether
 * the status changed: false when the campaign does not exist or is not in a `from` status.
 */
export function applyCampaignEvent(ctx: Pick<Ctx, 'db' | 'clock'>, campaignId: string, event: CampaignEvent): boolean {
  const { from, to } = transitionOf(event);
  const moved = writeCampaignStatus(ctx, campaignId, from, to, campaignNow(ctx));
  if (moved) noteChange(ctx, { resource: 'campaign', campaignId });
  return moved;
}

/** A new campaign's row, without what this module decides (its status and importing mark). */
export type NewCampaignRow = Omit<
  typeof campaigns.$inferInsert,
  'status' | 'importing' | 'importingHolder' | 'importingHost' | 'importingPid' | 'importingUntil'
>;

/**
 * Inserts a new campaign in its created status. A Lookalike campaign is created with its job's
 * importing mark, since the worker fills it from the start.
 */
export function insertCampaign(ctx: Pick<Ctx, 'db'>, row: NewCampaignRow, created: { kind: 'plain' } | { kind: 'lookalike'; jobId: string }): void {
  const mark = created.kind === 'lookalike' ? { importing: true, importingHolder: lookalikeHolder(created.jobId) } : {};
  insertCampaignRow(ctx, { ...row, status: CREATED_STATUS[created.kind], ...mark });
  noteChange(ctx, { resource: 'campaign', campaignId: row.id });
}

/**
 * The holder of an importing mark loaded from a workspace file: no process holds it. It counts
 * as importing (pause answers 409) until an import takes it over and ends it.
 */
export const RESTORED_HOLDER = 'restored';

/** Inserts a campaign as a workspace file or a fixture describes it, in any status. */
export function restoreCampaign(
  ctx: Pick<Ctx, 'db'>,
  row: NewCampaignRow & { status: CampaignStatus; importing?: boolean },
  opts: { ifMissing?: boolean } = {},
): void {
  insertCampaignRow(ctx, { ...row, importingHolder: row.importing ? RESTORED_HOLDER : null }, opts);
}

/**
 * **The importing mark** says leads are still being added: pause and batch delete answer 409
 * and the engine does not complete the campaign. It is a lease with one holder:
 * - a Lookalike job holds it from launch to its end (`lookalike:<job id>`, no expiry: the job
 *   is durable and any worker resumes it);
 * - a CSV import holds it for `ttlMs` at a time and renews it as rows go in. An importer that
 *   dies stops renewing, so the mark lapses within `ttlMs`; one that died on this host is seen
 *   at once (holderGone).
 */
export interface ImportingBy {
  holder: string;
  /** For a CSV import: how long the mark lasts unless renewed, and the importing process. */
  lease?: { ttlMs: number; process?: HolderProcess };
}

export const lookalikeHolder = (jobId: string): string => `lookalike:${jobId}`;

/** True while the importing mark is held by a live holder (wall ms `now`). */
export function isImporting(row: LeaseColumns, now: number): boolean {
  if (!row.importing) return false;
  if (row.importingUntil === null) return true;
  if (row.importingUntil <= now) return false;
  return !holderGone({ host: row.importingHost, pid: row.importingPid });
}

/**
 * Who holds the importing mark now so that another import must wait: null when nobody live
 * does (a restored mark has no holder to wait for).
 */
export const importingHolder = (row: LeaseColumns, now: number): string | null =>
  isImporting(row, now) && row.importingHolder !== RESTORED_HOLDER ? row.importingHolder : null;

function writeLease(ctx: Pick<Ctx, 'db' | 'clock'>, campaignId: string, set: Partial<LeaseColumns>, holder?: string): number {
  noteChange(ctx, { resource: 'campaign', campaignId });
  return writeLeaseColumns(ctx, campaignId, set, campaignNow(ctx), holder);
}

/**
 * Takes the importing mark for `by.holder`. Returns false, changing nothing, when another
 * holder holds it live; a mark whose holder is gone or whose time ran out, or a restored one,
 * is taken over.
 * Taking it again as its own holder renews it.
 */
export function beginImporting(ctx: Pick<Ctx, 'db' | 'clock'>, campaignId: string, by: ImportingBy): boolean {
  return transaction(ctx.db, () => {
    const row = leaseOf(ctx, campaignId);
    if (!row) return false;
    const now = ctx.clock.now();
    const holder = importingHolder(row, now);
    if (holder !== null && holder !== by.holder) return false;
    const proc = by.lease ? (by.lease.process ?? thisProcess()) : null;
    writeLease(ctx, campaignId, {
      importing: true,
      importingHolder: by.holder,
      importingHost: proc?.host ?? null,
      importingPid: proc?.pid ?? null,
      importingUntil: by.lease ? now + by.lease.ttlMs : null,
    });
    return true;
  });
}

/** Extends a CSV import's mark by `ttlMs`; false when `holder` no longer holds it. */
export function renewImporting(ctx: Pick<Ctx, 'db' | 'clock'>, campaignId: string, holder: string, ttlMs: number): boolean {
  return writeLease(ctx, campaignId, { importingUntil: ctx.clock.now() + ttlMs }, holder) === 1;
}

/** Ends the mark if `holder` still holds it; a mark another holder took over is left alone. */
export function endImporting(ctx: Pick<Ctx, 'db' | 'clock'>, campaignId: string, holder: string): void {
  writeLease(ctx, campaignId, { importing: false, importingHolder: null, importingHost: null, importingPid: null, importingUntil: null }, holder);
}
