import { z } from 'zod';
import { AgentPreview, previewSteps, requireAgentRow, writtenWithSteps } from '../../core/agents/agents.js';
import { StepsInput } from '../../core/agents/steps.js';
import { LeadSequence, leadSequence } from '../../core/sequences/lead-sequence.js';
import { getSkipReasons, SkipReasons } from '../../core/sequences/stats.js';
import { defineOperatorTool } from '../define.js';
import { AgentId, CampaignId, LeadId } from '../params.js';

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

/** The dashboard's lead page: where one lead is in its agent's steps, what happened at each, and its drafts. */
export const getLeadSequenceTool = defineOperatorTool({
  name: 'get_lead_sequence',
  title: 'Get a lead’s sequence',
  description:
    "One lead's position in its agent's steps (or how its sequence ended), each step's event (sent, skipped and why, accepted, replied) and its drafts.",
  input: z.strictObject({ campaignId: CampaignId, leadId: LeadId }),
  output: LeadSequence,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => leadSequence(ctx, input.campaignId, input.leadId),
});

/**
 * The agent editor's live preview: a sequence as it is being written, before it is saved (or
 * before the agent exists), rendered for one lead as preview_agent renders a saved one. Steps
 * are named by `path` (a new step has no id yet). Writes nothing.
 */
export const previewAgentDraftTool = defineOperatorTool({
  name: 'preview_agent_draft',
  title: 'Preview an unsaved sequence',
  description: 'Renders steps not saved yet for one lead, exactly as preview_agent renders a saved agent. Free; writes nothing.',
  input: z.strictObject({
    agentId: AgentId.optional().describe('The agent being edited; omit for a new one.'),
    leadId: LeadId,
    steps: StepsInput,
  }),
  output: AgentPreview,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => previewSteps(ctx, input),
});
