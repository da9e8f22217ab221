import { toNodeHandler, toWebRequest, type FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHandlerRequestOptions,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import type { Request, RequestHandler, Response } from 'express';
import type { Ctx } from '../core/context.js';
import { httpStatus, toApiError, validationError, type ApiError } from '../core/errors.js';
import { RateLimitReport } from '../core/ratelimit/report.js';
import { parseJsonBody, sendError, writeJson } from '../http/body.js';
import { protectedResourceMetadataUrl } from '../http/oauth/router.js';
import { bearerToken, requestIdOf } from '../http/request.js';
import type { Tool } from '../tools/define.js';
import { authenticate, type Credential } from '../tools/pipeline.js';
import { parseSwitch, parseToolNames, requestToolSet, selectTools, type ToolSelection, type ToolSets } from '../tools/select.js';
import { toToolResult } from './results.js';
import { malformedToolCall, mcpServer, offeredTools, type McpScope } from './server.js';
import { TaskRunner } from './tasks.js';

export function mcpCredential(req: Request): Credential {
  return { apiKey: req.get('x-api-key'), bearerToken: bearerToken(req) };
}

/** RFC 6750 §3: the challenge names the metadata, and says why a presented token failed. */
function challenge(req: Request, credential: Credential, error: ApiError): string {
  const parts = [`resource_metadata="${protectedResourceMetadataUrl(req)}"`];
  if (!credential.apiKey && credential.bearerToken) {
    parts.unshift('error="invalid_token"', `error_description="${error.message.replace(/["\\]/g, '')}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}

/**
 * The tools a request is offered: the server's MCP set, or, with `?toolsets=`, `?tools=` or
 * `?readonly=` on the MCP URL, the server's permitted tools selected by them. Toolsets add
 * tools the config permits; `tools` and `readonly` narrow. Nothing reaches past the config.
 */
export function requestedTools(req: Request, serverTools: readonly Tool[], sets?: ToolSets): readonly Tool[] {
  const query = req.query as Record<string, unknown>;
  const sel: ToolSelection = {};
  if (query.tools !== undefined) {
    if (typeof query.tools !== 'string') throw validationError('tools must be one comma-separated list of tool names.', ['tools']);
    sel.include = parseToolNames(query.tools);
  }
  if (query.readonly !== undefined) {
    const on = typeof query.readonly === 'string' ? parseSwitch(query.readonly) : undefined;
    if (on === undefined) throw validationError('readonly must be 1 or 0 (true or false).', ['readonly']);
    sel.readOnly = on;
  }
  if (query.toolsets !== undefined) {
    if (typeof query.toolsets !== 'string') throw validationError('toolsets must be one comma-separated list of toolset names (manage).', ['toolsets']);
    sel.toolsets = parseToolNames(query.toolsets);
  }
  if (sel.include === undefined && sel.readOnly === undefined && sel.toolsets === undefined) return serverTools;
  const fields = { include: 'tools', readOnly: 'readonly', toolsets: 'toolsets' };
  if (sets) return requestToolSet(sets, sel, fields);
  return selectTools(serverTools, sel, fields);
}

export interface McpHttpOptions {
  /** The server's permitted tool sets, for `?toolsets=` and `?tools=` (see requestedTools). */
  toolSets?: ToolSets;
  /** The process's task runner, shared with any other MCP entry of the process. */
  tasks?: TaskRunner;
}

/** The request's scope rides on the SDK's pass-through auth info, the one value it hands the factory. */
const SCOPE = 'outreachScope';
const scopeOf = (authInfo: AuthInfo | undefined): McpScope => {
  const scope = authInfo?.extra?.[SCOPE] as McpScope | undefined;
  if (!scope) throw new Error('An MCP request reached the server without the scope its authentication gave it.');
  return scope;
};

/**
 * A 2025-era request (no per-request `_meta` envelope), served statelessly as before: a fresh
 * instance per request on the SDK's streamable HTTP transport, answering in JSON. (The SDK's
 * own stateless fallback answers in SSE, which 2025 clients here were never sent.)
 */
function legacyEntry(factory: McpServerFactory): FetchLikeMcpHandler {
  return {
    fetch: async (request: globalThis.Request, options?: McpHandlerRequestOptions) => {
      const authInfo = options?.authInfo;
      const server = await factory({ era: 'legacy', ...(authInfo ? { authInfo } : {}), requestInfo: request });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request, {
          ...(authInfo ? { authInfo } : {}),
          ...(options?.parsedBody !== undefined ? { parsedBody: options.parsedBody } : {}),
        });
      } finally {
        void transport.close();
        void server.close();
      }
    },
  };
}

/**
 * Streamable HTTP for both eras on one endpoint. The key or token is checked before any
 * protocol work, so a bad one is a plain HTTP 401. The SDK decides the era of each request
 * (isLegacyRequest): a request carrying the 2026-07-28 `_meta` envelope goes to its stateless
 * entry (createMcpHandler), which answers server/discover, the envelope and header rules, and
 * the revision's error codes; anything else is a 2025-era request (legacyEntry).
 */
export function mcpPostHandler(ctx: Ctx, tools: readonly Tool[], opts: McpHttpOptions = {}): RequestHandler {
  const tasks = opts.tasks ?? new TaskRunner(ctx);
  const onerror = (err: Error) => ctx.log.debug({ err }, 'mcp request refused');
  const factory: McpServerFactory = ({ era, authInfo }) => mcpServer(ctx, scopeOf(authInfo), { era, tasks });
  const modern = createMcpHandler(factory, { legacy: 'reject', onerror });
  const legacy = legacyEntry(factory);
  const entry: FetchLikeMcpHandler = {
    fetch: async (request, options) =>
      (await isLegacyRequest(request, options?.parsedBody)) ? legacy.fetch(request, options) : modern.fetch(request, options),
  };
  const node = toNodeHandler(entry, { onerror: (err) => ctx.log.error({ err }, 'mcp request failed') });

  return async (req: Request, res: Response) => {
    const credential = mcpCredential(req);
    const auth = authenticate(ctx, credential, { requestId: requestIdOf(res), clientAddress: req.ip });
    if (!auth.ok) {
      const headers = { ...auth.headers };
      if (httpStatus(auth.error) === 401) headers['WWW-Authenticate'] = challenge(req, credential, auth.error);
      return sendError(res, auth.error, headers);
    }
    let offered: readonly Tool[];
    try {
      offered = requestedTools(req, tools, opts.toolSets);
    } catch (err) {
      return sendError(res, toApiError(err));
    }
    const body = parseJsonBody(req);
    if (!body.ok) return sendError(res, body.error);

    const { caller } = auth;
    const scope: McpScope = {
      offered: offeredTools(offered),
      // Each call collects its own rate-limit policies, as if it had authenticated itself.
      authenticate: () => ({ ok: true, caller: { ...caller, rateLimits: new RateLimitReport() } }),
    };
    const authInfo: AuthInfo = { token: '', clientId: caller.keyId, scopes: [], extra: { [SCOPE]: scope } };

    const answered = await answerMalformedCalls(req, body.value);
    if (answered) {
      if (answered.rest.length === 0) return writeJson(res, 200, {}, JSON.stringify(Array.isArray(body.value) ? answered.replies : answered.replies[0]));
      // A batch mixing malformed calls with other messages: the SDK answers the others.
      const response = await entry.fetch(await toWebRequest(req, answered.rest), { authInfo, parsedBody: answered.rest });
      const others = response.status === 200 ? ((await response.json()) as unknown[]) : [];
      const replies = [...answered.replies, ...(Array.isArray(others) ? others : [others])];
      const order = new Map((body.value as RpcRequest[]).map((m, i) => [m.id, i]));
      replies.sort((a, b) => (order.get((a as RpcRequest).id) ?? 0) - (order.get((b as RpcRequest).id) ?? 0));
      return writeJson(res, 200, {}, JSON.stringify(replies));
    }
    (req as Request & { auth?: AuthInfo }).auth = authInfo;
    await node(req, res, body.value);
  };
}

interface RpcRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params?: unknown;
}

const isToolCall = (m: unknown): m is RpcRequest =>
  m !== null && typeof m === 'object' && (m as RpcRequest).method === 'tools/call' && (m as RpcRequest).id !== undefined;

/**
 * A 2025-era tools/call that the SDK would refuse with a JSON-RPC error of its own wording
 * (no params, arguments not an object, no name) is answered here as every failed call was on
 * those revisions: an isError result with our validation_error body, alone or in a batch. On
 * 2026-07-28 a malformed request is a protocol error, and the SDK's answer stands. Null when
 * the body holds no such call; otherwise our replies, and the messages left for the SDK.
 */
async function answerMalformedCalls(req: Request, body: unknown): Promise<{ replies: unknown[]; rest: unknown[] } | null> {
  const messages = Array.isArray(body) ? body : [body];
  const replies: unknown[] = [];
  const rest: unknown[] = [];
  for (const message of messages) {
    const refusal = isToolCall(message) ? malformedToolCall(message.params) : null;
    if (refusal) replies.push({ jsonrpc: '2.0', id: (message as RpcRequest).id, result: toToolResult({ ok: false, error: refusal }) });
    else rest.push(message);
  }
  if (replies.length === 0) return null;
  const version = req.get('mcp-protocol-version');
  const probe = new globalThis.Request('http://mcp.local/', { method: 'POST', headers: version ? { 'mcp-protocol-version': version } : {} });
  if (!(await isLegacyRequest(probe, body))) return null;
  return { replies, rest };
}
