import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type ClientCapabilities,
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  McpError,
  type Prompt,
  isJSONRPCRequest,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type RequestId,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import type { z } from 'zod';
import type { Ctx } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { validationError } from '../core/errors.js';
import { zodToApiError } from '../core/validation.js';
import { IdempotencyKey, type Tool } from '../tools/define.js';
import { authenticate, invokeTool, type Authenticated, type Credential, type Outcome } from '../tools/pipeline.js';
import type { PromptSpec } from '../tools/prompts/define.js';
import { PROMPTS } from '../tools/prompts/index.js';
import { describeIssue } from '../core/validation.js';
import { mcpInputSchema, mcpOutputSchema, type JsonObject } from '../tools/schemas.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';
import { listViewResources, readViewResource, toolUiMeta } from './apps.js';

const INSTRUCTIONS =
  'Outreach automation for one LinkedIn workspace. Start with get_credits or list_campaigns. Adding a lead costs 1 credit; everything else is free. Write tools accept idempotencyKey: reuse it when retrying.';

/** The arguments a tool takes over MCP: its input, plus idempotencyKey where REST takes the header. */
export const mcpInput = (tool: Tool): z.ZodObject => (tool.idempotent ? tool.input.extend({ idempotencyKey: IdempotencyKey.optional() }) : tool.input);

const described = new WeakMap<Tool, McpTool>();

/**
 * MCP gives destructiveHint and idempotentHint meaning only when readOnlyHint is false, so a
 * read-only tool lists just readOnlyHint and openWorldHint: the other two would be noise.
 */
function listedAnnotations(annotations: Tool['annotations']): McpTool['annotations'] {
  if (!annotations.readOnlyHint) return { ...annotations };
  const { destructiveHint: _d, idempotentHint: _i, ...meaningful } = annotations;
  return meaningful;
}

/**
 * The tools/list entry of a tool. Tools never change, and converting their zod schemas to JSON
 * Schema costs more than a whole tool call, so each entry is built once and shared.
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
      annotations: listedAnnotations(tool.annotations),
    };
    // A linked MCP App view: hosts without the extension ignore _meta.
    const ui = toolUiMeta(tool.name);
    if (ui) entry._meta = ui;
    described.set(tool, entry);
  }
  return entry;
}

/** A pipeline outcome as an MCP tool result: the REST body as structuredContent and text. */
export function toToolResult(outcome: Outcome | { ok: false; error: ApiError }): CallToolResult {
  if (!outcome.ok) return { isError: true, content: [{ type: 'text', text: JSON.stringify(outcome.error.toBody()) }] };
  return { content: [{ type: 'text', text: outcome.json }], structuredContent: outcome.body as JsonObject };
}

/** The tools one request is offered, indexed for tools/call and listed for tools/list. */
export interface OfferedTools {
  byName: ReadonlyMap<string, Tool>;
  listing: McpTool[];
}

const offeredSets = new WeakMap<readonly Tool[], OfferedTools>();

/** Memoised per tool array: an unfiltered request passes the server's own array every time. */
export function offeredTools(tools: readonly Tool[]): OfferedTools {
  let offered = offeredSets.get(tools);
  if (!offered) {
    offered = { byName: new Map(tools.map((t) => [t.name, t])), listing: tools.map(describeTool) };
    offeredSets.set(tools, offered);
  }
  return offered;
}

/** Whom one MCP request acts for, and what it may call. */
export interface McpScope {
  offered: OfferedTools;
  /**
   * The pipeline's authentication for one tool call. Over HTTP the request was authenticated
   * before any protocol work (for its plain-HTTP 401), so this hands out that caller; over
   * stdio each call authenticates, so a revoked key stops working at once.
   */
  authenticate(): Authenticated;
}

/**
 * An MCP server over the registry. Validation is ours (the low-level Server does not parse
 * arguments), so a bad argument is an isError result with the spec's validation_error body.
 * `scopeOf` gives each request's scope from its JSON-RPC id, so one long-lived server can
 * answer many HTTP requests, each with its own key and tool set.
 * `validator` is the SDK's JSON Schema validator; servers built per request share one,
 * since the SDK otherwise compiles a fresh Ajv instance for every server.
 */
export function mcpServer(ctx: Ctx, scopeOf: (id: RequestId) => McpScope, validator?: jsonSchemaValidator, opts: McpServerOptions = {}): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION, title: 'Outreach MCP' },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: validator,
    },
  );
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS.map(promptListing) }));
  server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
    getPrompt(ctx, scopeOf(extra.requestId).offered.byName, request.params.name, request.params.arguments ?? {}),
  );
  server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => ({ tools: scopeOf(extra.requestId).offered.listing }));
  // The MCP App views of the offered tools (src/mcp/apps.ts); the only resources this server has.
  server.setRequestHandler(ListResourcesRequestSchema, (_request, extra) => ({
    resources: listViewResources(scopeOf(extra.requestId).offered.byName),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => readViewResource(request.params.uri, scopeOf(extra.requestId).offered.byName));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const scope = scopeOf(extra.requestId);
    const tool = scope.offered.byName.get(request.params.name);
    if (!tool) {
      const error = new ApiError('not_found', `Unknown tool "${request.params.name}". Call tools/list for the available tools.`);
      return toToolResult({ ok: false, error });
    }
    const auth = scope.authenticate();
    if (!auth.ok) return toToolResult(auth);
    const { idempotencyKey, ...input } = request.params.arguments ?? {};
    const call = {
      caller: auth.caller,
      input: tool.idempotent ? input : (request.params.arguments ?? {}),
      idempotencyKey: tool.idempotent ? idempotencyKey : undefined,
    };
    if (!(tool.confirm && opts.canAsk && clientCanAsk(server.getClientCapabilities()))) return toToolResult(await invokeTool(ctx, tool, call));
    const asked = await invokeTool(ctx, tool, { ...call, confirmation: 'ask' });
    if (asked.ok !== 'ask') return toToolResult(asked);
    const answer = await server.elicitInput({ message: asked.question, requestedSchema: { type: 'object', properties: {} } });
    // The answered call runs the stages again as a new call, so a key revoked meanwhile stops it.
    const again = scope.authenticate();
    if (!again.ok) return toToolResult(again);
    return toToolResult(await invokeTool(ctx, tool, { ...call, caller: again.caller, confirmation: answer.action === 'accept' ? 'accepted' : 'declined' }));
  });
  return server;
}

export interface McpServerOptions {
  /**
   * The transport carries requests from server to client while a call waits (stdio), so a
   * client that declares elicitation is asked a tool's confirmation. Stateless HTTP with JSON
   * answers cannot: its clients are trusted, as REST's are.
   */
  canAsk?: boolean;
}

/** A form elicitation: `elicitation: {}` (the first form of the capability) or one naming `form`. */
function clientCanAsk(caps: ClientCapabilities | undefined): boolean {
  const elicitation = caps?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return Object.keys(elicitation).length === 0 || elicitation.form !== undefined;
}

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

/**
 * prompts/get: the plan as one user message. A bad argument is InvalidParams naming it; on a
 * connection without some of the tools the plan calls, the text first says how to add them.
 */
function getPrompt(ctx: Ctx, offered: ReadonlyMap<string, Tool>, name: string, raw: Record<string, string>): GetPromptResult {
  const spec = PROMPTS.find((p) => p.name === name);
  if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${name}". Call prompts/list for the available prompts.`);
  const parsed = spec.args.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => describeIssue(issue)).join('; ');
    throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${spec.name}: ${issues}`);
  }
  const missing = spec.uses.filter((t) => !offered.has(t));
  const preface = missing.length
    ? `Note: this connection does not offer ${missing.join(', ')}. Before starting, tell the user to add the ${spec.toolset} toolset: ` +
      `append ?toolsets=${spec.toolset} to the MCP URL (HTTP), or set OUTREACH_TOOLSETS=${spec.toolset} (stdio), then reconnect.\n\n`
    : '';
  return { description: spec.description, messages: [{ role: 'user', content: { type: 'text', text: preface + spec.text(ctx, parsed.data) } }] };
}

/**
 * Why a tools/call request is malformed (no params, arguments that are not an object, no
 * name), as our validation_error; null for a well-formed one. The SDK's server would answer
 * these with a JSON-RPC error of its own wording, where every failed call must be an isError
 * result carrying our error body.
 */
export function malformedToolCall(request: JSONRPCRequest): ApiError | null {
  const parsed = CallToolRequestSchema.safeParse(request);
  if (parsed.success) return null;
  const params = request.params as unknown;
  if (params === undefined || params === null || typeof params !== 'object' || Array.isArray(params)) {
    return validationError("tools/call needs params: the tool's name and its arguments as a JSON object.", []);
  }
  const args = (params as { arguments?: unknown }).arguments;
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    const got = Array.isArray(args) ? 'an array' : args === null ? 'null' : `a ${typeof args}`;
    return validationError(`arguments must be a JSON object of named arguments, not ${got}.`, ['arguments']);
  }
  return zodToApiError(parsed.error, (field) => field.replace(/^params\./, ''));
}

/**
 * Connects a server to its transport, answering malformed tools/call requests (see
 * malformedToolCall) before they reach the server. Every transport (stdio, the SDK's HTTP
 * transport, the RequestMux) delivers through `onmessage`, so all answer alike.
 */
export async function connectServer(server: Server, transport: Transport): Promise<void> {
  await server.connect(transport);
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('The MCP server did not attach to its transport.');
  transport.onmessage = (message, extra) => {
    const refusal = isJSONRPCRequest(message) && message.method === 'tools/call' ? malformedToolCall(message) : null;
    if (!refusal || !isJSONRPCRequest(message)) return deliver(message, extra);
    const result = toToolResult({ ok: false, error: refusal });
    transport.send({ jsonrpc: '2.0', id: message.id, result }, { relatedRequestId: message.id }).catch((err: unknown) => transport.onerror?.(err as Error));
  };
}

/** A server for one stdio client: the key is checked on every call. */
export function stdioMcpServer(ctx: Ctx, tools: readonly Tool[], credential: Credential, requestId: () => string): Server {
  const offered = offeredTools(tools);
  return mcpServer(ctx, () => ({ offered, authenticate: () => authenticate(ctx, credential, { requestId: requestId() }) }), undefined, { canAsk: true });
}
