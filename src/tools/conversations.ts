import { z } from 'zod';
import { Conversation, CONVERSATION_FILTERS, ConversationList, getConversation, listConversations } from '../core/conversations/threads.js';
import { LeadTag } from '../core/leads/enums.js';
import { Cursor, Limit } from '../core/pagination.js';
import { SuggestTagInput, SuggestTagResult, suggestTagByAssistant } from '../core/triage/suggest.js';
import { defineTool } from './define.js';
import { CampaignId, LeadId } from './params.js';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/*
 * The `triage` toolset: the inbox as the user's assistant reads it, and the assistant's
 * suggested tag. Listed over MCP only when asked for (or with `manage`), like `drafts`.
 */

export const listConversationsTool = defineTool({
  name: 'list_conversations',
  title: 'List conversations',
  description:
    'The inbox: threads newest reply first, filtered to those needing a reply, handed off, or all, and by suggested tag; each with its tag and triage suggestion.',
  input: z.strictObject({
    filter: z.enum(CONVERSATION_FILTERS).default('all'),
    campaignId: CampaignId.optional().describe('Only the threads of this campaign.'),
    suggestedTag: LeadTag.optional().describe("Only threads whose newest reply's suggested tag is this one."),
    limit: Limit,
    cursor: Cursor.optional(),
  }),
  output: ConversationList,
  annotations: READ,
  toolset: 'triage',
  http: { method: 'GET', path: '/conversations' },
  handler: (ctx, input, caller) => listConversations(ctx, caller.workspace.cursorSecret, input),
});

export const getConversationTool = defineTool({
  name: 'get_conversation',
  title: 'Get conversation',
  description: 'One lead and every message to and from it, oldest first, in full, with the triage suggestion.',
  input: z.strictObject({ leadId: LeadId }),
  output: Conversation,
  annotations: READ,
  toolset: 'triage',
  http: { method: 'GET', path: '/conversations/:leadId' },
  handler: (ctx, input) => getConversation(ctx, input.leadId),
});

export const suggestTagTool = defineTool({
  name: 'suggest_tag',
  title: 'Suggest tag',
  description:
    "Stores your suggested tag for a thread's newest reply (shown in the inbox to confirm with one key). Tags nothing: update_lead sets the tag. Free.",
  input: SuggestTagInput.extend({ leadId: LeadId }),
  output: SuggestTagResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolset: 'triage',
  http: { method: 'POST', path: '/conversations/:leadId/suggested-tag' },
  handler: (ctx, input) => suggestTagByAssistant(ctx, input),
});
