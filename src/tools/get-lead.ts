import { z } from 'zod';
import { getLead, LeadDetail } from '../core/leads/lead.js';
import { defineTool } from './define.js';
import { CampaignId, LeadId } from './params.js';

export const getLeadTool = defineTool({
  name: 'get_lead',
  title: 'Get lead',
  description: 'Gets one lead of a campaign as stored (no live refresh), with headline, work experience and outreach flags. Free.',
  input: z.strictObject({ campaignId: CampaignId, leadId: LeadId }),
  output: LeadDetail,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/campaigns/:campaignId/leads/:leadId' },
  handler: (ctx, input) => getLead(ctx, input.campaignId, input.leadId),
});
