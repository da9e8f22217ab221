import { z } from 'zod';
import { Credits, getCredits } from '../core/credits/get.js';
import { defineTool } from './define.js';

export const getCreditsTool = defineTool({
  name: 'get_credits',
  title: 'Get credits',
  description: 'Shows the workspace credit balances (normal and Lookalike, with top-ups) and plan. Free.',
  input: z.strictObject({}),
  output: Credits,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/credits' },
  handler: (ctx, _input, caller) => getCredits(ctx, caller.workspace),
});
