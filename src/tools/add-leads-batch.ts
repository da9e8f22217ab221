import { z } from 'zod';
import { addLeadsBatch, AddLeadsBatchResult, KEEPS_ADD_KEY } from '../core/leads/add.js';
import { LeadFields, NETWORK_URL_DESCRIPTION } from '../core/leads/fields.js';
import { defineTool, Reply } from './define.js';
import { CampaignId } from './params.js';

const BatchLead = z.strictObject({
  // Optional and unchecked here: a missing or bad URL fails only its own item.
  networkUrl: z.string().optional().describe(NETWORK_URL_DESCRIPTION),
  ...LeadFields,
});

export const addLeadsBatchTool = defineTool({
  name: 'add_leads_batch',
  title: 'Add leads (batch)',
  description:
    'Adds up to 100 LinkedIn profiles to a campaign, with a status per item. 1 credit per created lead; duplicates, excluded and invalid items are free.',
  input: z.strictObject({
    campaignId: CampaignId,
    leads: z.array(BatchLead).min(1).max(100).describe('1 to 100 leads; each takes the same fields as add_lead.'),
  }),
  output: AddLeadsBatchResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  batchItems: 'leads',
  rateLimit: 'leads_batch_add',
  http: { method: 'POST', path: '/campaigns/:campaignId/leads/batch' },
  idempotent: true,
  keepKey: (result) => !(result instanceof Reply) && result.results.some((r) => KEEPS_ADD_KEY.has(r.status)),
  sameArgumentsAs: { tool: 'add_lead', fields: ['leads'] },
  handler: (ctx, { campaignId, leads }, caller) => addLeadsBatch(ctx, campaignId, leads, caller.progress),
});
