import { z } from 'zod';
import { AgentStats, getAgentStats } from '../core/sequences/stats.js';
import { defineTool } from './define.js';
import { AgentId, CampaignId } from './params.js';

export const getAgentStatsTool = defineTool({
  name: 'get_agent_stats',
  title: 'Get agent stats',
  description:
    "An agent's funnel per step and A/B variant: sent, accepted (invites), replied (the last step sent before a reply) and skipped, over all campaigns or one. Free.",
  input: z.strictObject({ agentId: AgentId, campaignId: CampaignId.optional().describe('Only this campaign, from list_campaigns; omit for all.') }),
  output: AgentStats,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolset: 'manage',
  http: { method: 'GET', path: '/agents/:agentId/stats' },
  handler: (ctx, input) => getAgentStats(ctx, input),
});
