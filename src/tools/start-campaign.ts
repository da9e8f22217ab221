import { z } from 'zod';
import { StartCampaignResult, startCampaign, startQuestion } from '../core/campaigns/lifecycle.js';
import { defineTool } from './define.js';
import { CampaignId } from './params.js';

/**
 * Hints: not destructive (it starts outreach, deletes nothing); idempotent, because starting a
 * running campaign is a noop; open-world, because it starts traffic on the external network.
 */
export const startCampaignTool = defineTool({
  name: 'start_campaign',
  title: 'Start campaign',
  description:
    'Starts or resumes outreach (connection requests, messages) for a campaign that has an agent and a connected account. A running campaign is a noop. Free.',
  input: z.strictObject({ campaignId: CampaignId }),
  output: StartCampaignResult,
  errors: ['account_disconnected', 'conflict'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  rateLimit: 'campaign_start_pause',
  http: { method: 'POST', path: '/campaigns/:campaignId/start' },
  confirm: (ctx, input) => startQuestion(ctx, input.campaignId),
  handler: (ctx, input) => startCampaign(ctx, input.campaignId),
});
