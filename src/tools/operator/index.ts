import type { Tool } from '../define.js';
import { previewStartCampaignTool } from './campaigns.js';
import { getActivitySeriesTool, markConversationDoneTool, replyConversationTool } from './conversations.js';
import { grantCreditsTool } from './credits.js';
import { approveMatchingDraftsTool, listDraftQueuesTool, previewApproveDraftsTool } from './drafts.js';
import { addExclusionsTool, importExclusionsTool, listExclusionsTool, removeExclusionsTool } from './exclusions.js';
import { getImportTool, previewImportTool, startImportTool } from './imports.js';
import { createApiKeyTool, listApiKeysTool, revokeApiKeyTool } from './keys.js';
import { searchLeadsTool } from './leads.js';
import { addMemberTool, disableMemberTool, enableMemberTool, listMembersTool, updateMemberTool } from './members.js';
import { getAgentShapeTool, getLeadSequenceTool, getSkipReasonsTool, previewAgentDraftTool } from './sequences.js';
import {
  addWebhookEndpointTool,
  listWebhookDeliveriesTool,
  listWebhookEndpointsTool,
  redeliverWebhookDeliveryTool,
  removeWebhookEndpointTool,
  rotateWebhookSecretTool,
  setWebhookEndpointEnabledTool,
} from './webhooks.js';

/**
 * What only the operator may do (dashboard and CLI): never in the REST or MCP registry, and
 * refused by the pipeline to any key caller.
 */
export const operatorTools: readonly Tool[] = [
  getLeadSequenceTool,
  listApiKeysTool,
  createApiKeyTool,
  revokeApiKeyTool,
  listWebhookEndpointsTool,
  addWebhookEndpointTool,
  removeWebhookEndpointTool,
  setWebhookEndpointEnabledTool,
  rotateWebhookSecretTool,
  listWebhookDeliveriesTool,
  redeliverWebhookDeliveryTool,
  replyConversationTool,
  markConversationDoneTool,
  getActivitySeriesTool,
  listExclusionsTool,
  addExclusionsTool,
  removeExclusionsTool,
  importExclusionsTool,
  previewImportTool,
  startImportTool,
  getImportTool,
  searchLeadsTool,
  grantCreditsTool,
  getSkipReasonsTool,
  getAgentShapeTool,
  previewAgentDraftTool,
  listDraftQueuesTool,
  previewApproveDraftsTool,
  approveMatchingDraftsTool,
  previewStartCampaignTool,
  listMembersTool,
  addMemberTool,
  updateMemberTool,
  disableMemberTool,
  enableMemberTool,
];
