/**
 * A valid call for every registered tool against the fixture workspace. The shared suite
 * (common.test.ts) uses these to run auth, plan and validation cases on every tool; the
 * registry test fails when a tool has no sample.
 */
export const SAMPLE_CALLS: Record<string, { rest: { method: string; path: string; body?: unknown }; args: Record<string, unknown> }> = {
  get_credits: { rest: { method: 'GET', path: '/credits' }, args: {} },
  list_accounts: { rest: { method: 'GET', path: '/accounts?limit=2' }, args: { limit: 2 } },
  list_campaigns: { rest: { method: 'GET', path: '/campaigns?status=READY_TO_SEND' }, args: { status: 'READY_TO_SEND' } },
  get_campaign: { rest: { method: 'GET', path: '/campaigns/cmp_q4' }, args: { campaignId: 'cmp_q4' } },
  list_leads: {
    rest: { method: 'GET', path: '/campaigns/cmp_q4/leads?sort=createdAt&limit=10' },
    args: { campaignId: 'cmp_q4', sort: 'createdAt', limit: 10 },
  },
  get_lead: { rest: { method: 'GET', path: '/campaigns/cmp_q4/leads/lead_ada1' }, args: { campaignId: 'cmp_q4', leadId: 'lead_ada1' } },
  get_recent_activity: { rest: { method: 'GET', path: '/activity?type=reply_received&limit=5' }, args: { type: 'reply_received', limit: 5 } },
  get_insights_overview: { rest: { method: 'GET', path: '/insights/overview' }, args: {} },
};
