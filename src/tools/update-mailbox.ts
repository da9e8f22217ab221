import { z } from 'zod';
import { Mailbox, updateMailbox, UpdateMailboxFields } from '../core/mailboxes/mailbox.js';
import { defineTool } from './define.js';
import { MailboxId } from './params.js';

export const updateMailboxTool = defineTool({
  name: 'update_mailbox',
  title: 'Update mailbox',
  description:
    'Renames a mailbox, changes its servers (logins checked first), its daily limit, warm-up, working hours or spacing, or pauses it with active false. Limits apply from the next email. Free.',
  input: z.strictObject({ mailboxId: MailboxId, ...UpdateMailboxFields }),
  output: Mailbox,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  rateLimit: 'manage',
  toolset: 'manage',
  http: { method: 'PATCH', path: '/mailboxes/:mailboxId' },
  errors: ['mailbox_login_failed'],
  sameArgumentsAs: { tool: 'connect_mailbox', fields: ['name', 'smtp', 'imap', 'dailyLimit', 'timeZone', 'workingHours', 'spacingSeconds'] },
  handler: (ctx, { mailboxId, ...input }) => updateMailbox(ctx, mailboxId, input),
});
