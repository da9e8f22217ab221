import type { Tool } from './define.js';
import { addLeadTool } from './add-lead.js';
import { addLeadsBatchTool } from './add-leads-batch.js';
import { deleteLeadsBatchTool } from './delete-leads-batch.js';
import { getCampaignTool } from './get-campaign.js';
import { getCreditsTool } from './get-credits.js';
import { listAccountsTool } from './list-accounts.js';
import { listCampaignsTool } from './list-campaigns.js';
import { updateLeadTool } from './update-lead.js';
import { updateLeadsBatchTool } from './update-leads-batch.js';
import { lookupProfileTool } from './lookup-profile.js';
import { pauseCampaignTool } from './pause-campaign.js';
import { searchLinkedinTool } from './search-linkedin.js';
import { sendMessageTool } from './send-message.js';
import { startCampaignTool } from './start-campaign.js';

/** The registry: every tool that works, in the order clients list them. */
export const tools: readonly Tool[] = [
  getCreditsTool,
  listAccountsTool,
  listCampaignsTool,
  getCampaignTool,
  addLeadTool,
  addLeadsBatchTool,
  updateLeadTool,
  updateLeadsBatchTool,
  deleteLeadsBatchTool,
  startCampaignTool,
  pauseCampaignTool,
  sendMessageTool,
  lookupProfileTool,
  searchLinkedinTool,
];

export const toolByName: ReadonlyMap<string, Tool> = new Map(tools.map((t) => [t.name, t]));
