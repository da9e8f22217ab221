import { z } from 'zod';
import { addLead, AddLeadResult } from '../core/leads/add.js';
import { LeadFields, NETWORK_URL_DESCRIPTION } from '../core/leads/fields.js';
import { normalizeProfileUrl, PROFILE_URL_HINT } from '../core/leads/url.js';
import { defineTool } from './define.js';
import { CampaignId } from './params.js';

export const addLeadTool = defineTool({
  name: 'add_lead',
  title: 'Add lead',
  description:
    'Adds one LinkedIn profile to a campaign. Costs 1 credit when created; a profile already in the campaign (duplicate) or on the exclusion list (excluded) is free.',
  input: z.strictObject({
    campaignId: CampaignId,
    networkUrl: z
      .string()
      .refine((v) => normalizeProfileUrl(v) !== null, `must be ${PROFILE_URL_HINT}`)
      .describe(NETWORK_URL_DESCRIPTION),
    ...LeadFields,
  }),
  output: AddLeadResult,
  errors: ['insufficient_credits'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateLimit: 'leads_add',
  http: { method: 'POST', path: '/campaigns/:campaignId/leads' },
  idempotent: true,
  handler: (ctx, { campaignId, ...lead }) => addLead(ctx, campaignId, lead),
});
