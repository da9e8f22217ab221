import { z } from 'zod';
import { Campaign } from '../core/campaigns/campaign.js';
import { updateCampaign, UpdateCampaignFields } from '../core/campaigns/manage.js';
import { defineTool } from './define.js';
import { CampaignId } from './params.js';

/** Idempotent: the same rename or assignment twice leaves the same campaign. */
export const updateCampaignTool = defineTool({
  name: 'update_campaign',
  title: 'Update campaign',
  description:
    'Renames a campaign, assigns its agent (null clears it) and/or sets its sending accounts. Changing the agent or senders of a running campaign needs a pause first. Free.',
  input: z.strictObject({ campaignId: CampaignId, ...UpdateCampaignFields }),
  output: Campaign,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateLimit: 'manage',
  toolset: 'manage',
  errors: ['conflict'],
  http: { method: 'PATCH', path: '/campaigns/:campaignId' },
  sameArgumentsAs: { tool: 'create_campaign', fields: ['name', 'assignedTemplateId', 'senderAccountIds', 'mailboxIds'] },
  handler: (ctx, { campaignId, ...input }) => updateCampaign(ctx, campaignId, input),
});
