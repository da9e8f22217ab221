import { connectAccount, ConnectAccountInput, ConnectAccountResult } from '../core/accounts/manage.js';
import { defineTool } from './define.js';

/** Open-world: in production it starts a sign-in at the network provider. */
export const connectAccountTool = defineTool({
  name: 'connect_account',
  title: 'Connect account',
  description:
    'Adds a LinkedIn account with its daily limits. In production it returns connectUrl, the page where the person signs in; the account is connected once they finish. Free.',
  input: ConnectAccountInput,
  output: ConnectAccountResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  rateLimit: 'manage',
  toolset: 'manage',
  http: { method: 'POST', path: '/accounts' },
  idempotent: true,
  handler: (ctx, input) => connectAccount(ctx, input),
});
