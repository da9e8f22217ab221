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
import { createCampaignTool } from './create-campaign.js';
import { updateCampaignTool } from './update-campaign.js';
import { listAgentsTool } from './list-agents.js';
import { getAgentTool } from './get-agent.js';
import { createAgentTool } from './create-agent.js';
import { updateAgentTool } from './update-agent.js';
import { previewAgentTool } from './preview-agent.js';
import { getAgentStatsTool } from './get-agent-stats.js';
import { connectAccountTool } from './connect-account.js';
import { updateAccountTool } from './update-account.js';
import { listDraftsTool } from './list-drafts.js';
import { listMailboxesTool } from './list-mailboxes.js';
import { connectMailboxTool } from './connect-mailbox.js';
import { updateMailboxTool } from './update-mailbox.js';
import { updateDraftsTool } from './update-drafts.js';
import { getConversationTool, listConversationsTool, suggestTagTool } from './conversations.js';
import { listAuditEventsTool } from './list-audit-events.js';

/** The spec's 19 tools, in the order of its tool mapping: the default MCP listing. */
export const defaultTools: readonly Tool[] = [
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

/** The `manage` toolset: workspace management (campaigns, agents and their stats, accounts, mailboxes). */
export const manageTools: readonly Tool[] = [
  createCampaignTool,
  updateCampaignTool,
  listAgentsTool,
  getAgentTool,
  createAgentTool,
  updateAgentTool,
  previewAgentTool,
  getAgentStatsTool,
  connectAccountTool,
  updateAccountTool,
  listMailboxesTool,
  connectMailboxTool,
  updateMailboxTool,
];

/** The `drafts` toolset (which `manage` includes): reviewing what the engine will send. */
export const draftTools: readonly Tool[] = [listDraftsTool, updateDraftsTool];

/**
 * The `triage` toolset: reading the inbox and suggesting tags for replies. Asked for on its own
 * (`manage` does not include it): its tools read message text, and the manage listing keeps its token budget.
 */
export const triageTools: readonly Tool[] = [listConversationsTool, getConversationTool, suggestTagTool];

/** The `audit` toolset: the trail of every write, who made it and when. */
export const auditTools: readonly Tool[] = [listAuditEventsTool];

/** The registry: every tool, each a REST route. MCP lists toolset tools only on request. */
export const tools: readonly Tool[] = [...defaultTools, ...manageTools, ...draftTools, ...triageTools, ...auditTools];

export const toolByName: ReadonlyMap<string, Tool> = new Map(tools.map((t) => [t.name, t]));

/**
 * Everything the dashboard may call: the public tools and the operator's. The operator tools
 * are kept out of `tools`, so REST, MCP and the generated docs never see them.
 */
export const dashboardTools: readonly Tool[] = [...tools, ...operatorTools];
