import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import type { z } from 'zod';
import type { Ctx } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { IdempotencyKey, type Tool } from '../tools/define.js';
import { invokeTool, type Credential, type Outcome } from '../tools/pipeline.js';
import { mcpInputSchema, mcpOutputSchema, type JsonObject } from './schemas.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';

const INSTRUCTIONS =
  'Outreach automation for one LinkedIn workspace. Start with get_credits or list_campaigns. Adding a lead costs 1 credit; everything else is free. Write tools accept idempotencyKey: reuse it when retrying.';

/** The arguments a tool takes over MCP: its input, plus idempotencyKey where REST takes the header. */
export const mcpInput = (tool: Tool): z.ZodObject =>
  tool.idempotent ? tool.input.extend({ idempotencyKey: IdempotencyKey.optional() }) : tool.input;

const described = new WeakMap<Tool, McpTool>();

/**
 * The tools/list entry of a tool. Tools never change, and converting their zod schemas to JSON
 * Schema was most of the cost of a stateless MCP request (every POST builds a fresh server),
 * so each entry is built once and shared.
 */
export function describeTool(tool: Tool): McpTool {
  let entry = described.get(tool);
  if (!entry) {
    entry = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: mcpInputSchema(mcpInput(tool)) as McpTool['inputSchema'],
      outputSchema: mcpOutputSchema(tool.output) as McpTool['outputSchema'],
      // The title is listed once, at the top level, where MCP (2025-06-18) puts it.
      annotations: { ...tool.annotations },
    };
    described.set(tool, entry);
  }
  return entry;
}

/** A pipeline outcome as an MCP tool result: the REST body as structuredContent and text. */
export function toToolResult(outcome: Outcome): CallToolResult {
  if (!outcome.ok) return { isError: true, content: [{ type: 'text', text: JSON.stringify(outcome.error.toBody()) }] };
  return { content: [{ type: 'text', text: outcome.json }], structuredContent: outcome.body as JsonObject };
}

/**
 * An MCP server over the registry. Validation is ours (the low-level Server does not parse
 * arguments), so a bad argument is an isError result with the spec's validation_error body.
 * `validator` is the SDK's JSON Schema validator; the stateless HTTP transport builds a
 * server per request and passes one shared validator, since the SDK otherwise compiles a
 * fresh Ajv instance for every server.
 */
export function buildMcpServer(
  ctx: Ctx,
  tools: readonly Tool[],
  credential: Credential,
  requestId: () => string,
  validator?: jsonSchemaValidator,
): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION, title: 'Outreach MCP' },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator },
  );
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listing = tools.map(describeTool);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      const error = new ApiError('not_found', `Unknown tool "${request.params.name}". Call tools/list for the available tools.`);
      return toToolResult({ ok: false, error, headers: {} });
    }
    const { idempotencyKey, ...input } = request.params.arguments ?? {};
    const outcome = await invokeTool(ctx, tool, {
      input: tool.idempotent ? input : (request.params.arguments ?? {}),
      idempotencyKey: tool.idempotent ? idempotencyKey : undefined,
      idempotencyKeyField: 'idempotencyKey',
      credential,
      requestId: requestId(),
    });
    return toToolResult(outcome);
  });
  return server;
}
