import { z } from 'zod';
import { Agent, getAgent } from '../core/agents/agents.js';
import { defineTool } from './define.js';
import { AgentId } from './params.js';

export const getAgentTool = defineTool({
  name: 'get_agent',
  title: 'Get agent',
  description: "Gets one agent: its sending account, its steps with their ids, and its main path's connection note and messages. Free.",
  input: z.strictObject({ agentId: AgentId }),
  output: Agent,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolset: 'manage',
  http: { method: 'GET', path: '/agents/:agentId' },
  handler: (ctx, input) => getAgent(ctx, input.agentId),
});
