import type { Campaign, InsightsOverview, Lead } from '../shared/types.js';

export function campaign(over: Partial<Campaign> = {}): Campaign {
  return {
    id: 'cmp_1',
    name: 'Founders in Berlin',
    status: 'READY_TO_SEND',
    totalLeads: 120,
    assignedTemplateId: 'tpl_1',
    stats: { connectionRequestsSent: 80, connectionRequestsAccepted: 32, acceptanceRate: 40, messagesSent: 30, repliesReceived: 6, replyRate: 20 },
    senderAccountIds: [],
    ...over,
  };
}

export function lead(n: number, over: Partial<Lead> = {}): Lead {
  return {
    id: `lead_${n}`,
    fullName: `Lead Number${n}`,
    firstName: 'Lead',
    lastName: `Number${n}`,
    networkUrl: `https://www.linkedin.com/in/lead-${n}`,
    jobTitle: 'CTO',
    location: 'Berlin',
    companyName: `Company ${n}`,
    companyNetwork: null,
    website: null,
    email: null,
    tag: null,
    replied: false,
    needsReply: false,
    excluded: false,
    stage: 'new',
    repliedAt: null,
    lastInboundMessageAt: null,
    taggedAt: null,
    ...over,
  };
}

export function insights(over: Partial<InsightsOverview> = {}): InsightsOverview {
  return {
    highlights: {
      lastActivityAt: '2026-11-20T10:00:00.000Z',
      lastReplyAt: '2026-11-20T09:00:00.000Z',
      lastReplyLeadName: 'Ada Lovelace',
      lastReplyCampaignId: 'cmp_1',
    },
    workspace: { repliesReceived: 6, connectionRequestsSent: 80, connectionRequestsAccepted: 32, messagesSent: 30 },
    topCampaignsByReplyRate: [campaign()],
    topCampaignsByAcceptanceRate: [campaign()],
    campaignsSampled: 1,
    campaignsSampleCapped: false,
    ...over,
  };
}
