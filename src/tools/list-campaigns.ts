import { z } from 'zod';
import { Campaign, CampaignStatus, listCampaigns } from '../core/campaigns/campaign.js';
import { Cursor, Limit } from '../core/pagination.js';
import { defineTool } from './define.js';

export const listCampaignsTool = defineTool({
  name: 'list_campaigns',
  title: 'List campaigns',
  description: 'Lists campaigns, newest first, with status, lead count and outreach stats. Optionally filter by status. Free.',
  input: z.strictObject({
    status: CampaignStatus.optional().describe('Only campaigns in this status.'),
    limit: Limit,
    cursor: Cursor.optional(),
  }),
  output: z.object({ campaigns: z.array(Campaign), nextCursor: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/campaigns' },
  handler: (ctx, input, caller) => listCampaigns(ctx, caller.workspace.cursorSecret, { status: input.status, limit: input.limit, cursor: input.cursor }),
});
