import { z } from 'zod';
import { Account, listAccounts } from '../core/accounts/list.js';
import { Cursor, Limit } from '../core/pagination.js';
import { defineTool } from './define.js';

export const listAccountsTool = defineTool({
  name: 'list_accounts',
  title: 'List connected accounts',
  description: "Lists the connected network accounts with status and today's send counters. Use an account id for lookup, search and send. Free.",
  input: z.strictObject({ limit: Limit, cursor: Cursor.optional() }),
  output: z.object({ accounts: z.array(Account), nextCursor: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/accounts' },
  handler: (ctx, input, caller) => listAccounts(ctx, caller.workspace.cursorSecret, { limit: input.limit, cursor: input.cursor }),
});
