import { z } from 'zod';
import { Profile, lookupProfile } from '../core/network/profiles.js';
import { defineTool } from './define.js';
import { pathId } from './params.js';

/**
 * Hints: a POST that reads; not idempotent, because every call counts toward the account's
 * daily lookup quota; open-world (a live call to the network).
 */
export const lookupProfileTool = defineTool({
  name: 'lookup_profile',
  title: 'Look up profile',
  description:
    'Fetches a live profile through a connected account; depth full adds about and experience. Counts toward the daily lookup cap (80, or 150 with Sales Navigator). Free.',
  input: z.strictObject({
    accountId: pathId('account').describe('Account to look up with (list_accounts).'),
    networkUrl: z.string().min(1).max(2048).describe('Personal profile URL, https://www.linkedin.com/in/<slug>.'),
    depth: z.enum(['basic', 'full']).default('basic').describe('basic (default) or full (adds about and experience).'),
  }),
  output: Profile,
  errors: ['not_found', 'account_disconnected', 'network_daily_quota'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  rateLimit: 'profile_lookup',
  http: { method: 'POST', path: '/network/profiles/lookup' },
  // A real provider can take long (retries, rate waits): a client may follow it as a task.
  task: {},
  handler: async (ctx, input, caller) => {
    caller.progress?.(0, 1, 'Looking the profile up');
    const profile = await lookupProfile(ctx, input, caller.rateLimits);
    caller.progress?.(1, 1, 'Profile answered');
    return profile;
  },
});
