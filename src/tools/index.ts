import type { Tool } from './define.js';
import { addLeadTool } from './add-lead.js';
import { addLeadsBatchTool } from './add-leads-batch.js';
import { createLookalikeCampaignTool } from './create-lookalike-campaign.js';
import { deleteLeadsBatchTool } from './delete-leads-batch.js';
import { getCampaignTool } from './get-campaign.js';
import { getCreditsTool } from './get-credits.js';
import { getInsightsOverviewTool } from './get-insights-overview.js';
import { getLeadTool } from './get-lead.js';
import { getRecentActivityTool } from './get-recent-activity.js';
import { listAccountsTool } from './list-accounts.js';
import { listCampaignsTool } from './list-campaigns.js';
import { listLeadsTool } from './list-leads.js';
import { lookupProfileTool } from './lookup-profile.js';
import { pauseCampaignTool } from './pause-campaign.js';
import { searchLinkedinTool } from './search-linkedin.js';
import { sendMessageTool } from './send-message.js';
import { startCampaignTool } from './start-campaign.js';
import { updateLeadTool } from './update-lead.js';
import { updateLeadsBatchTool } from './update-leads-batch.js';
import { operatorTools } from './operator/index.js';

/** The registry: the spec's 19 tools, in the order of its tool mapping. */
export const tools: readonly Tool[] = [
  getCreditsTool,
  listAccountsTool,
  getRecentActivityTool,
  getInsightsOverviewTool,
  listCampaignsTool,
  getCampaignTool,
  startCampaignTool,
  pauseCampaignTool,
  createLookalikeCampaignTool,
  listLeadsTool,
  getLeadTool,
  addLeadTool,
  addLeadsBatchTool,
  updateLeadTool,
  updateLeadsBatchTool,
  deleteLeadsBatchTool,
  sendMessageTool,
  lookupProfileTool,
  searchLinkedinTool,
];

export const toolByName: ReadonlyMap<string, Tool> = new Map(tools.map((t) => [t.name, t]));

/**
 * Everything the dashboard may call: the public tools and the operator's. The operator tools
 * are kept out of `tools`, so REST, MCP and the generated docs never see them.
 */
export const dashboardTools: readonly Tool[] = [...tools, ...operatorTools];
