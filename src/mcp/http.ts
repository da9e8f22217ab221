import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, RequestHandler, Response } from 'express';
import type { Ctx } from '../core/context.js';
import { httpStatus, toApiError } from '../core/errors.js';
import { parseJsonBody, sendError } from '../rest/body.js';
import type { Tool } from '../tools/define.js';
import { RateLimitReport } from '../core/ratelimit/report.js';
import { errorHeaders, resolveCaller, type Credential } from '../tools/pipeline.js';
import { buildMcpServer } from './server.js';

export const baseUrl = (req: Request): string => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/** Where a client finds how to authenticate (RFC 9728), named in every 401 from /mcp. */
export const protectedResourceMetadataUrl = (req: Request): string => `${baseUrl(req)}/.well-known/oauth-protected-resource/mcp`;

export function mcpCredential(req: Request): Credential {
  return { apiKey: req.get('x-api-key') };
}

/**
 * Stateless streamable HTTP: every POST gets a fresh server and transport, and JSON
 * responses. The key is checked before any protocol work, so a bad key is a plain HTTP 401.
 */
export function mcpPostHandler(ctx: Ctx, tools: readonly Tool[]): RequestHandler {
  return async (req: Request, res: Response) => {
    const requestId = String(res.locals.requestId);
    const credential = mcpCredential(req);
    const report = new RateLimitReport();
    try {
      resolveCaller(ctx, credential, requestId, { clientAddress: req.ip, report });
    } catch (err) {
      const error = toApiError(err);
      const headers = errorHeaders(error, report);
      if (httpStatus(error) === 401) headers['WWW-Authenticate'] = `Bearer resource_metadata="${protectedResourceMetadataUrl(req)}"`;
      return sendError(res, error, headers);
    }
    const body = parseJsonBody(req);
    if (!body.ok) return sendError(res, body.error);

    const server = buildMcpServer(ctx, tools, credential, () => requestId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body.value);
  };
}

export const newRequestId = (): string => randomUUID();
