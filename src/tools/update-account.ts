import { z } from 'zod';
import { Account } from '../core/accounts/list.js';
import { updateAccount, UpdateAccountFields } from '../core/accounts/manage.js';
import { defineTool } from './define.js';
import { AccountId } from './params.js';

export const updateAccountTool = defineTool({
  name: 'update_account',
  title: 'Update account',
  description:
    'Renames an account, sets its daily connection-request and message limits (used from the next send), ends or starts its warm-up, or pauses all its sending with active false. Free.',
  input: z.strictObject({ accountId: AccountId, ...UpdateAccountFields }),
  output: Account,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateLimit: 'manage',
  toolset: 'manage',
  http: { method: 'PATCH', path: '/accounts/:accountId' },
  sameArgumentsAs: { tool: 'connect_account', fields: ['name', 'connectionRequestLimit', 'messageLimit', 'profileVisitLimit', 'postReactionLimit'] },
  handler: (ctx, { accountId, ...input }) => updateAccount(ctx, accountId, input),
});
