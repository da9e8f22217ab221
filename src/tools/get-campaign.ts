import { z } from 'zod';
import { Campaign, getCampaign } from '../core/campaigns/campaign.js';
import { defineTool } from './define.js';
import { CampaignId } from './params.js';

export const getCampaignTool = defineTool({
  name: 'get_campaign',
  title: 'Get campaign',
  description: 'Gets one campaign with its status, agent, lead count and stats (acceptance and reply rates in percent). Free.',
  input: z.strictObject({ campaignId: CampaignId }),
  output: Campaign,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/campaigns/:campaignId' },
  handler: (ctx, input) => getCampaign(ctx, input.campaignId),
});
