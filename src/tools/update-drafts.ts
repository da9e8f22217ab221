import { z } from 'zod';
import { sendsToConfirm, type SendsToConfirm, UpdateDraftsResult, updateDrafts } from '../core/drafts/update.js';
import type { Ctx } from '../core/context.js';
import { defineTool } from './define.js';

const DraftUpdate = z.strictObject({
  // Any string here: a malformed id fails only its own item.
  id: z.string().describe('Draft id, from list_drafts.'),
  text: z.string().optional().describe('New text: note ≤300, message or InMail ≤8000 characters; no {{.'),
  subject: z.string().optional().describe('New InMail subject, ≤200 characters.'),
  status: z.enum(['approved', 'rejected']).optional().describe("approved: the engine sends it; rejected: ends the lead's sequence."),
});

export const UpdateDraftsInput = z.strictObject({ drafts: z.array(DraftUpdate).min(1).max(100).describe('1 to 100 drafts.') });
export type UpdateDraftsInput = z.output<typeof UpdateDraftsInput>;

export const updateDraftsTool = defineTool({
  name: 'update_drafts',
  title: 'Edit, approve or reject drafts',
  description: 'Edits, approves or rejects 1-100 drafts, with a status per item. The engine sends approved drafts; a sent or rejected one is a conflict. Free.',
  input: UpdateDraftsInput,
  output: UpdateDraftsResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  batchItems: 'drafts',
  rateLimit: 'manage',
  toolset: 'drafts',
  http: { method: 'POST', path: '/drafts/batch-update' },
  confirm: (ctx, input) => approvalConfirmation(ctx, input),
  handler: (ctx, input) => updateDrafts(ctx, input.drafts),
});

/**
 * The question to ask before `update_drafts` runs over MCP, when the client can ask its user:
 * "Send N messages from ACCOUNT?". Null when the call approves nothing new (edits, rejections,
 * drafts already approved), so nothing needs asking. REST never asks: a key holder is trusted.
 */
export function approvalConfirmation(ctx: Ctx, input: UpdateDraftsInput): string | null {
  return confirmationMessage(sendsToConfirm(ctx, input.drafts));
}

const messages = (n: number) => `${n} message${n === 1 ? '' : 's'}`;

/** The confirmation's words for what an approval would send; null when it sends nothing. */
export function confirmationMessage(sends: SendsToConfirm): string | null {
  if (sends.count === 0) return null;
  const from = (a: SendsToConfirm['accounts'][number]) => a.name ?? "the campaign's account";
  const [only] = sends.accounts;
  if (sends.accounts.length === 1 && only) return `Send ${messages(sends.count)} from ${from(only)}?`;
  return `Send ${messages(sends.count)}: ${sends.accounts.map((a) => `${a.count} from ${from(a)}`).join(', ')}?`;
}
