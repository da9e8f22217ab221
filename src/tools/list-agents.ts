import { z } from 'zod';
import { Agent, listAgents } from '../core/agents/agents.js';
import { Cursor, Limit } from '../core/pagination.js';
import { defineTool } from './define.js';

export const listAgentsTool = defineTool({
  name: 'list_agents',
  title: 'List agents',
  description: "Lists agents (sending account, steps, and the main path's connection note and messages), oldest first. Free.",
  input: z.strictObject({ limit: Limit, cursor: Cursor.optional() }),
  output: z.object({ agents: z.array(Agent), nextCursor: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolset: 'manage',
  http: { method: 'GET', path: '/agents' },
  handler: (ctx, input, caller) => listAgents(ctx, caller.workspace.cursorSecret, input),
});
