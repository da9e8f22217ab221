import { z } from 'zod';
import { draftQueues } from '../../core/drafts/list.js';
import { defineOperatorTool } from '../define.js';

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
