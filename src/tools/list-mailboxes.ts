import { z } from 'zod';
import { listMailboxes, Mailbox } from '../core/mailboxes/mailbox.js';
import { Cursor, Limit } from '../core/pagination.js';
import { defineTool } from './define.js';

export const listMailboxesTool = defineTool({
  name: 'list_mailboxes',
  title: 'List mailboxes',
  description:
    "Lists the email mailboxes that send a campaign's email steps, with status, warm-up and today's count against the daily limit. Passwords are never shown, only the environment variables that hold them. Free.",
  input: z.strictObject({ limit: Limit, cursor: Cursor.optional() }),
  output: z.object({ mailboxes: z.array(Mailbox), nextCursor: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolset: 'manage',
  http: { method: 'GET', path: '/mailboxes' },
  handler: (ctx, input, caller) => listMailboxes(ctx, caller.workspace.cursorSecret, { limit: input.limit, cursor: input.cursor }),
});
