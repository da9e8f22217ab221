import { z } from 'zod';
import { requireAgentRow, writtenWithSteps } from '../../core/agents/agents.js';
import { getSkipReasons, SkipReasons } from '../../core/sequences/stats.js';
import { defineOperatorTool } from '../define.js';
import { AgentId, CampaignId } from '../params.js';

/** The dashboard shows why steps were skipped beside get_agent_stats' counts; the public API counts them only. */
export const getSkipReasonsTool = defineOperatorTool({
  name: 'get_skip_reasons',
  title: 'Get skip reasons',
  description: "Why an agent's steps were skipped, per step, variant and reason, over every campaign or one.",
  input: z.strictObject({ agentId: AgentId, campaignId: CampaignId.optional().describe('Only this campaign; omit for all.') }),
  output: SkipReasons,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => getSkipReasons(ctx, input),
});

/**
 * How an agent was written. The editor saves an agent written with connectionNote and messages
 * in that shape while it still fits it, so API clients that write those fields keep working;
 * get_agent returns every agent as steps and cannot tell.
 */
export const getAgentShapeTool = defineOperatorTool({
  name: 'get_agent_shape',
  title: 'Get agent shape',
  description: 'Whether an agent was written with steps or with connectionNote and messages.',
  input: z.strictObject({ agentId: AgentId }),
  output: z.object({ agentId: z.string(), writtenWith: z.enum(['steps', 'note_and_messages']) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => {
    const row = requireAgentRow(ctx, input.agentId, 'agentId');
    return { agentId: row.id, writtenWith: writtenWithSteps(row) ? ('steps' as const) : ('note_and_messages' as const) };
  },
});
