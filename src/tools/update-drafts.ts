import { z } from 'zod';
import { DECISIONS, sendsToConfirm, type SendsToConfirm, UpdateDraftsResult, updateDrafts } from '../core/drafts/update.js';
import type { Ctx } from '../core/context.js';
import { defineTool } from './define.js';

const DraftUpdate = z.strictObject({
  // Any string here: a malformed id fails only its own item.
  id: z.string().describe('Draft id, from list_drafts.'),
  text: z.string().optional().describe('New text: note ≤300, message or InMail ≤8000 characters; no {{.'),
  subject: z.string().optional().describe('New InMail subject, ≤200 characters.'),
  // Any string here (the listing still names the two): another status fails only its own item.
  status: z
    .string()
    .meta({ enum: [...DECISIONS] })
    .optional()
    .describe("approved: the engine sends it; rejected: ends the lead's sequence."),
  revision: z.number().int().min(1).describe('The revision you read; if the draft changed since, a conflict (nothing written).').optional(),
});

export const UpdateDraftsInput = z.strictObject({ drafts: z.array(DraftUpdate).min(1).max(100).describe('1 to 100 drafts.') });
export type UpdateDraftsInput = z.output<typeof UpdateDraftsInput>;

export const updateDraftsTool = defineTool({
  name: 'update_drafts',
  title: 'Edit, approve or reject drafts',
  description:
    'Edits, approves or rejects 1-100 drafts, with a status per item. Pass revision: a changed draft is a conflict with its current words. The engine sends approved drafts. Free.',
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

const KIND_WORDS = [
  ['message', 'message', 'messages'],
  ['inmail', 'InMail', 'InMails'],
  ['email', 'email', 'emails'],
  ['invite', 'invitation', 'invitations'],
] as const;

/** "2 messages and 1 invitation": each kind approved, named as what it is. */
export function whatIsSent(kinds: SendsToConfirm['kinds']): string {
  const parts = KIND_WORDS.filter(([kind]) => (kinds[kind] ?? 0) > 0).map(([kind, one, many]) => `${kinds[kind]} ${kinds[kind] === 1 ? one : many}`);
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** The confirmation's words for what an approval would send; null when it sends nothing. */
export function confirmationMessage(sends: SendsToConfirm): string | null {
  if (sends.count === 0) return null;
  const from = (a: SendsToConfirm['accounts'][number]) => a.name ?? "the campaign's account";
  const [only] = sends.accounts;
  if (sends.accounts.length === 1 && only) return `Send ${whatIsSent(sends.kinds)} from ${from(only)}?`;
  return `Send ${whatIsSent(sends.kinds)}: ${sends.accounts.map((a) => `${a.count} from ${from(a)}`).join(', ')}?`;
}
