import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type Prompt } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Ctx } from '../core/context.js';
import { describeIssue } from '../core/validation.js';
import type { Tool } from '../tools/define.js';
import type { PromptSpec } from '../tools/prompts/define.js';
import { PROMPTS } from '../tools/prompts/index.js';

/** A prompt as prompts/list shows it, its arguments read from its schema. */
function promptListing(spec: PromptSpec): Prompt {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    arguments: Object.entries(spec.args.shape).map(([name, schema]) => ({
      name,
      description: (schema as z.ZodType).description,
      required: !(schema as z.ZodType).safeParse(undefined).success,
    })),
  };
}

const listings = PROMPTS.map(promptListing);
const byName = new Map(PROMPTS.map((p) => [p.name, p]));

/** prompts/list: every prompt (PROMPTS in src/tools/prompts), on every connection. */
export function listPrompts(): Prompt[] {
  return listings;
}

/**
 * prompts/get: the plan as one user message. An unknown prompt or a bad argument is
 * InvalidParams naming it; on a connection without some of the tools the plan calls, the text
 * first says how to add them, rather than sending the assistant after tools it lacks.
 */
export function getPrompt(ctx: Ctx, offered: ReadonlyMap<string, Tool>, name: string, raw: Record<string, string>): GetPromptResult {
  const spec = byName.get(name);
  if (!spec) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${name}". Call prompts/list for the available prompts.`, { name });
  const parsed = spec.args.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => describeIssue(issue)).join('; ');
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for prompt ${spec.name}: ${issues}`);
  }
  const missing = spec.uses.filter((t) => !offered.has(t));
  const preface = missing.length
    ? `Note: this connection does not offer ${missing.join(', ')}. Before starting, tell the user to add the ${spec.toolset} toolset: ` +
      `append ?toolsets=${spec.toolset} to the MCP URL (HTTP), or set OUTREACH_TOOLSETS=${spec.toolset} (stdio), then reconnect.\n\n`
    : '';
  return { description: spec.description, messages: [{ role: 'user', content: { type: 'text', text: preface + spec.text(ctx, parsed.data) } }] };
}
