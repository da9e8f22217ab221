import { z } from 'zod';
import { approveMatchingDrafts, previewApproveDrafts } from '../../core/drafts/approve-all.js';
import { draftQueues } from '../../core/drafts/list.js';
import { defineOperatorTool } from '../define.js';
import { pathId } from '../params.js';

/** The dashboard's navigation counts: which campaigns have drafts waiting, and how many. */
export const listDraftQueuesTool = defineOperatorTool({
  name: 'list_draft_queues',
  title: 'Draft queues',
  description: 'The campaigns with drafts awaiting approval, with how many each, and the total.',
  input: z.strictObject({}),
  output: z.object({ queues: z.array(z.object({ campaignId: z.string(), name: z.string(), pending: z.number().int() })), pending: z.number().int() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx) => draftQueues(ctx),
});

// Emails appear once a campaign has an email draft to count.
const Kinds = z.object({ invite: z.number().int(), message: z.number().int(), inmail: z.number().int(), email: z.number().int().optional() });

/** "Approve all N matching", step one: what it would approve, per sender and kind, and a token for that snapshot. */
export const previewApproveDraftsTool = defineOperatorTool({
  name: 'preview_approve_drafts',
  title: 'Preview approving all pending drafts',
  description:
    'Counts the pending drafts of a campaign (or of all campaigns) per sender account, most first, and per kind, and returns a token for approve_matching_drafts that binds this snapshot.',
  input: z.strictObject({ campaignId: pathId('campaign').optional().describe('Only this campaign.') }),
  output: z.object({
    count: z.number().int(),
    accounts: z.array(z.object({ accountId: z.string().nullable(), name: z.string().nullable(), count: z.number().int() })),
    kinds: Kinds,
    token: z.string(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  errors: ['not_found'],
  handler: (ctx, input, caller) => previewApproveDrafts(ctx, caller.workspace.cursorSecret, input),
});

/** "Approve all N matching", step two: approves exactly the drafts the preview counted that have not changed since. */
export const approveMatchingDraftsTool = defineOperatorTool({
  name: 'approve_matching_drafts',
  title: 'Approve all pending drafts previewed',
  description:
    'Approves the pending drafts counted by preview_approve_drafts (its token) that have not changed since; drafts made or edited after the preview stay pending and are counted in leftPending.',
  input: z.strictObject({
    campaignId: pathId('campaign').optional().describe('The same campaign as the preview.'),
    token: z.string().min(1).max(512).describe('The token preview_approve_drafts returned.'),
  }),
  output: z.object({ approved: z.number().int(), leftPending: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  errors: ['not_found'],
  handler: (ctx, input, caller) => approveMatchingDrafts(ctx, caller.workspace.cursorSecret, input),
});
