import { z } from 'zod';
import { deleteLeadsBatch, DeleteLeadsBatchResult, deleteQuestion } from '../core/leads/delete.js';
import { defineTool, Reply } from './define.js';
import { CampaignId } from './params.js';

export const deleteLeadsBatchTool = defineTool({
  name: 'delete_leads_batch',
  title: 'Delete leads (batch)',
  description: 'Permanently deletes up to 100 leads from a campaign, with a status per item. Irreversible; credits are not refunded. Free.',
  input: z.strictObject({
    campaignId: CampaignId,
    // Any strings here: a malformed id fails only its own item.
    leadIds: z.array(z.string()).min(1).max(100).describe('1 to 100 lead ids; the lead_ prefix is added when missing.'),
  }),
  output: DeleteLeadsBatchResult,
  errors: ['conflict'],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  batchItems: 'leadIds',
  rateLimit: 'leads_batch_delete',
  http: { method: 'POST', path: '/campaigns/:campaignId/leads/batch-delete' },
  idempotent: true,
  keepKey: (result) => !(result instanceof Reply) && result.summary.deleted > 0,
  confirm: (ctx, { campaignId, leadIds }) => deleteQuestion(ctx, campaignId, leadIds),
  handler: (ctx, { campaignId, leadIds }) => deleteLeadsBatch(ctx, campaignId, leadIds),
});
