import { z } from 'zod';
import { latestPublicEvent } from '../activity/store.js';
import { campaignReach } from '../auth/scope.js';
import { Campaign, rate, toCampaign, type CampaignRow } from '../campaigns/campaign.js';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { campaignCounterSums, recentlyUpdatedCampaignRows } from '../campaigns/store.js';
import { clean } from '../text.js';
import { WORKSPACE_ID } from '../workspace/get.js';
import { workspaceCounters } from '../workspace/store.js';

/** Insights rank the most recently updated campaigns only, so the cost does not grow with history. */
export const CAMPAIGN_SAMPLE_SIZE = 100;
export const TOP_CAMPAIGNS = 5;

const Timestamp = IsoTimestamp.nullable();

export const InsightsOverview = z.object({
  highlights: z.object({
    lastActivityAt: Timestamp.describe('Latest listed activity event; null when there is none.'),
    lastReplyAt: Timestamp.describe('Latest reply_received; null when there is none.'),
    lastReplyLeadName: z.string().nullable(),
    lastReplyCampaignId: z.string().nullable(),
  }),
  workspace: z.object({
    repliesReceived: z.number().int(),
    connectionRequestsSent: z.number().int(),
    connectionRequestsAccepted: z.number().int(),
    messagesSent: z.number().int(),
  }),
  topCampaignsByReplyRate: z.array(Campaign).max(TOP_CAMPAIGNS),
  topCampaignsByAcceptanceRate: z.array(Campaign).max(TOP_CAMPAIGNS),
  campaignsSampled: z.number().int(),
  campaignsSampleCapped: z.boolean(),
});
export type InsightsOverview = z.infer<typeof InsightsOverview>;

/**
 * The best campaigns of the sample by one rate, zero-denominator campaigns left out. Ties go to
 * the larger denominator (more evidence), then to the more recently updated campaign, so the
 * order is fully determined.
 */
function topBy(sample: CampaignRow[], numerator: (c: CampaignRow) => number, denominator: (c: CampaignRow) => number): Campaign[] {
  return sample
    .map((row, recency) => ({ row, recency, den: denominator(row), rate: rate(numerator(row), denominator(row)) }))
    .filter((c): c is typeof c & { rate: number } => c.rate !== null)
    .sort((a, b) => b.rate - a.rate || b.den - a.den || a.recency - b.recency)
    .slice(0, TOP_CAMPAIGNS)
    .map((c) => toCampaign(c.row));
}

/**
 * For a key held to campaigns, the totals are its campaigns' own: the workspace's counters
 * would tell it that other campaigns exist and what they did.
 */
function reachableTotals(ctx: Ctx) {
  return campaignCounterSums(ctx, (id) => campaignReach(ctx, id));
}

export function getInsightsOverview(ctx: Ctx): InsightsOverview {
  // A key held to campaigns sees its campaigns' events only.
  const lastActivity = latestPublicEvent(ctx, (id) => campaignReach(ctx, id));
  const lastReply = latestPublicEvent(ctx, (id) => campaignReach(ctx, id), 'reply_received');
  const counters = ctx.campaigns ? reachableTotals(ctx) : workspaceCounters(ctx, WORKSPACE_ID);
  const sample = recentlyUpdatedCampaignRows(ctx, (id) => campaignReach(ctx, id), CAMPAIGN_SAMPLE_SIZE);
  return {
    highlights: {
      lastActivityAt: lastActivity ? iso(lastActivity.at) : null,
      lastReplyAt: lastReply ? iso(lastReply.at) : null,
      lastReplyLeadName: lastReply ? clean(lastReply.leadName) : null,
      lastReplyCampaignId: lastReply?.campaignId ?? null,
    },
    workspace: {
      repliesReceived: counters?.repliesReceived ?? 0,
      connectionRequestsSent: counters?.connectionRequestsSent ?? 0,
      connectionRequestsAccepted: counters?.connectionRequestsAccepted ?? 0,
      messagesSent: counters?.messagesSent ?? 0,
    },
    topCampaignsByReplyRate: topBy(
      sample,
      (c) => c.repliesReceived,
      (c) => c.messagesSent,
    ),
    topCampaignsByAcceptanceRate: topBy(
      sample,
      (c) => c.connectionRequestsAccepted,
      (c) => c.connectionRequestsSent,
    ),
    campaignsSampled: sample.length,
    campaignsSampleCapped: sample.length === CAMPAIGN_SAMPLE_SIZE,
  };
}
