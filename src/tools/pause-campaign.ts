import { z } from 'zod';
import { PauseCampaignResult, pauseCampaign } from '../core/campaigns/lifecycle.js';
import { defineTool } from './define.js';
import { CampaignId } from './params.js';

/**
 * Hints: not destructive (resume with start_campaign); idempotent, because pausing a paused
 * campaign is a noop; closed-world, because pausing sends nothing to the network.
 */
export const pauseCampaignTool = defineTool({
  name: 'pause_campaign',
  title: 'Pause campaign',
  description: 'Pauses a running campaign at once: queued outreach stops and nothing more is sent until start_campaign. Free.',
  input: z.strictObject({ campaignId: CampaignId }),
  output: PauseCampaignResult,
  errors: ['conflict'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateLimit: 'campaign_start_pause',
  http: { method: 'POST', path: '/campaigns/:campaignId/pause' },
  handler: (ctx, input) => pauseCampaign(ctx, input.campaignId),
});
