import { z } from 'zod';
import { Lead } from '../../core/leads/lead.js';
import { SEARCH_LIMIT_MAX, SEARCH_QUERY_MAX, searchLeads } from '../../core/leads/search.js';
import { defineOperatorTool } from '../define.js';
import { CampaignId } from '../params.js';

export const searchLeadsTool = defineOperatorTool({
  name: 'search_leads',
  title: 'Search leads',
  description:
    "Finds a campaign's leads whose name, last name or company starts with the query (case-insensitive), or by profile URL or its slug. Ordered by name; more: true when there are more matches than limit.",
  input: z.strictObject({
    campaignId: CampaignId,
    query: z.string().min(1).max(SEARCH_QUERY_MAX).describe('The start of a name or company, or a profile URL.'),
    limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).default(20).describe(`1..${SEARCH_LIMIT_MAX} (default 20).`),
  }),
  output: z.object({ leads: z.array(Lead), more: z.boolean() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => searchLeads(ctx, input),
});
