import { z } from 'zod';
import { SearchPage, searchPeople } from '../core/network/profiles.js';
import { defineTool } from './define.js';
import { pathId } from './params.js';

const isNetworkUrl = (value: string): boolean => {
  try {
    return /(^|\.)linkedin\.com$/i.test(new URL(value).hostname);
  } catch {
    return false;
  }
};

/**
 * Hints: a POST that reads; not idempotent, because results count toward the daily search
 * quota; open-world (a live call to the network).
 */
export const searchLinkedinTool = defineTool({
  name: 'search_linkedin',
  title: 'Search people',
  description:
    'Runs one page of a people search (classic, or sales_nav with Sales Navigator) by keywords or search URL; pass the returned cursor for the next page. Free.',
  input: z.strictObject({
    accountId: pathId('account').describe('Account to search with (list_accounts).'),
    type: z.enum(['classic', 'sales_nav']).default('classic').describe('classic (default) or sales_nav.'),
    query: z.string().trim().min(1).max(1000).optional().describe('Keywords or natural language. Give query or url, not both.'),
    url: z
      .string()
      .max(2048)
      .refine(isNetworkUrl, 'must be a search URL on linkedin.com')
      .optional()
      .describe('A people search URL. Give query or url, not both.'),
    limit: z.number().int().min(1).max(100).default(25).describe('Results per page: at most 50 for classic, 100 for sales_nav (default 25).'),
    cursor: z.string().min(1).max(512).optional().describe('The cursor from the previous page of the same search.'),
  }),
  output: SearchPage,
  errors: ['not_found', 'sales_nav_required', 'account_disconnected', 'network_daily_quota'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  rateLimit: 'people_search',
  http: { method: 'POST', path: '/network/search' },
  // A real provider can take long (retries, rate waits): a client may follow it as a task.
  task: {},
  handler: async (ctx, input, caller) => {
    // A provider's search may wait out its rate limits: a caller asking for progress hears when it starts and ends.
    caller.progress?.(0, 1, 'Searching LinkedIn');
    const found = await searchPeople(ctx, input, caller.rateLimits);
    caller.progress?.(1, 1, 'Search answered');
    return found;
  },
});
