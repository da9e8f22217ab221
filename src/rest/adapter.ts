import type { Express, Request, Response } from 'express';
import type { z } from 'zod';
import type { Ctx } from '../core/context.js';
import { ApiError, validationError } from '../core/errors.js';
import type { Tool } from '../tools/define.js';
import { parseJsonBody, readingBody, sendError, writeJson } from '../http/body.js';
import { bearerToken, clientAddress, headerText, requestIdOf } from '../http/request.js';
import { admit, callTool, IDEMPOTENCY_KEY_FIELD, type Authenticated, type Credential, type Entrant, type Outcome, type Refusal } from '../tools/pipeline.js';
import { coerceQuery } from './query.js';
import { routeParser } from './routes.js';

/** Where the REST facade lives. */
export const REST_PREFIX = '/public/v1';

/** What REST calls the idempotency key: a header. */
const KEY_HEADER = 'Idempotency-Key';

/** REST authenticates with X-API-Key only. */
export const restCredential = (req: Request): Credential => ({ apiKey: req.get('x-api-key') });

/** Who a REST request is for: its key, checked on the way into the pipeline. */
const restEntrant = (req: Request, res: Response): Entrant => ({
  credential: restCredential(req),
  requestId: requestIdOf(res),
  clientAddress: clientAddress(req),
});

/**
 * A bearer token alone is refused with a 401 that says REST takes X-API-Key (bearer tokens are
 * MCP's), where the pipeline would only say a key is missing.
 */
function restKeyWording<T extends Outcome | Authenticated>(req: Request, outcome: T): T {
  if (outcome.ok || outcome.stage !== 'key' || req.get('x-api-key') || bearerToken(req) === undefined) return outcome;
  const error = new ApiError('unauthorized', 'REST takes the API key in the X-API-Key header; OAuth bearer tokens work on the MCP endpoint only.');
  return { ...outcome, error };
}

/** Authenticates a REST request that reaches no tool (an unknown route), in REST's wording. */
export function authenticateRest(ctx: Ctx, req: Request, res: Response): Authenticated {
  return restKeyWording(req, admit(ctx, restEntrant(req, res)));
}

/** The pipeline names the idempotency key `idempotencyKey`; on REST its errors name the header. */
function restWording(outcome: Refusal): Refusal {
  if (outcome.stage !== 'idempotency') return outcome;
  const { error } = outcome;
  const fields = error.details.fields?.map((f) => (f === IDEMPOTENCY_KEY_FIELD ? KEY_HEADER : f));
  const renamed = new ApiError(error.code, error.message.replaceAll(IDEMPOTENCY_KEY_FIELD, KEY_HEADER), fields ? { ...error.details, fields } : error.details);
  return { ...outcome, error: renamed };
}

export function sendOutcome(res: Response, outcome: Outcome): void {
  if (!outcome.ok) return sendError(res, outcome.error, outcome.headers);
  // The settled JSON text, not a re-serialisation: an idempotent replay sends the stored bytes.
  writeJson(res, outcome.status, outcome.headers, outcome.json);
}

/**
 * Decodes a REST request into tool input: path parameters, then the query (GET) or the JSON
 * body (other methods, which take no query parameter). The tool's strict schema does the rest, so REST and MCP validate alike.
 */
function decodeInput(tool: Tool, req: Request): { input: unknown; error?: ApiError } {
  const params = req.params as Record<string, string>;
  if (tool.http.method === 'GET') {
    const query = coerceQuery(tool.input.shape as Record<string, z.ZodType>, req.query as Record<string, unknown>);
    const clash = Object.keys(query).find((k) => tool.pathParams.includes(k));
    if (clash) return { input: undefined, error: validationError(`Unknown query parameter: ${clash}.`, [clash]) };
    return { input: { ...query, ...params } };
  }
  // Other methods take their input from the body: a query parameter is unknown, as on GET, and
  // refused before anything is written (a `?dryRun=true` must not run the real thing).
  const stray = Object.keys(req.query as Record<string, unknown>)[0];
  if (stray !== undefined) return { input: undefined, error: validationError(`Unknown query parameter: ${stray}.`, [stray]) };
  const body = parseJsonBody(req);
  if (!body.ok) return { input: undefined, error: body.error };
  // No body is `{}`; a body of `null` is not an object and is refused like any other.
  const value = body.value === undefined ? {} : body.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { input: undefined, error: validationError('The body must be a JSON object.', []) };
  }
  const clash = Object.keys(value).find((k) => tool.pathParams.includes(k));
  if (clash) return { input: undefined, error: validationError(`Unknown field: ${clash} (it belongs in the path).`, [clash]) };
  return { input: { ...value, ...params } };
}

/**
 * The Idempotency-Key header as text: its UTF-8 bytes decoded, so a key with non-ASCII
 * characters is the same key over MCP, and its length is counted in characters.
 */
function idempotencyHeader(req: Request): { value?: string; error?: ApiError } {
  const raw = req.get('idempotency-key');
  if (raw === undefined) return {};
  const value = headerText(raw);
  if (value === null) return { error: validationError(`${KEY_HEADER}: the header's bytes are not UTF-8 text.`, [KEY_HEADER]) };
  return { value };
}

/**
 * The REST facade's routes, generated from the tool registry: one route per tool, registered on
 * the app itself under REST_PREFIX (a mounted sub-router cost a measurable share of a short
 * request). Every route reads a body it is sent under the 128 KiB limit first, GET routes too
 * (`readingBody`: a request that announces no body skips the reading).
 */
export interface RestRoute {
  method: string;
  matches: (path: string) => boolean;
  /** The raw path parameters of a path the route matches. */
  params: (path: string) => Record<string, string>;
  handler: (req: Request, res: Response) => Promise<void>;
}

export function restRoutes(app: Express, ctx: Ctx, tools: readonly Tool[]): RestRoute[] {
  return tools.map((tool) => {
    const method = tool.http.method.toLowerCase() as 'get' | 'post' | 'patch';
    const handler = async (req: Request, res: Response) => {
      res.locals.tool = tool.name;
      const { input, error } = decodeInput(tool, req);
      const key = tool.idempotent ? idempotencyHeader(req) : {};
      const outcome = await callTool(ctx, tool, restEntrant(req, res), {
        input,
        inputError: error ?? key.error,
        idempotencyKey: key.value,
      });
      sendOutcome(res, outcome.ok ? outcome : restWording(restKeyWording(req, outcome)));
    };
    app[method](REST_PREFIX + tool.http.path, readingBody(handler));
    return { method: tool.http.method, ...routeParser(tool.http.path), handler };
  });
}
