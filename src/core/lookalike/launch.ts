import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { CampaignStatus, findCampaignRow, type CampaignRow } from '../campaigns/campaign.js';
import { beginImporting, insertCampaign, isFinished, isImporting, lookalikeHolder, neverRestarted } from '../campaigns/state-machine.js';
import type { Ctx } from '../context.js';
import { insufficientLookalikeCredits, lookalikeAvailable, reserveLookalike } from '../credits/lookalike.js';
import { ApiError } from '../errors.js';
import { failpoint } from '../faults.js';
import { newId } from '../ids.js';
import type { Workspace } from '../workspace/get.js';
import { findJob, latestJobFor } from './jobs.js';
import { lookalikeQuery, seedLabel, type LookalikeQuery } from './query.js';
import { noteAuditTarget } from '../audit/current.js';
import { agentsWithAccountStatus, firstJobRowOf, insertJobRow } from './store.js';

export const LOOKALIKE_DEFAULT_LEADS = 50;
export const LOOKALIKE_MAX_LEADS = 10_000;

export const LookalikeResult = z.object({
  campaignId: z.string(),
  status: CampaignStatus,
  extended: z.boolean(),
  extensionBatchId: z.string().nullable(),
  requestedLeadTarget: z.number().int(),
  lookalikeReserved: z.number().int(),
  resume: z.enum(['fresh', 'continue']).nullable(),
  message: z.string(),
});
export type LookalikeResult = z.infer<typeof LookalikeResult>;

export interface LookalikeRequest {
  /** Already checked by parseSeed: a normalised profile URL or a bare identifier. */
  seed: string;
  jobTitleKeywords: readonly string[];
  countries: readonly string[];
  numberOfLeads: number;
  /** Set to extend that campaign; absent to create one. */
  campaignId?: string | undefined;
  protectAcrossCampaigns: boolean;
}

/**
 * The Lookalike plan gate (self-hosting.md, Environments and keys): refused for an isolated
 * white-label workspace, a blocked one, and an inactive plan without a Lookalike top-up.
 */
export function lookalikePlanRefusal(ctx: Ctx, ws: Workspace): ApiError | null {
  if (ws.whiteLabelIsolated) return new ApiError('plan_required', 'Lookalike campaigns are not available to isolated white-label workspaces.');
  if (ws.blocked) return new ApiError('plan_required', 'Lookalike campaigns are blocked for this workspace. Contact the workspace owner to lift the block.');
  if (!ws.planActive && lookalikeAvailable(ctx, ws).topUp === 0) {
    return new ApiError('plan_required', 'The plan is inactive and there is no Lookalike top-up. Reactivate the plan or buy a Lookalike top-up, then retry.');
  }
  return null;
}

/**
 * The agent a new Lookalike campaign gets, so it can be started once filled (the API has no
 * call to assign one): the first agent whose account is connected, else the first agent.
 */
function defaultAgent(ctx: Ctx): string | null {
  const rows = agentsWithAccountStatus(ctx);
  return (rows.find((r) => r.status === 'connected') ?? rows[0])?.id ?? null;
}

interface Plan {
  campaign: CampaignRow | null;
  resume: 'fresh' | 'continue' | null;
  cursor: string | null;
}

const conflict = (message: string) => new ApiError('conflict', message);

/** Checks an extend target and finds where its pool continues. Runs inside the launch transaction. */
function planExtend(ctx: Ctx, campaignId: string, query: LookalikeQuery): Plan {
  const campaign = findCampaignRow(ctx, campaignId);
  if (!campaign) {
    throw new ApiError(
      'not_found',
      `Campaign ${campaignId} not found. campaignId is only for extending an existing campaign: omit it to create a new Lookalike campaign (the server mints its id).`,
    );
  }
  if (isFinished(campaign.status)) {
    throw conflict(
      `${neverRestarted(campaignId, campaign.status)}, so new leads would never be contacted. Omit campaignId to create a new Lookalike campaign.`,
    );
  }
  if (isImporting(campaign, ctx.clock.now())) {
    throw conflict(
      `Leads are still being added to campaign ${campaignId}. Wait until that finishes (poll get_campaign until its leads stop growing), then extend again.`,
    );
  }
  const last = latestJobFor(ctx, campaignId, query.key) ?? (query.legacyKey === query.key ? undefined : latestJobFor(ctx, campaignId, query.legacyKey));
  if (last?.exhausted) {
    throw new ApiError(
      'lookalike_exhausted',
      `No more Lookalike results for this seed, job titles and countries on campaign ${campaignId}. Extend with another seed, other titles or other countries.`,
    );
  }
  return { campaign, resume: last ? 'continue' : 'fresh', cursor: last?.cursor ?? null };
}

export type LaunchOutcome =
  | { confirmed: true; result: LookalikeResult }
  /** The launch was reported as failed, and whether it committed could not be read back. */
  | { confirmed: false; result: LookalikeResult };

const queueFailure = () => new ApiError('upstream_unavailable', 'The Lookalike job could not be queued. Nothing was reserved or created; retry the request.');

/**
 * POST /campaigns/lookalike: creates a PENDING campaign or extends one, reserves the allowance
 * (clamped to what is available) and queues the job, all in one transaction; the worker then
 * fills the leads. Nothing calls the network here.
 *
 * When the transaction is reported as failed after its body ran, the job row is read back: if
 * it is there the launch happened (the normal answer); if not, nothing happened (503); if even
 * that read fails, the outcome is unknown and the answer is `confirmed: false` (REST 202).
 */
export function launchLookalike(ctx: Ctx, ws: Workspace, req: LookalikeRequest): LaunchOutcome {
  const query = lookalikeQuery(req.seed, req.jobTitleKeywords, req.countries);
  const jobId = newId('lkb');
  const campaignId = req.campaignId ?? newId('cmp');
  noteAuditTarget(campaignId);
  let planned: LookalikeResult | undefined;
  try {
    transaction(ctx.db, () => {
      planned = undefined;
      planned = enqueue(ctx, ws, req, query, jobId, campaignId);
    });
    failpoint(ctx, 'lookalike.enqueue.commit', jobId);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    ctx.log.error({ err, jobId, campaignId }, 'lookalike launch failed');
    if (planned === undefined) throw queueFailure();
    let landed: boolean;
    try {
      failpoint(ctx, 'lookalike.enqueue.confirm', jobId);
      landed = findJob(ctx, jobId) !== undefined;
    } catch (readErr) {
      ctx.log.error({ err: readErr, jobId, campaignId }, 'lookalike launch outcome unknown');
      return { confirmed: false, result: { ...planned, message: unconfirmedMessage(planned) } };
    }
    if (!landed) throw queueFailure();
  }
  if (planned === undefined) throw queueFailure();
  ctx.log.info({ campaignId, jobId, extended: planned.extended, lookalikeReserved: planned.lookalikeReserved, creditsCharged: 0 }, 'lookalike job queued');
  return { confirmed: true, result: planned };
}

function enqueue(ctx: Ctx, ws: Workspace, req: LookalikeRequest, query: LookalikeQuery, jobId: string, campaignId: string): LookalikeResult {
  const plan: Plan = req.campaignId === undefined ? { campaign: null, resume: null, cursor: null } : planExtend(ctx, req.campaignId, query);
  const available = lookalikeAvailable(ctx, ws);
  if (available.total === 0) throw insufficientLookalikeCredits(0, req.numberOfLeads);
  const drawn = reserveLookalike(ctx, ws, jobId, req.numberOfLeads);
  const reserved = drawn.credits + drawn.topUp;
  const now = ctx.clock.now();
  if (plan.campaign) {
    // planExtend saw no live mark, in this same transaction: taking it cannot fail.
    beginImporting(ctx, campaignId, { holder: lookalikeHolder(jobId) });
  } else {
    insertCampaign(
      ctx,
      { id: campaignId, name: `Lookalike: ${seedLabel(query.seed)}`, assignedTemplateId: defaultAgent(ctx), createdAt: now, updatedAt: now },
      { kind: 'lookalike', jobId },
    );
  }
  insertJobRow(ctx, {
    id: jobId,
    campaignId,
    kind: plan.campaign ? 'extend' : 'create',
    seed: query.seed,
    jobTitleKeywords: JSON.stringify(query.jobTitleKeywords),
    countries: JSON.stringify(query.countries),
    queryKey: query.key,
    protectAcrossCampaigns: req.protectAcrossCampaigns,
    requested: req.numberOfLeads,
    reserved,
    reservedCredits: drawn.credits,
    reservedTopUp: drawn.topUp,
    resume: plan.resume,
    cursor: plan.cursor,
    state: 'pending',
    createdAt: now,
    updatedAt: now,
  });
  failpoint(ctx, 'lookalike.enqueue', jobId);
  const result: LookalikeResult = {
    campaignId,
    status: plan.campaign ? CampaignStatus.parse(plan.campaign.status) : 'PENDING',
    extended: plan.campaign !== null,
    extensionBatchId: plan.campaign ? jobId : null,
    requestedLeadTarget: req.numberOfLeads,
    lookalikeReserved: reserved,
    resume: plan.resume,
    message: '',
  };
  return { ...result, message: launchedMessage(result, query) };
}

function launchedMessage(r: LookalikeResult, query: LookalikeQuery): string {
  const clamped =
    r.lookalikeReserved < r.requestedLeadTarget
      ? ` Only ${r.lookalikeReserved} of the ${r.requestedLeadTarget} asked for could be reserved: that was all the Lookalike allowance left.`
      : '';
  const what = `up to ${r.lookalikeReserved} people similar to ${seedLabel(query.seed)}`;
  const head = r.extended
    ? `Extending campaign ${r.campaignId} (batch ${r.extensionBatchId}, ${r.resume === 'continue' ? 'continuing where the last search with this seed and filters stopped' : 'a fresh search'}) with ${what}.`
    : `Created Lookalike campaign ${r.campaignId}: finding ${what}.`;
  return (
    `${head}${clamped} Leads appear in list_leads as they are found; poll get_campaign to follow totalLeads` +
    `${r.extended ? '' : ' (it leaves PENDING when the search ends: READY_TO_SEND with leads, FAILED with none)'}.` +
    ' Allowance not used is refunded at the end.'
  );
}

function unconfirmedMessage(r: LookalikeResult): string {
  const check = r.extended
    ? `get_campaign ${r.campaignId}: if it is importing or its totalLeads grow, the extension was queued`
    : `get_campaign ${r.campaignId}: if it exists, the campaign was created; if it is not found, nothing happened`;
  return (
    `The server could not confirm that the Lookalike job was queued. Check ${check}. ` +
    'Only then retry, with a new Idempotency-Key: the same key returns this answer again.'
  );
}

/**
 * Where a launched Lookalike build stands, for a caller following it (an MCP task): still
 * searching, with the leads added so far, or finished, with the launch's result brought up to
 * date (the campaign's status now, and what the build did). A launch that was never confirmed
 * has no job to follow and counts as finished as it was.
 */
export function lookalikeProgress(
  ctx: Ctx,
  launched: LookalikeResult,
): ({ done: false; message: string } | { done: true; result: LookalikeResult }) & { step?: { done: number; total: number } } {
  const job = launched.extensionBatchId ? findJob(ctx, launched.extensionBatchId) : firstJobRowOf(ctx, launched.campaignId);
  const campaign = findCampaignRow(ctx, launched.campaignId);
  if (!job || !campaign) return { done: true, result: launched };
  // The build's units: one per lead reserved, and one for its end (refund and status), so the
  // end is a step of its own even when the last page filled the reservation.
  const total = lookalikeSteps(job.reserved);
  if (job.state !== 'done')
    return { done: false, message: `Searching: ${job.inserted} of ${job.reserved} leads added so far.`, step: { done: job.inserted, total } };
  const ending =
    job.outcome === 'filled'
      ? `The build finished: ${job.inserted} leads added.`
      : job.outcome === 'exhausted'
        ? `The build finished: the search ran out of matching people after ${job.inserted} leads.`
        : `The build stopped after ${job.inserted} leads: the network provider failed (${job.errorCode ?? 'unknown error'}).`;
  const refund = job.refunded ? ` ${job.refunded} Lookalike allowance refunded.` : '';
  return {
    done: true,
    result: { ...launched, status: CampaignStatus.parse(campaign.status), message: `${ending}${refund} See list_leads for campaign ${launched.campaignId}.` },
    step: { done: total, total },
  };
}

/** How many progress units a build of `reserved` leads has: a lead each, and its end. */
export const lookalikeSteps = (reserved: number): number => reserved + 1;
