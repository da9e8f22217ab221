import { z } from 'zod';
import { Agent, updateAgent, UpdateAgentFields } from '../core/agents/agents.js';
import { defineTool } from './define.js';
import { AgentId } from './params.js';

export const updateAgentTool = defineTool({
  name: 'update_agent',
  title: 'Update agent',
  description:
    "Replaces any of an agent's name, accountId, steps, or connectionNote and messages (each given field whole). Leads part-way through continue at their step: send steps back with their ids. An agent written with steps changes through steps. Free.",
  input: z.strictObject({ agentId: AgentId, ...UpdateAgentFields }),
  output: Agent,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateLimit: 'manage',
  toolset: 'manage',
  http: { method: 'PATCH', path: '/agents/:agentId' },
  sameArgumentsAs: { tool: 'create_agent', fields: ['name', 'connectionNote', 'messages'] },
  handler: (ctx, { agentId, ...input }) => updateAgent(ctx, agentId, input),
});
