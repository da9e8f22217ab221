// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else, as the API names them; these objects are never awaited.
import type { Account, Agent, Campaign, InsightsOverview, Lead } from '../shared/types.js';

export function campaign(over: Partial<Campaign> = {}): Campaign {
  return {
    id: 'cmp_1',
    name: 'Founders in Berlin',
    status: 'READY_TO_SEND',
    totalLeads: 120,
    assignedTemplateId: 'tpl_1',
    stats: { connectionRequestsSent: 80, connectionRequestsAccepted: 32, acceptanceRate: 40, messagesSent: 30, repliesReceived: 6, replyRate: 20 },
    senderAccountIds: [],
    approval: 'off',
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

/** An agent written with steps: a visit, an A/B invitation, then if accepted a wait and an A/B message, else a withdrawal and an InMail. */
export function stepsAgent(over: Partial<Agent> = {}): Agent {
  return {
    id: 'tpl_steps',
    name: 'Branching intro',
    accountId: 'acc_1',
    connectionNote: 'Hi {{firstName|there}}',
    messages: [{ text: 'Thanks, {{firstName|there}}!', delayHours: 24 }],
    steps: [
      { id: 'stp_visit0000000000A', kind: 'visit' },
      { id: 'stp_invite000000000A', kind: 'invite', note: 'Hi {{firstName|there}}', variants: [{ note: 'Hello {{firstName|there}}' }] },
      {
        id: 'stp_ifaccepted00000A',
        kind: 'if',
        condition: 'accepted',
        withinHours: 168,
        then: [
          { id: 'stp_wait00000000000A', kind: 'wait', hours: 24 },
          { id: 'stp_message00000000A', kind: 'message', text: 'Thanks, {{firstName|there}}!', variants: [{ text: 'Great to meet you.' }] },
        ],
        else: [
          { id: 'stp_withdraw0000000A', kind: 'withdraw' },
          { id: 'stp_inmail000000000A', kind: 'inmail', subject: 'An idea for {{companyName}}', text: 'Hi {{firstName|there}}, one idea.' },
        ],
      },
    ],
    ...over,
  };
}

/** The demo's agent, written with connectionNote and messages, as get_agent reads it: derived ids, if accepted within the invitation timeout. */
export function legacyAgent(): Agent {
  return {
    id: 'tpl_legacy',
    name: 'Friendly intro',
    accountId: 'acc_1',
    connectionNote: 'Hi {{firstName}}',
    messages: [
      { text: 'Thanks for connecting!', delayHours: 1 },
      { text: 'Following up.', delayHours: 0 },
    ],
    steps: [
      { id: 'stp_0123456789abcdef', kind: 'invite', note: 'Hi {{firstName}}' },
      {
        id: 'stp_1123456789abcdef',
        kind: 'if',
        condition: 'accepted',
        withinHours: 504,
        then: [
          { id: 'stp_2123456789abcdef', kind: 'wait', hours: 1 },
          { id: 'stp_3123456789abcdef', kind: 'message', text: 'Thanks for connecting!' },
          { id: 'stp_4123456789abcdef', kind: 'message', text: 'Following up.' },
        ],
        else: [{ id: 'stp_5123456789abcdef', kind: 'withdraw' }],
      },
    ],
  };
}

export function account(n: number, over: Partial<Account> = {}): Account {
  return {
    id: `acc_${n}`,
    name: `Sender ${n}`,
    status: 'connected',
    active: true,
    hasSalesNavigator: false,
    today: {
      connectionRequestsSent: 0,
      connectionRequestsAccepted: 0,
      connectionRequestLimit: 25,
      messagesSent: 0,
      messageLimit: 50,
      profileVisits: 0,
      profileVisitLimit: 80,
      postReactions: 0,
      postReactionLimit: 30,
    },
    limits: { connectionRequestLimit: 25, messageLimit: 50, profileVisitLimit: 80, postReactionLimit: 30 },
    week: { connectionRequestsSent: 0, connectionRequestLimit: 100, fullUntil: null },
    warmUp: null,
    ...over,
  };
}
