import express, { type Request, type Router } from 'express';
import type { Ctx } from '../core/context.js';
import { ApiError, toApiError, validationError } from '../core/errors.js';
import type { Tool } from '../tools/define.js';
import { callTool, toolArguments, type Outcome } from '../tools/pipeline.js';
import { sendApiError, sendJson } from './reply.js';
import { sessionOf } from './session.js';
import { contentTypeProblem } from '../http/body.js';

/** CSV uploads travel through /app/api/call as text, so its bodies may be this large. */
export const MAX_CALL_BODY_BYTES = 10 * 1024 * 1024;

/** The result of a call as the dashboard's `callTool` seam receives it: an MCP CallToolResult. */
export interface CallResult {
  structuredContent: unknown;
  content: [{ type: 'text'; text: string }];
  isError: boolean;
}

type CallOutcome = Pick<Extract<Outcome, { ok: true }>, 'ok' | 'body' | 'json'> | { ok: false; error: ApiError };

/** On success the tool's body; on failure our error body, as structuredContent and as text. */
export function toCallResult(outcome: CallOutcome): CallResult {
  if (!outcome.ok) {
    const body = outcome.error.toBody();
    return { structuredContent: body, content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
  }
  return { structuredContent: outcome.body, content: [{ type: 'text', text: outcome.json }], isError: false };
}

/**
 * `POST /app/api/call`, the one data endpoint: any dashboard tool through the shared pipeline,
 * with an operator caller for the session's member. Tool failures are 200 with an isError
 * result, as over MCP; a call outside the member's role is refused by the pipeline's role stage
 * and answered 403 `forbidden` in the API's error shape, like every refusal of the caller.
 */
export function mountCall(router: Router, ctx: Ctx, tools: readonly Tool[]): void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  router.post('/api/call', express.raw({ type: () => true, limit: MAX_CALL_BODY_BYTES }), async (req, res) => {
    const requestId = String(res.locals.requestId ?? '');
    const request = parseCall(req);
    if (!request.ok) return sendApiError(res, request.error);
    const { name, args } = request;
    res.locals.tool = name;
    const tool = byName.get(name);
    if (!tool) {
      const error = new ApiError('not_found', `Unknown tool "${name}". GET /app/api/session lists the tools the dashboard may call.`, { fields: ['name'] });
      return sendJson(res, 200, toCallResult({ ok: false, error }));
    }
    let outcome: CallOutcome;
    try {
      outcome = await callTool(ctx, tool, { operator: true, requestId, member: sessionOf(res).member }, toolArguments(tool, args));
    } catch (err) {
      outcome = { ok: false, error: toApiError(err) };
    }
    if (!outcome.ok && outcome.error.code === 'forbidden') return sendApiError(res, outcome.error);
    sendJson(res, 200, toCallResult(outcome));
  });
}

type ParsedCall = { ok: true; name: string; args: Record<string, unknown> } | { ok: false; error: ApiError };

/** `{ name, arguments }` as JSON; anything else is a validation_error naming the field. */
function parseCall(req: Request): ParsedCall {
  const wrongType = contentTypeProblem(req.headers['content-type']);
  if (wrongType) return { ok: false, error: wrongType };
  const raw = req.body as unknown;
  let body: unknown;
  try {
    body = Buffer.isBuffer(raw) && raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
  } catch {
    return { ok: false, error: validationError('The body is not valid JSON. Send { "name": tool, "arguments": {...} }.', []) };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, error: validationError('The body must be a JSON object { "name": tool, "arguments": {...} }.', []) };
  }
  const { name, arguments: args, ...extra } = body as Record<string, unknown>;
  const unknown = Object.keys(extra)[0];
  if (unknown !== undefined) return { ok: false, error: validationError(`Unknown field: ${unknown}.`, [unknown]) };
  if (typeof name !== 'string' || name === '') return { ok: false, error: validationError('name: the tool to call, a string.', ['name']) };
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return { ok: false, error: validationError('arguments: must be an object.', ['arguments']) };
  }
  return { ok: true, name, args: (args ?? {}) as Record<string, unknown> };
}
