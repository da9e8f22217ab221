import { GrantCreditsInput, GrantCreditsResult, grantCredits } from '../../core/credits/grant.js';
import { defineOperatorTool } from '../define.js';

export const grantCreditsTool = defineOperatorTool({
  name: 'grant_credits',
  title: 'Grant credits',
  description:
    'Adds credits to one balance (normal, top-up, Lookalike or Lookalike top-up) and returns the new balances; each grant is a ledger entry. The same as `outreach credits add`.',
  input: GrantCreditsInput,
  output: GrantCreditsResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotent: true,
  handler: (ctx, input) => grantCredits(ctx, input),
});
