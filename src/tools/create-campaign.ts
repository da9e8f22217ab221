import { Campaign } from '../core/campaigns/campaign.js';
import { createCampaign, CreateCampaignInput } from '../core/campaigns/manage.js';
import { defineTool } from './define.js';

export const createCampaignTool = defineTool({
  name: 'create_campaign',
  title: 'Create campaign',
  description:
    'Creates an empty campaign (READY_TO_SEND, no leads), optionally with the agent that runs it and the accounts that send. Add leads, then start it. Free.',
  input: CreateCampaignInput,
  output: Campaign,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateLimit: 'manage',
  toolset: 'manage',
  http: { method: 'POST', path: '/campaigns' },
  createsCampaign: true,
  idempotent: true,
  handler: (ctx, input) => createCampaign(ctx, input),
});
