import { z } from 'zod';
import { LeadTag } from '../core/leads/enums.js';
import { requireTagOrExcluded, updateLead, UpdateLeadResult } from '../core/leads/update.js';
import { defineTool } from './define.js';
import { CampaignId, LeadId } from './params.js';

export const updateLeadTool = defineTool({
  name: 'update_lead',
  title: 'Tag or exclude lead',
  description:
    'Sets or clears a lead tag and/or excludes it from outreach in every campaign. Not interested and Wrong person exclude the lead, after a polite close if it awaits our reply. Free.',
  input: z
    .strictObject({
      campaignId: CampaignId,
      leadId: LeadId,
      tag: LeadTag.nullable().optional().describe('The new tag, or null to clear it.'),
      excluded: z.boolean().optional().describe('true excludes the profile workspace-wide; false takes this lead back into outreach.'),
    })
    .superRefine(requireTagOrExcluded),
  output: UpdateLeadResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateLimit: 'lead_update',
  http: { method: 'PATCH', path: '/campaigns/:campaignId/leads/:leadId' },
  handler: (ctx, { campaignId, leadId, ...change }) => updateLead(ctx, campaignId, leadId, change),
});
