import { z } from 'zod';
import { getInsightsOverview, InsightsOverview } from '../core/insights/overview.js';
import { defineTool } from './define.js';

export const getInsightsOverviewTool = defineTool({
  name: 'get_insights_overview',
  title: 'Get insights overview',
  description:
    'A workspace snapshot: latest activity and reply, lifetime counters, and the top 5 campaigns by reply and acceptance rate among the 100 most recently updated. Free.',
  input: z.strictObject({}),
  output: InsightsOverview,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/insights/overview' },
  handler: (ctx) => getInsightsOverview(ctx),
});
