import { Agent, createAgent, CreateAgentInput } from '../core/agents/agents.js';
import { defineTool } from './define.js';

export const createAgentTool = defineTool({
  name: 'create_agent',
  title: 'Create agent',
  description:
    'Creates an agent: the account that sends and its sequence, either as steps (visits, likes, invite, messages, InMail, waits, if accepted/replied branches, A/B variants) or as a connection note and up to 10 messages with delays. Texts may use placeholders such as {{firstName|there}}. Free.',
  input: CreateAgentInput,
  output: Agent,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateLimit: 'manage',
  toolset: 'manage',
  http: { method: 'POST', path: '/agents' },
  idempotent: true,
  handler: (ctx, input) => createAgent(ctx, input),
});
