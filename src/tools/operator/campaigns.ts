import { z } from 'zod';
import { requireCampaignRow } from '../../core/campaigns/campaign.js';
import { SendersPreview, sendersPreview } from '../../core/sequences/senders.js';
import { defineOperatorTool } from '../define.js';
import { CampaignId } from '../params.js';

/**
 * The dashboard's Start confirmation names the leads per sender, from the same read as
 * start_campaign's own question over MCP; the public API has no need of it.
 */
export const previewStartCampaignTool = defineOperatorTool({
  name: 'preview_start_campaign',
  title: 'Preview a campaign’s start',
  description:
    "Who would send to a campaign's leads: each sender with the leads already pinned to it, and the leads not yet assigned, which go at their first step to the shared sender with the most invitations left that day.",
  input: z.strictObject({ campaignId: CampaignId }),
  output: SendersPreview,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => {
    requireCampaignRow(ctx, input.campaignId);
    return sendersPreview(ctx, input.campaignId);
  },
});
