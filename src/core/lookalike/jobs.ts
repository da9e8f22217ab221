import { transaction } from '../../db/tx.js';
import { findCampaignRow } from '../campaigns/campaign.js';
import { applyCampaignEvent, endImporting, lookalikeHolder } from '../campaigns/state-machine.js';
import type { Ctx } from '../context.js';
import { refundLookalike } from '../credits/lookalike.js';
import { failpoint } from '../faults.js';
import { insertLead, leadInCampaign, newLeadId } from '../leads/add.js';
import { isOnExclusionList } from '../leads/exclude.js';
import { urlInOtherCampaign } from '../leads/store.js';
import { normalizeProfileUrl } from '../leads/url.js';
import {
  deferJobRow,
  dueJobRows,
  jobRow,
  latestJobRow,
  leaseJobRow,
  releaseJobLease,
  renewJobLease,
  writeJobDone,
  writeJobProgress,
  type JobRow,
} from './store.js';

export type { JobRow } from './store.js';
import type { Profile } from '../network/provider.js';

/**
 * The state of Lookalike jobs, in synchronous transactions. The worker (src/workers/lookalike/worker.ts)
 * only moves candidates between these functions and the network provider.
 *
 * A job is `pending` until it is `done`. A worker holds a pending job through a lease on wall
 * time; every write checks that the worker still holds it (fencing), so a worker that was
 * presumed dead and comes back late changes nothing.
 */
export type JobOutcome = 'filled' | 'exhausted' | 'failed';

export const findJob = (ctx: Ctx, id: string): JobRow | undefined => jobRow(ctx, id);

/** The latest job of a campaign for one query: where an extend with that query continues. */
export function latestJobFor(ctx: Ctx, campaignId: string, queryKey: string): JobRow | undefined {
  return latestJobRow(ctx, campaignId, queryKey);
}

/**
 * Leases up to `limit` due jobs to `holder`, oldest first: pending, past their retry time, and
 * not leased, or leased by a worker whose lease ran out (it died). `skip` holds jobs this
 * worker is still running, so a lease that lapsed on a paused clock is not taken twice.
 */
export function claimJobs(ctx: Ctx, holder: string, leaseMs: number, limit: number, skip: ReadonlySet<string> = new Set()): JobRow[] {
  if (limit <= 0) return [];
  return transaction(ctx.db, () => {
    const now = ctx.clock.now();
    const due = dueJobRows(ctx, now, limit + skip.size)
      .filter((job) => !skip.has(job.id))
      .slice(0, limit);
    for (const job of due) {
      if (job.leasedBy !== null) ctx.log.warn({ jobId: job.id, previous: job.leasedBy }, 'lookalike job lease lapsed; resuming it from its last page');
      leaseJobRow(ctx, job.id, holder, now + leaseMs);
    }
    return due.map((job) => ({ ...job, leasedBy: holder, leasedUntil: now + leaseMs }));
  });
}

/** Extends the lease before a provider call; false when the job is no longer this worker's. */
export function renewLease(ctx: Ctx, jobId: string, holder: string, leaseMs: number): boolean {
  const now = ctx.clock.now();
  return renewJobLease(ctx, jobId, holder, now + leaseMs);
}

/** Lets another worker (or this one after a restart) take the job at once; used on a clean stop. */
export function releaseJob(ctx: Ctx, jobId: string, holder: string): void {
  releaseJobLease(ctx, jobId, holder);
}

/** What a page did: leads inserted, and candidates skipped by reason. */
export interface PageResult {
  inserted: number;
  duplicate: number;
  elsewhere: number;
  excluded: number;
  invalid: number;
}

/**
 * Inserts one page of candidates and moves the job past it, in one transaction: after a crash
 * the job resumes from the page after the last one committed, so nothing is inserted twice.
 * Candidates already in the campaign, in another campaign (with protection on), on the
 * exclusion list, or without a personal profile URL are skipped; at most the unfilled part of
 * the reservation is inserted. Null when the job is no longer this worker's, or moved on
 * without it (the page is then dropped).
 */
export function recordPage(
  ctx: Ctx,
  jobId: string,
  holder: string,
  page: { fromCursor: string | null; candidates: readonly Profile[]; cursor: string | null },
  leaseMs: number,
): PageResult | null {
  return transaction(ctx.db, () => {
    const job = findJob(ctx, jobId);
    if (job?.state !== 'pending' || job.leasedBy !== holder || job.cursor !== page.fromCursor) return null;
    const result: PageResult = { inserted: 0, duplicate: 0, elsewhere: 0, excluded: 0, invalid: 0 };
    for (const candidate of page.candidates) {
      if (job.inserted + result.inserted >= job.reserved) break;
      const url = normalizeProfileUrl(candidate.networkUrl);
      if (url === null || url === job.seed) result.invalid += 1;
      else if (leadInCampaign(ctx, job.campaignId, url) !== undefined) result.duplicate += 1;
      else if (job.protectAcrossCampaigns && urlInOtherCampaign(ctx.db, job.campaignId, url)) result.elsewhere += 1;
      else if (isOnExclusionList(ctx, url)) result.excluded += 1;
      else {
        insertLead(ctx, job.campaignId, url, candidate, { id: newLeadId(ctx), excluded: false, source: 'lookalike' });
        result.inserted += 1;
      }
    }
    const now = ctx.clock.now();
    writeJobProgress(ctx, jobId, {
      inserted: job.inserted + result.inserted,
      cursor: page.cursor,
      // A provider that hands back the cursor it was given would loop forever: that pool is done.
      exhausted: page.cursor === null || page.cursor === page.fromCursor,
      leasedUntil: now + leaseMs,
      updatedAt: now,
    });
    failpoint(ctx, 'lookalike.page', jobId);
    return result;
  });
}

/** Puts the job back for a retry at `retryAt` after a transient provider failure. */
export function deferJob(ctx: Ctx, jobId: string, holder: string, retryAt: number, errorCode: string): boolean {
  return deferJobRow(ctx, jobId, holder, { at: retryAt, errorCode, now: ctx.clock.now() });
}

/** How a Lookalike campaign leaves PENDING: ready when it has leads, FAILED when the search found none. */
export const settledEvent = (totalLeads: number): 'lookalike_filled' | 'lookalike_found_none' => (totalLeads > 0 ? 'lookalike_filled' : 'lookalike_found_none');

/**
 * Ends the job in one transaction: the unused reservation goes back (top-up first), the
 * campaign stops importing, and a campaign still PENDING becomes READY_TO_SEND, or FAILED when
 * it has no leads. The job must still be pending and this worker's, so the refund happens
 * exactly once, whatever crashed or ran twice. Returns the refund, or null when not done here.
 */
export function finishJob(ctx: Ctx, jobId: string, holder: string, outcome: JobOutcome, errorCode: string | null = null): number | null {
  return transaction(ctx.db, () => {
    const job = findJob(ctx, jobId);
    if (job?.state !== 'pending' || job.leasedBy !== holder) return null;
    const unused = job.reserved - job.inserted;
    refundLookalike(ctx, job.id, unused, { credits: job.reservedCredits, topUp: job.reservedTopUp });
    const now = ctx.clock.now();
    writeJobDone(ctx, jobId, { outcome, errorCode, refunded: unused }, now);
    const campaign = findCampaignRow(ctx, job.campaignId);
    if (campaign) {
      endImporting(ctx, campaign.id, lookalikeHolder(job.id));
      // Only a campaign still PENDING moves; an extended one keeps its status.
      applyCampaignEvent(ctx, campaign.id, settledEvent(campaign.totalLeads));
    }
    failpoint(ctx, 'lookalike.finish', jobId);
    return unused;
  });
}
