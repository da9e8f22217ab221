import { z } from 'zod';
import { LeadTag } from '../core/leads/enums.js';
import { requireTagOrExcluded, updateLeadsBatch, UpdateLeadsBatchResult } from '../core/leads/update.js';
import { defineTool, Reply } from './define.js';
import { CampaignId } from './params.js';

const BatchUpdate = z
  .strictObject({
    // Any string here: a malformed id fails only its own item.
    leadId: z.string().describe('Lead id; the lead_ prefix is added when missing.'),
    tag: LeadTag.nullable().optional().describe('The new tag, or null to clear it.'),
    excluded: z.boolean().optional().describe('true excludes the profile workspace-wide; false takes the lead back into outreach.'),
  })
  .superRefine(requireTagOrExcluded);

export const updateLeadsBatchTool = defineTool({
  name: 'update_leads_batch',
  title: 'Tag or exclude leads (batch)',
  description:
    'Tags and/or excludes up to 100 leads of a campaign, with a status per item. Not interested and Wrong person exclude at once, in every campaign. Free.',
  input: z.strictObject({
    campaignId: CampaignId,
    updates: z
      .array(BatchUpdate)
      .min(1)
      .max(100)
      .describe('1 to 100 updates, each a leadId (the lead_ prefix may be left out) with tag and/or excluded as in update_lead.'),
  }),
  output: UpdateLeadsBatchResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  batchItems: 'updates',
  rateLimit: 'leads_batch_update',
  http: { method: 'POST', path: '/campaigns/:campaignId/leads/batch-update' },
  idempotent: true,
  keepKey: (result) => !(result instanceof Reply) && result.summary.updated > 0,
  sameArgumentsAs: { tool: 'update_lead', fields: ['updates'] },
  handler: (ctx, { campaignId, updates }) => updateLeadsBatch(ctx, campaignId, updates),
});
