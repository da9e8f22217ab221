import { z } from 'zod';
import { AgentPreview, previewAgent } from '../core/agents/agents.js';
import { defineTool } from './define.js';
import { AgentId, LeadId } from './params.js';

export const previewAgentTool = defineTool({
  name: 'preview_agent',
  title: 'Preview agent',
  description:
    "Renders an agent's texts for one lead of any campaign, exactly as that lead would receive them: the main path's note and messages, and every step with its path and variants. Free.",
  input: z.strictObject({ agentId: AgentId, leadId: LeadId }),
  output: AgentPreview,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolset: 'manage',
  http: { method: 'GET', path: '/agents/:agentId/preview' },
  handler: (ctx, input) => previewAgent(ctx, input.agentId, input.leadId),
});
