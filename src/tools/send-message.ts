import { MESSAGE_TEXT_MAX } from '../core/outreach/limits.js';
import { z } from 'zod';
import { SendMessageResult, sendMessage, sendQuestion } from '../core/inbox/send.js';
import { defineTool } from './define.js';
import { pathId } from './params.js';

/**
 * Hints: not destructive (it adds a message, changes no stored data irreversibly); not
 * idempotent, since a repeat without idempotencyKey sends a second message; open-world.
 */
export const sendMessageTool = defineTool({
  name: 'send_message',
  title: 'Send message',
  description:
    "Sends a direct message to a campaign lead now, from the given account or the lead's default one. Replying to a conversation hands it from the agent to you. Free.",
  input: z.strictObject({
    campaignId: pathId('campaign').describe('The campaign the lead belongs to.'),
    leadId: pathId('lead').describe('The lead to message (lead_…).'),
    text: z
      .string()
      .min(1)
      .refine((t) => t.trim() !== '', 'must not be blank')
      .refine((t) => [...t].length <= MESSAGE_TEXT_MAX, `must be at most ${MESSAGE_TEXT_MAX} characters`)
      // maxLength, as JSON Schema counts it (code points), is the refine's rule; zod's own
      // max() would count UTF-16 units and refuse a shorter message full of emoji.
      .meta({ description: `The message, 1 to ${MESSAGE_TEXT_MAX} characters.`, maxLength: MESSAGE_TEXT_MAX }),
    accountId: pathId('account').optional().describe("Account to send from (list_accounts). Defaults to the lead's account, then the campaign agent's."),
  }),
  output: SendMessageResult,
  errors: ['not_found', 'account_disconnected', 'network_daily_quota', 'send_failed'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  rateLimit: 'inbox_message',
  http: { method: 'POST', path: '/inbox/messages' },
  idempotent: true,
  confirm: (ctx, input) => sendQuestion(ctx, input),
  handler: (ctx, input) => sendMessage(ctx, input),
});
