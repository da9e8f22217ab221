import { z } from 'zod';
import { LeadTag } from '../core/leads/enums.js';
import { Lead } from '../core/leads/lead.js';
import { LeadSort, listLeads } from '../core/leads/list.js';
import { Cursor, Limit } from '../core/pagination.js';
import { defineTool } from './define.js';
import { CampaignId } from './params.js';

export const listLeadsTool = defineTool({
  name: 'list_leads',
  title: 'List leads',
  description:
    "Lists a campaign's leads, newest first. Filter by at most one of tag, replied, needsReply or excluded, and sort by createdAt, taggedAt (with tag), repliedAt (with replied) or lastInboundMessageAt. Free.",
  input: z.strictObject({
    campaignId: CampaignId,
    tag: LeadTag.optional().describe('Only leads with this tag.'),
    replied: z.boolean().optional().describe('Only leads that have (true) or have not (false) replied.'),
    needsReply: z.boolean().optional().describe('Only leads waiting (true) or not waiting (false) on a reply.'),
    excluded: z.literal(true).optional().describe('true: only leads excluded from outreach. false is not supported.'),
    sort: LeadSort.default('createdAt').describe(
      'Descending sort key (default createdAt). taggedAt needs tag; repliedAt needs replied; lastInboundMessageAt works with no filter or replied; needsReply and excluded take createdAt only. Leads without the field are left out.',
    ),
    limit: Limit,
    cursor: Cursor.optional().describe('nextCursor of the previous page, with the same filter and sort.'),
  }),
  output: z.object({ leads: z.array(Lead), nextCursor: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/campaigns/:campaignId/leads' },
  handler: (ctx, input, caller) => listLeads(ctx, caller.workspace.cursorSecret, input),
});
