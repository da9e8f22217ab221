import type { Tool } from './define.js';
import { getCampaignTool } from './get-campaign.js';
import { getCreditsTool } from './get-credits.js';
import { getInsightsOverviewTool } from './get-insights-overview.js';
import { getLeadTool } from './get-lead.js';
import { getRecentActivityTool } from './get-recent-activity.js';
import { listAccountsTool } from './list-accounts.js';
import { listCampaignsTool } from './list-campaigns.js';
import { listLeadsTool } from './list-leads.js';

/** The registry: every tool that works, in the order clients list them (the spec's tool mapping). */
export const tools: readonly Tool[] = [
  getCreditsTool,
  listAccountsTool,
  getRecentActivityTool,
  getInsightsOverviewTool,
  listCampaignsTool,
  getCampaignTool,
  listLeadsTool,
  getLeadTool,
];

export const toolByName: ReadonlyMap<string, Tool> = new Map(tools.map((t) => [t.name, t]));
