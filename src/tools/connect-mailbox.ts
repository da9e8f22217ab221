import { connectMailbox, ConnectMailboxInput, ConnectMailboxResult } from '../core/mailboxes/mailbox.js';
import { defineTool } from './define.js';

/** Open-world: it logs in to the mailbox's SMTP (and IMAP) server before it answers. */
export const connectMailboxTool = defineTool({
  name: 'connect_mailbox',
  title: 'Connect mailbox',
  description:
    'Adds an email mailbox (SMTP to send, optionally IMAP to read replies and bounces). Passwords are read from the environment variables you name; the logins are checked first, and a refused one is mailbox_login_failed naming the server. Free.',
  input: ConnectMailboxInput,
  output: ConnectMailboxResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  rateLimit: 'manage',
  toolset: 'manage',
  http: { method: 'POST', path: '/mailboxes' },
  idempotent: true,
  errors: ['mailbox_login_failed', 'conflict'],
  handler: (ctx, input) => connectMailbox(ctx, input),
});
