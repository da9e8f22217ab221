import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Request, RequestHandler, Response } from 'express';
import type { Ctx } from '../core/context.js';
import { httpStatus, toApiError, validationError, type ApiError } from '../core/errors.js';
import { RateLimitReport } from '../core/ratelimit/report.js';
import { parseJsonBody, sendError } from '../http/body.js';
import { protectedResourceMetadataUrl } from '../http/oauth/router.js';
import { bearerToken, requestIdOf } from '../http/request.js';
import type { Tool } from '../tools/define.js';
import { authenticate, type Credential } from '../tools/pipeline.js';
import { parseSwitch, parseToolNames, requestToolSet, selectTools, type ToolSelection, type ToolSets } from '../tools/select.js';
import { fastPathRequest, RequestMux, writeReply } from './fast.js';
import { connectServer, mcpServer, offeredTools, type McpScope } from './server.js';

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
    if (typeof query.toolsets !== 'string') throw validationError('toolsets must be one comma-separated list of toolset names (manage, drafts).', ['toolsets']);
    sel.toolsets = parseToolNames(query.toolsets);
  }
  if (sel.include === undefined && sel.readOnly === undefined && sel.toolsets === undefined) return serverTools;
  const fields = { include: 'tools', readOnly: 'readonly', toolsets: 'toolsets' };
  if (sets) return requestToolSet(sets, sel, fields);
  return selectTools(serverTools, sel, fields);
}

export interface McpHttpOptions {
  /**
   * Answer the common well-formed request on the shared server (default). Off, every POST
   * goes through the SDK transport: the tests compare the two.
   */
  fastPath?: boolean;
  /** The server's permitted tool sets, for `?toolsets=` and `?tools=` (see requestedTools). */
  toolSets?: ToolSets;
}

/**
 * Stateless streamable HTTP with JSON responses. The key or token is checked before any
 * protocol work, so a bad one is a plain HTTP 401. A single well-formed JSON-RPC request is
 * answered by one long-lived server through a RequestMux; anything else gets the SDK's own
 * transport and a fresh server, which answer every HTTP-level case (406, 415, batches, 202).
 */
export function mcpPostHandler(ctx: Ctx, tools: readonly Tool[], opts: McpHttpOptions = {}): RequestHandler {
  const validator = new AjvJsonSchemaValidator();
  const mux = new RequestMux();
  const shared = mcpServer(ctx, (id) => mux.scopeOf(id), validator);
  const connected = connectServer(shared, mux);
  const fastPath = opts.fastPath ?? true;
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
    const request = fastPath ? fastPathRequest(req, body.value) : undefined;
    if (request) {
      await connected;
      return writeReply(res, await mux.dispatch(request, scope));
    }
    const server = mcpServer(ctx, () => scope, validator);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await connectServer(server, transport);
    await transport.handleRequest(req, res, body.value);
  };
}
