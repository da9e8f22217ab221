import type { Ctx } from '../../src/core/context.js';
import { recordMessage } from '../../src/core/conversations/record.js';

/**
 * A valid call for every registered tool against the fixture workspace. The shared suite
 * (common.test.ts) uses these to run auth, plan and validation cases on every tool; the
 * registry test fails when a tool has no sample.
 */
export const SAMPLE_CALLS: Record<
  string,
  {
    rest: { method: string; path: string; body?: unknown };
    args: Record<string, unknown>;
    /** What the fixture lacks for the call to succeed, made once on the test's server. */
    setup?: (ctx: Ctx) => void;
  }
> = {
  get_credits: { rest: { method: 'GET', path: '/credits' }, args: {} },
  list_accounts: { rest: { method: 'GET', path: '/accounts?limit=2' }, args: { limit: 2 } },
  list_campaigns: { rest: { method: 'GET', path: '/campaigns?status=READY_TO_SEND' }, args: { status: 'READY_TO_SEND' } },
  get_campaign: { rest: { method: 'GET', path: '/campaigns/cmp_q4' }, args: { campaignId: 'cmp_q4' } },
  // The write samples are harmless to repeat: an existing profile is a free duplicate, the
  // same tag again is a no-op, and deleting an unknown id is an item not_found.
  add_lead: {
    rest: { method: 'POST', path: '/campaigns/cmp_q4/leads', body: { networkUrl: 'https://www.linkedin.com/in/ada-lovelace' } },
    args: { campaignId: 'cmp_q4', networkUrl: 'https://www.linkedin.com/in/ada-lovelace' },
  },
  add_leads_batch: {
    rest: { method: 'POST', path: '/campaigns/cmp_q4/leads/batch', body: { leads: [{ networkUrl: 'https://linkedin.com/in/Ada-Lovelace/' }] } },
    args: { campaignId: 'cmp_q4', leads: [{ networkUrl: 'https://linkedin.com/in/Ada-Lovelace/' }] },
  },
  update_lead: {
    rest: { method: 'PATCH', path: '/campaigns/cmp_q4/leads/lead_ada1', body: { tag: 'Interested' } },
    args: { campaignId: 'cmp_q4', leadId: 'lead_ada1', tag: 'Interested' },
  },
  update_leads_batch: {
    rest: { method: 'POST', path: '/campaigns/cmp_q4/leads/batch-update', body: { updates: [{ leadId: 'lead_ada1', tag: 'Interested' }] } },
    args: { campaignId: 'cmp_q4', updates: [{ leadId: 'lead_ada1', tag: 'Interested' }] },
  },
  delete_leads_batch: {
    rest: { method: 'POST', path: '/campaigns/cmp_q4/leads/batch-delete', body: { leadIds: ['lead_never_existed'] } },
    args: { campaignId: 'cmp_q4', leadIds: ['lead_never_existed'] },
  },
  // Repeatable: the running campaign stays a noop, the paused one too.
  start_campaign: { rest: { method: 'POST', path: '/campaigns/cmp_running/start', body: {} }, args: { campaignId: 'cmp_running' } },
  pause_campaign: { rest: { method: 'POST', path: '/campaigns/cmp_paused/pause', body: {} }, args: { campaignId: 'cmp_paused' } },
  // Repeatable: each call creates a new one-lead campaign (the fixture has 520 Lookalike credits).
  create_lookalike_campaign: {
    rest: { method: 'POST', path: '/campaigns/lookalike', body: { seed: 'https://www.linkedin.com/in/ada-lovelace', numberOfLeads: 1 } },
    args: { seed: 'https://www.linkedin.com/in/ada-lovelace', numberOfLeads: 1 },
  },
  send_message: {
    rest: { method: 'POST', path: '/inbox/messages', body: { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hello Ada' } },
    args: { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hello Ada' },
  },
  lookup_profile: {
    rest: { method: 'POST', path: '/network/profiles/lookup', body: { accountId: 'acc_ada', networkUrl: 'https://www.linkedin.com/in/ada-lovelace' } },
    args: { accountId: 'acc_ada', networkUrl: 'https://www.linkedin.com/in/ada-lovelace' },
  },
  search_linkedin: {
    rest: { method: 'POST', path: '/network/search', body: { accountId: 'acc_ada', query: 'cto london', limit: 5 } },
    args: { accountId: 'acc_ada', query: 'cto london', limit: 5 },
  },
  list_leads: {
    rest: { method: 'GET', path: '/campaigns/cmp_q4/leads?sort=createdAt&limit=10' },
    args: { campaignId: 'cmp_q4', sort: 'createdAt', limit: 10 },
  },
  get_lead: { rest: { method: 'GET', path: '/campaigns/cmp_q4/leads/lead_ada1' }, args: { campaignId: 'cmp_q4', leadId: 'lead_ada1' } },
  get_recent_activity: { rest: { method: 'GET', path: '/activity?type=reply_received&limit=5' }, args: { type: 'reply_received', limit: 5 } },
  get_insights_overview: { rest: { method: 'GET', path: '/insights/overview' }, args: {} },
  // The manage toolset. Repeatable: creates make a new item each time, updates set the same value.
  create_campaign: { rest: { method: 'POST', path: '/campaigns', body: { name: 'Spring outreach' } }, args: { name: 'Spring outreach' } },
  update_campaign: { rest: { method: 'PATCH', path: '/campaigns/cmp_q4', body: { name: 'Q4 outreach' } }, args: { campaignId: 'cmp_q4', name: 'Q4 outreach' } },
  list_agents: { rest: { method: 'GET', path: '/agents?limit=2' }, args: { limit: 2 } },
  get_agent: { rest: { method: 'GET', path: '/agents/tpl_intro' }, args: { agentId: 'tpl_intro' } },
  create_agent: {
    rest: {
      method: 'POST',
      path: '/agents',
      body: {
        name: 'Intro 2',
        accountId: 'acc_ada',
        connectionNote: 'Hi {{firstName|there}}',
        messages: [{ text: 'Thanks {{ firstname }}!', delayHours: 24 }],
      },
    },
    args: { name: 'Intro 2', accountId: 'acc_ada', connectionNote: 'Hi {{firstName|there}}', messages: [{ text: 'Thanks {{ firstname }}!', delayHours: 24 }] },
  },
  update_agent: { rest: { method: 'PATCH', path: '/agents/tpl_intro', body: { name: 'Intro' } }, args: { agentId: 'tpl_intro', name: 'Intro' } },
  get_agent_stats: { rest: { method: 'GET', path: '/agents/tpl_intro/stats?campaignId=cmp_q4' }, args: { agentId: 'tpl_intro', campaignId: 'cmp_q4' } },
  preview_agent: { rest: { method: 'GET', path: '/agents/tpl_intro/preview?leadId=lead_ada1' }, args: { agentId: 'tpl_intro', leadId: 'lead_ada1' } },
  connect_account: { rest: { method: 'POST', path: '/accounts', body: { name: 'Sales team' } }, args: { name: 'Sales team' } },
  update_account: { rest: { method: 'PATCH', path: '/accounts/acc_ada', body: { messageLimit: 50 } }, args: { accountId: 'acc_ada', messageLimit: 50 } },
  list_mailboxes: { rest: { method: 'GET', path: '/mailboxes?limit=2' }, args: { limit: 2 } },
  // A second connect of the address is a conflict (409); a retried idempotency key replays the first.
  connect_mailbox: {
    rest: { method: 'POST', path: '/mailboxes', body: { name: 'Outbound', address: 'outbound@outreach.test', sim: true } },
    args: { name: 'Outbound', address: 'outbound@outreach.test', sim: true },
  },
  update_mailbox: { rest: { method: 'PATCH', path: '/mailboxes/mbx_sales', body: { dailyLimit: 40 } }, args: { mailboxId: 'mbx_sales', dailyLimit: 40 } },
  // The drafts toolset. Repeatable: an unknown draft is an item not_found.
  list_audit_events: { rest: { method: 'GET', path: '/audit?limit=10' }, args: { limit: 10 } },
  list_drafts: { rest: { method: 'GET', path: '/drafts?campaignId=cmp_q4&status=pending' }, args: { campaignId: 'cmp_q4', status: 'pending' } },
  update_drafts: {
    rest: { method: 'POST', path: '/drafts/batch-update', body: { drafts: [{ id: 'drf_never_existed', status: 'approved' }] } },
    args: { drafts: [{ id: 'drf_never_existed', status: 'approved' }] },
  },
  // The triage toolset. Repeatable: the same suggestion again replaces itself.
  list_conversations: { rest: { method: 'GET', path: '/conversations?filter=needs_reply' }, args: { filter: 'needs_reply' } },
  get_conversation: { rest: { method: 'GET', path: '/conversations/lead_ada1' }, args: { leadId: 'lead_ada1' } },
  suggest_tag: {
    rest: { method: 'POST', path: '/conversations/lead_ada1/suggested-tag', body: { tag: 'Interested', confidence: 0.8 } },
    args: { leadId: 'lead_ada1', tag: 'Interested', confidence: 0.8 },
    // A workspace file holds no messages: the lead replies once, so it has a thread to triage.
    setup: (ctx) =>
      void recordMessage(ctx, { lead: { id: 'lead_ada1', campaignId: 'cmp_q4' }, sender: 'lead', text: 'Tell me more.', at: 1_000, accountId: null }),
  },
};
