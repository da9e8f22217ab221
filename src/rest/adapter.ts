import type { Express, Request, Response } from 'express';
import type { z } from 'zod';
import type { Ctx } from '../core/context.js';
import { validationError } from '../core/errors.js';
import type { Tool } from '../tools/define.js';
import { bearerToken } from '../mcp/http.js';
import { invokeTool, type Credential, type Outcome } from '../tools/pipeline.js';
import { parseJsonBody, readRawBody, sendError, writeJson } from './body.js';
import { coerceQuery } from './query.js';

const requestId = (res: Response): string => String(res.locals.requestId ?? '');

/** REST authenticates with X-API-Key only; a bearer token alone is refused with a 401 that says so. */
export const restCredential = (req: Request): Credential => ({
  apiKey: req.get('x-api-key'),
  misplacedBearer: !req.get('x-api-key') && bearerToken(req) !== undefined,
});

export function sendOutcome(res: Response, outcome: Outcome): void {
  if (!outcome.ok) return sendError(res, outcome.error, outcome.headers);
  // The settled JSON text, not a re-serialisation: an idempotent replay sends the stored bytes.
  writeJson(res, outcome.status, outcome.headers, outcome.json);
}

/**
 * Decodes a REST request into tool input: path parameters, then the query (GET) or the JSON
 * body (other methods). The tool's strict schema does the rest, so REST and MCP validate alike.
 */
function decodeInput(tool: Tool, req: Request): { input: unknown; error?: ReturnType<typeof validationError> } {
  const params = req.params as Record<string, string>;
  if (tool.http.method === 'GET') {
    const query = coerceQuery(tool.input.shape as Record<string, z.ZodType>, req.query as Record<string, unknown>);
    const clash = Object.keys(query).find((k) => tool.pathParams.includes(k));
    if (clash) return { input: undefined, error: validationError(`Unknown query parameter: ${clash}.`, [clash]) };
    return { input: { ...query, ...params } };
  }
  const body = parseJsonBody(req);
  if (!body.ok) return { input: undefined, error: body.error };
  const value = body.value ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { input: undefined, error: validationError('The body must be a JSON object.', []) };
  }
  const clash = Object.keys(value).find((k) => tool.pathParams.includes(k));
  if (clash) return { input: undefined, error: validationError(`Unknown field: ${clash} (it belongs in the path).`, [clash]) };
  return { input: { ...value, ...params } };
}

/** Where the REST facade lives. */
export const REST_PREFIX = '/public/v1';

/**
 * The REST facade's routes, generated from the tool registry: one route per tool, registered on
 * the app itself under REST_PREFIX (a mounted sub-router cost a measurable share of a short
 * request). Routes that take a body read it under the 128 KiB limit first.
 */
export function restRoutes(app: Express, ctx: Ctx, tools: readonly Tool[]): void {
  for (const tool of tools) {
    const method = tool.http.method.toLowerCase() as 'get' | 'post' | 'patch';
    const handler = async (req: Request, res: Response) => {
      res.locals.tool = tool.name;
      const { input, error } = decodeInput(tool, req);
      const outcome = await invokeTool(ctx, tool, {
        input,
        inputError: error,
        idempotencyKey: tool.idempotent ? req.get('idempotency-key') : undefined,
        idempotencyKeyField: 'Idempotency-Key',
        credential: restCredential(req),
        requestId: requestId(res),
        clientAddress: req.ip,
      });
      sendOutcome(res, outcome);
    };
    if (tool.http.method === 'GET') app.get(REST_PREFIX + tool.http.path, handler);
    else app[method](REST_PREFIX + tool.http.path, readRawBody, handler);
  }
}
