import { Agent, createAgent, CreateAgentInput } from '../core/agents/agents.js';
import { defineTool } from './define.js';

export const createAgentTool = defineTool({
  name: 'create_agent',
  title: 'Create agent',
  description:
    'Creates an agent: the sending account and its sequence, as steps (visit, like, invite, message, InMail, wait, if accepted or replied, A/B variants) or as a connection note and up to 10 messages with delays. Free.',
  input: CreateAgentInput,
  output: Agent,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateLimit: 'manage',
  toolset: 'manage',
  http: { method: 'POST', path: '/agents' },
  idempotent: true,
  handler: (ctx, input) => createAgent(ctx, input),
});
