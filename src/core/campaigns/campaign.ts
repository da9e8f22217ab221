import { z } from 'zod';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import { ApiError } from '../errors.js';
import { campaignReach } from '../auth/scope.js';
import { campaignIds, campaignListed, campaignPage, campaignRow, type CampaignRow } from './store.js';

/**
 * Campaign statuses: the spec's named values, plus DRAFT and PREPARING for campaigns that
 * are still being set up ("any other (e.g. still preparing)" in the start table).
 */
export const CAMPAIGN_STATUSES = [
  'DRAFT',
  'PREPARING',
  'PENDING',
  'READY_TO_SEND',
  'CAMPAIGN_IN_PROGRESS',
  'CAMPAIGN_PAUSED',
  'COMPLETED',
  'DONE',
  'FAILED',
] as const;
export const CampaignStatus = z.enum(CAMPAIGN_STATUSES);
export type CampaignStatus = z.infer<typeof CampaignStatus>;

export const CampaignStats = z.object({
  connectionRequestsSent: z.number().int(),
  connectionRequestsAccepted: z.number().int(),
  acceptanceRate: z.number().nullable(),
  messagesSent: z.number().int(),
  repliesReceived: z.number().int(),
  replyRate: z.number().nullable(),
});

/** `required`: every note and message waits as a draft until a person approves it. */
export const CAMPAIGN_APPROVALS = ['off', 'required'] as const;
export const CampaignApproval = z.enum(CAMPAIGN_APPROVALS);
export type CampaignApproval = z.infer<typeof CampaignApproval>;

export const Campaign = z.object({
  id: z.string(),
  name: z.string(),
  status: CampaignStatus,
  totalLeads: z.number().int(),
  assignedTemplateId: z.string().nullable(),
  stats: CampaignStats,
  /** The accounts that send for the campaign, each lead from one of them; empty: the agent's account. */
  senderAccountIds: z.array(z.string()),
  approval: CampaignApproval,
  /** The mailboxes that send the campaign's email steps, each lead from one of them; always returned (optional in the type for older readers). */
  mailboxIds: z.array(z.string()).optional(),
});
export type Campaign = z.infer<typeof Campaign>;

export type { CampaignRow };

/** A percentage with one decimal, or null when the denominator is 0. */
export const rate = (numerator: number, denominator: number): number | null => (denominator === 0 ? null : Math.round((numerator / denominator) * 1000) / 10);

/** A campaign's senders as stored (a JSON array of account ids); unreadable reads as none. */
export function senderAccountIdsOf(row: Pick<CampaignRow, 'senderAccountIds'>): string[] {
  return idsOf(row.senderAccountIds);
}

/** A campaign's mailboxes as stored (a JSON array of mailbox ids); unreadable reads as none. */
export function mailboxIdsOf(row: Pick<CampaignRow, 'mailboxIds'>): string[] {
  return idsOf(row.mailboxIds);
}

function idsOf(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

export function toCampaign(row: CampaignRow): Campaign {
  return {
    id: row.id,
    name: row.name,
    status: row.status as CampaignStatus,
    totalLeads: row.totalLeads,
    assignedTemplateId: row.assignedTemplateId,
    stats: {
      connectionRequestsSent: row.connectionRequestsSent,
      connectionRequestsAccepted: row.connectionRequestsAccepted,
      acceptanceRate: rate(row.connectionRequestsAccepted, row.connectionRequestsSent),
      messagesSent: row.messagesSent,
      repliesReceived: row.repliesReceived,
      replyRate: rate(row.repliesReceived, row.messagesSent),
    },
    senderAccountIds: senderAccountIdsOf(row),
    approval: row.approval as CampaignApproval,
    mailboxIds: mailboxIdsOf(row),
  };
}

export const campaignNotFound = (id: string) => new ApiError('not_found', `Campaign ${id} not found. Call list_campaigns (GET /campaigns) for valid ids.`);

/**
 * The campaign, or undefined when there is none or the call may not see it (a key held to
 * other campaigns, core/auth/scope.ts): every campaign-bound route reads its campaign here, so
 * for such a key another campaign is absent everywhere, 404 as if it did not exist.
 */
export function findCampaignRow(ctx: Ctx, id: string): CampaignRow | undefined {
  if (ctx.campaigns && !ctx.campaigns.has(id)) return undefined;
  return campaignRow(ctx, id);
}

/** The campaign row, or not_found. */
export function requireCampaignRow(ctx: Ctx, id: string): CampaignRow {
  const row = findCampaignRow(ctx, id);
  if (!row) throw campaignNotFound(id);
  return row;
}

/**
 * A campaign named by a filter (`campaignId` in a query or body, not the path): an unknown one
 * is 404 naming the field, as every filter's refusal names it. Nothing to check when absent.
 */
export function requireCampaignFilter(ctx: Ctx, campaignId: string | undefined): void {
  if (campaignId !== undefined && !findCampaignRow(ctx, campaignId)) {
    throw new ApiError('not_found', campaignNotFound(campaignId).message, { fields: ['campaignId'] });
  }
}

export const getCampaign = (ctx: Ctx, id: string): Campaign => toCampaign(requireCampaignRow(ctx, id));

/** Every campaign's id, oldest first: what a change of unknown scope (another process's commit) may have touched. */
export const allCampaignIds = (ctx: Pick<Ctx, 'db'>): string[] => campaignIds(ctx);

export interface ListCampaignsInput {
  status?: CampaignStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Newest first. The cursor is bound to the status filter. */
export function listCampaigns(ctx: Ctx, secret: string, input: ListCampaignsInput): { campaigns: Campaign[]; nextCursor: string | null } {
  const scope = `campaigns|${input.status ?? ''}`;
  const reach = (column: Parameters<typeof campaignReach>[1]) => campaignReach(ctx, column);
  let beforeSeq: number | undefined;
  if (input.cursor !== undefined) {
    const [seq] = decodeCursor(secret, scope, input.cursor);
    if (typeof seq !== 'number' || !campaignListed(ctx, seq, input.status, reach)) throw invalidCursor();
    beforeSeq = seq;
  }
  const rows = campaignPage(ctx, { status: input.status, reach, beforeSeq, limit: input.limit + 1 });
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, scope, [last.seq]));
  return { campaigns: page.items.map(toCampaign), nextCursor: page.nextCursor };
}
