import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ApiError, httpStatus, validationError } from '../core/errors.js';

/** Request bodies over this many bytes are refused with 413 (spec, Limits), MCP included. */
export const MAX_BODY_BYTES = 128 * 1024;

export const bodyTooLarge = () =>
  new ApiError('validation_error', `Request body is larger than ${MAX_BODY_BYTES} bytes (128 KiB). Split the request.`, {
    maxBytes: MAX_BODY_BYTES,
  });

/**
 * Reads the raw body with a hard byte limit: body-parser refuses an over-long
 * Content-Length at once and stops a chunked upload as soon as it passes the limit.
 */
export const readRawBody: RequestHandler = express.raw({ type: () => true, limit: MAX_BODY_BYTES });

/** Whether a request announces a body: the test body-parser itself applies before reading. */
const announcesBody = (req: IncomingMessage): boolean => req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;

/**
 * `handler` behind readRawBody, as one Express layer, and with no reading at all when the
 * request announces no body (almost every GET). Answers exactly as `readRawBody, handler`
 * would; the separate layer and body-parser's checks were 5-10% of a short GET's server CPU.
 */
export function readingBody(handler: (req: Request, res: Response, next: NextFunction) => unknown): RequestHandler {
  return (req, res, next) => {
    // Handed back to Express, which sends a rejection to the error handlers.
    if (!announcesBody(req)) return handler(req, res, next);
    readRawBody(req, res, (err?: unknown) => {
      if (err) return next(err);
      // A throw or a rejection goes to the error handlers, as Express does for a layer.
      new Promise((resolve) => resolve(handler(req, res, next))).catch(next);
    });
  };
}

/** Turns body-reading failures into the spec's error body. */
export const bodyErrors: ErrorRequestHandler = (err: { type?: string; status?: number }, _req, res, next) => {
  if (err?.type === 'entity.too.large') return sendError(res, bodyTooLarge());
  if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500) {
    return sendError(res, validationError('The request body could not be read. Send JSON with Content-Type: application/json.', []));
  }
  next(err);
};

/**
 * Sends a JSON body with its status and headers: what Express's `res.status().set().json()`
 * sends (`application/json; charset=utf-8`, a Content-Length; no ETag, which the app turns
 * off), without its content-type parsing and freshness checks, a measurable share of a short
 * request. Node itself leaves the body out of a HEAD answer. Works on a bare ServerResponse,
 * so the edge answers with it too.
 */
export function writeJson(res: ServerResponse, status: number, headers: Record<string, string>, json: string): void {
  res.statusCode = status;
  for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  writeJson(res, httpStatus(error), headers, JSON.stringify(error.toBody()));
}

const JSON_ONLY = 'The body must be JSON, sent with Content-Type: application/json.';

/**
 * Why a request's Content-Type cannot carry its JSON body, or null when it can. Only
 * `application/json` is JSON here, with no charset or charset=utf-8: a body declared in
 * another charset would otherwise be read as UTF-8 and altered, and a `+json` type
 * (`application/json-patch+json`, `application/vnd.api+json`) means a format with rules of its
 * own that this API does not follow. Both are refused as any other wrong type is, naming the header.
 */
export function contentTypeProblem(header: string | undefined): ApiError | null {
  const [type = '', ...params] = (header ?? '').split(';');
  const mime = type.trim().toLowerCase();
  if (mime !== 'application/json') {
    const why = mime.endsWith('+json') ? ` ${mime} is a JSON-based format of its own, which this API does not take.` : '';
    return validationError(`${JSON_ONLY}${why}`, ['Content-Type']);
  }
  for (const param of params) {
    const eq = param.indexOf('=');
    const name = (eq < 0 ? param : param.slice(0, eq)).trim().toLowerCase();
    if (name !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') {
      return validationError(`${JSON_ONLY} The body must be UTF-8: send charset=utf-8 or no charset, not charset=${charset}.`, ['Content-Type']);
    }
  }
  return null;
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; error: ApiError };

/** The JSON body of a request; an empty body is `undefined`. */
export function parseJsonBody(req: Request): ParsedBody {
  return parseJson(req.body as unknown, req.headers['content-type']);
}

/** A raw body (as readRawBody leaves it) as JSON, with the checks of parseJsonBody. */
export function parseJson(raw: unknown, contentType: string | undefined): ParsedBody {
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { ok: true, value: undefined };
  const wrongType = contentTypeProblem(contentType);
  if (wrongType) return { ok: false, error: wrongType };
  // Decoding would replace bad bytes with U+FFFD silently, and a message would go out altered.
  if (!isUtf8(raw)) return { ok: false, error: validationError('The body is not valid UTF-8. Send JSON encoded as UTF-8.', []) };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false, error: validationError('The body is not valid JSON.', []) };
  }
}
