import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { campaignHasLeads } from '../leads/store.js';
import { accountDisconnected, accountRef, findAccount } from '../accounts/resolve.js';
import { recordSalesNavigator } from '../accounts/sync.js';
import type { Ctx } from '../context.js';
import { ApiError, toApiError, validationError } from '../errors.js';
import { Campaign, CampaignStatus, mailboxIdsOf, requireCampaignRow, toCampaign, type CampaignRow } from './campaign.js';
import { stepsOf } from '../agents/agents.js';
import { agentRowById } from '../agents/store.js';
import { stepsUseEmail } from '../agents/steps.js';
import { sendersPreview, type SendersPreview } from '../sequences/senders.js';
import { applyCampaignEvent, isImporting, neverRestarted } from './state-machine.js';

export const StartCampaignResult = z.object({
  campaignId: z.string(),
  action: z.enum(['started', 'resumed', 'noop']),
  status: CampaignStatus,
  campaign: Campaign,
});
export type StartCampaignResult = z.infer<typeof StartCampaignResult>;

export const PauseCampaignResult = z.object({
  campaignId: z.string(),
  action: z.enum(['paused', 'noop']),
  status: CampaignStatus,
  campaign: Campaign,
});
export type PauseCampaignResult = z.infer<typeof PauseCampaignResult>;

const conflict = (message: string) => new ApiError('conflict', message);

/** Which start transition applies to a campaign (spec, Campaign start and pause). */
function startAction(ctx: Ctx, row: CampaignRow): 'started' | 'resumed' | 'noop' {
  switch (row.status) {
    case 'CAMPAIGN_IN_PROGRESS':
      return 'noop';
    case 'READY_TO_SEND':
      return 'started';
    case 'CAMPAIGN_PAUSED':
      return 'resumed';
    case 'FAILED':
      if (!campaignHasLeads(ctx.db, row.id)) {
        throw conflict(`Campaign ${row.id} is FAILED and has no leads. Add leads first (that makes it READY_TO_SEND), then start it.`);
      }
      return 'started';
    case 'COMPLETED':
    case 'DONE':
      throw conflict(`${neverRestarted(row.id, row.status)}; create a new campaign for more outreach.`);
    default:
      throw conflict(`Campaign ${row.id} is ${row.status} and cannot be started yet. Wait until it is READY_TO_SEND (poll get_campaign), then retry.`);
  }
}

const leadCount = (n: number) => `${n} ${n === 1 ? 'lead' : 'leads'}`;

/**
 * Who sends to how many leads, in words: "from Ada to its 3 leads" when one sender has them all,
 * else each sender's pinned leads and the leads shared among the campaign's senders.
 */
function whoSends(p: SendersPreview): string {
  const named = (a: SendersPreview['accounts'][number]) => a.name ?? a.accountId;
  const shared = p.accounts.filter((a) => a.shared);
  const busy = p.accounts.filter((a) => a.count > 0 || (a.shared && p.unassigned > 0));
  // With no lead to share, a campaign with one sender still names it.
  const only = busy.length === 1 ? busy[0] : busy.length === 0 && shared.length === 1 ? shared[0] : undefined;
  if (busy.length <= 1) return only ? `from ${named(only)} to its ${leadCount(p.leads)}` : `to its ${leadCount(p.leads)}`;
  const parts = p.accounts.filter((a) => a.count > 0).map((a) => `${leadCount(a.count)} from ${named(a)}`);
  if (p.unassigned > 0) {
    parts.push(`${leadCount(p.unassigned)} shared among ${shared.map(named).join(', ')} (each goes to the sender with the most invitations left that day)`);
  }
  return `to its ${leadCount(p.leads)}: ${parts.join('; ')}`;
}

/**
 * What starting the campaign would do, as one question for the person to confirm: null when
 * the start would do nothing (already running) or would be refused anyway (startCampaign
 * gives the reason then).
 */
export function startQuestion(ctx: Ctx, campaignId: string): string | null {
  try {
    const row = requireCampaignRow(ctx, campaignId);
    if (row.assignedTemplateId === null) return null;
    const agent = agentRowById(ctx, row.assignedTemplateId);
    const account = agent?.accountId ? findAccount(ctx, agent.accountId) : undefined;
    const action = startAction(ctx, row);
    if (action === 'noop' || !account) return null;
    const verb = action === 'resumed' ? 'Resume' : 'Start';
    return `${verb} campaign "${row.name}"? It will send connection requests and messages ${whoSends(sendersPreview(ctx, row.id))}.`;
  } catch {
    return null;
  }
}

/**
 * POST /campaigns/{id}/start. Checks, in order: the campaign exists, it has an agent, the
 * agent exists, the status allows a start, the agent's account is connected in our records
 * and at the provider. Only then does the status change, in one transaction that re-checks
 * the status it decided on.
 */
export async function startCampaign(ctx: Ctx, campaignId: string): Promise<StartCampaignResult> {
  const row = requireCampaignRow(ctx, campaignId);
  if (row.assignedTemplateId === null) {
    throw validationError(`Campaign ${campaignId} has no agent (assignedTemplateId is null). Assign an agent to it, then start it again.`, [
      'assignedTemplateId',
    ]);
  }
  const agent = agentRowById(ctx, row.assignedTemplateId);
  if (!agent) throw new ApiError('not_found', `Agent ${row.assignedTemplateId} assigned to campaign ${campaignId} no longer exists. Assign an existing agent.`);

  const action = startAction(ctx, row);
  if (action === 'noop') return result(campaignId, 'noop', row);
  // Email steps go from the campaign's mailboxes: without one, none could be sent.
  if (mailboxIdsOf(row).length === 0 && stepsUseEmail(stepsOf(agent, 21 * 24))) {
    throw validationError(
      `Campaign ${campaignId} runs email steps but has no mailbox. Set mailboxIds (update_campaign; list_mailboxes gives the ids), then start it again.`,
      ['mailboxIds'],
    );
  }

  const account = agent.accountId ? findAccount(ctx, agent.accountId) : undefined;
  if (!account) {
    throw new ApiError('account_disconnected', `Agent ${agent.id} has no network account to send from. Connect an account and assign it to the agent.`);
  }
  if (account.status !== 'connected') throw accountDisconnected(account);
  let health;
  try {
    health = await ctx.network.accountHealth(accountRef(account));
  } catch (err) {
    const error = toApiError(err);
    if (error.code === 'account_disconnected') throw accountDisconnected({ id: account.id, status: 'disconnected' });
    throw new ApiError(
      'upstream_unavailable',
      `The network could not confirm account ${account.id} is ready, so campaign ${campaignId} was not ${action}. Nothing changed; retry shortly.`,
    );
  }
  if (health.status !== 'connected') throw accountDisconnected({ id: account.id, status: health.status });

  const updated = transaction(ctx.db, () => {
    const current = requireCampaignRow(ctx, campaignId);
    if (current.status !== row.status) {
      throw conflict(`Campaign ${campaignId} changed status to ${current.status} while starting. Call get_campaign and retry if still needed.`);
    }
    // Whether the account has Sales Navigator is the provider's word (Unipile lists it among the
    // account's premium features): an InMail step is planned on it from now on.
    recordSalesNavigator(ctx.db, account.id, health.hasSalesNavigator);
    applyCampaignEvent(ctx, campaignId, action === 'resumed' ? 'resume' : 'start');
    return requireCampaignRow(ctx, campaignId);
  });
  ctx.log.info({ campaignId, action }, 'campaign started');
  return result(campaignId, action, updated);
}

/**
 * POST /campaigns/{id}/pause. Only the status changes: the engine re-reads it before every
 * send, so queued outreach stops at once and pausing sends nothing to the network.
 */
export function pauseCampaign(ctx: Ctx, campaignId: string): PauseCampaignResult {
  return transaction(ctx.db, () => {
    const row = requireCampaignRow(ctx, campaignId);
    if (row.status === 'CAMPAIGN_PAUSED') return result(campaignId, 'noop', row);
    if (row.status !== 'CAMPAIGN_IN_PROGRESS') {
      throw conflict(`Campaign ${campaignId} is ${row.status}; only a CAMPAIGN_IN_PROGRESS campaign can be paused.`);
    }
    // A lease: an importer that died stops holding it, so pause works within its time.
    if (isImporting(row, ctx.clock.now())) {
      throw conflict(`Leads are still being added to campaign ${campaignId}. Retry the pause after the adding finishes (poll get_campaign).`);
    }
    applyCampaignEvent(ctx, campaignId, 'pause');
    return result(campaignId, 'paused', requireCampaignRow(ctx, campaignId));
  });
}

function result<A extends string>(campaignId: string, action: A, row: CampaignRow) {
  const campaign = toCampaign(row);
  return { campaignId, action, status: campaign.status, campaign };
}
