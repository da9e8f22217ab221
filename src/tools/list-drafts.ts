import { z } from 'zod';
import { listDrafts } from '../core/drafts/list.js';
import { DraftStatus, ListedDraft } from '../core/drafts/view.js';
import { Cursor, Limit } from '../core/pagination.js';
import { defineTool } from './define.js';
import { pathId } from './params.js';

export const listDraftsTool = defineTool({
  name: 'list_drafts',
  title: 'List drafts',
  description: 'Lists drafts (notes and messages to approve), oldest first, each with its lead. Free.',
  input: z.strictObject({
    campaignId: pathId('campaign').optional().describe('Only this campaign.'),
    status: DraftStatus.optional().describe('Only this status, e.g. pending.'),
    limit: Limit,
    cursor: Cursor.optional(),
  }),
  output: z.object({ drafts: z.array(ListedDraft), nextCursor: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolset: 'drafts',
  // An unknown campaignId (a query parameter here) is a 404, as on the campaign's own routes.
  errors: ['not_found'],
  http: { method: 'GET', path: '/drafts' },
  handler: (ctx, input, caller) => listDrafts(ctx, caller.workspace.cursorSecret, input),
});
