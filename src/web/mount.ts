import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import { consumeLoginToken, endSession, findSession, type OperatorSession } from '../core/auth/sessions.js';
import type { Ctx } from '../core/context.js';
import { ApiError, toApiError, validationError } from '../core/errors.js';
import { getWorkspace } from '../core/workspace/get.js';
import type { Tool } from '../tools/define.js';
import { callTool, toolArguments, type Outcome } from '../tools/pipeline.js';
import { loginFailedPage, NOT_BUILT_TEXT } from './pages.js';
import { refuseCrossOrigin, sameOrigin, securityHeaders } from './security.js';

/** Where the dashboard lives on the server's port. */
export const APP_PREFIX = '/app';
export const SESSION_COOKIE = 'outreach_session';
/** CSV uploads travel through /app/api/call as text, so its bodies may be this large. */
export const MAX_CALL_BODY_BYTES = 10 * 1024 * 1024;

/** The built SPA (`npm run build`), from both `src/web` (tests) and `dist/web` (built). */
export const DEFAULT_UI_DIR = fileURLToPath(new URL('../../dist/ui/dashboard', import.meta.url));

export interface WebOptions {
  /** Every tool the dashboard may call: the public ones, the manage set and the operator tools. */
  tools: readonly Tool[];
  /** The built dashboard; DEFAULT_UI_DIR unless a test points elsewhere. */
  uiDir?: string;
}

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

function cookieValue(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function sessionCookie(req: Request, value: string, maxAgeSeconds: number): string {
  const parts = [`${SESSION_COOKIE}=${value}`, `Path=${APP_PREFIX}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (req.secure) parts.push('Secure');
  return parts.join('; ');
}

const unauthorized = () => new ApiError('unauthorized', 'No dashboard session. Get a login link with `npx outreach login` on the server machine and open it.');

function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).set('Cache-Control', 'no-store').type('application/json').send(JSON.stringify(body));
}

const sendApiError = (res: Response, err: ApiError, status?: number): void => sendJson(res, status ?? statusOf(err), err.toBody());
const statusOf = (err: ApiError): number =>
  err.code === 'unauthorized' ? 401 : err.code === 'not_found' ? 404 : err.details.maxBytes !== undefined ? 413 : 400;

/**
 * The dashboard, a third face beside REST and MCP, mounted at /app:
 * - `GET /app/login?token=…` turns a one-time link into a session cookie;
 * - `/app/api/session`, `/app/api/call` (the one data endpoint: any dashboard tool through the
 *   shared pipeline, with an operator caller) and `/app/api/logout`, all behind the session;
 * - the built SPA for every other GET, its hashed assets long-cached.
 * Every response carries the CSP and security headers; every non-GET request must come from our
 * own origin. An API key opens nothing here, and the session cookie opens nothing elsewhere.
 */
export function mountWeb(app: Express, ctx: Ctx, opts: WebOptions): void {
  const byName = new Map(opts.tools.map((t) => [t.name, t]));
  const toolNames = opts.tools.map((t) => t.name);
  const uiDir = opts.uiDir ?? DEFAULT_UI_DIR;
  const router = express.Router({ strict: false });

  router.use(securityHeaders, (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (!sameOrigin(req)) return refuseCrossOrigin(res);
    next();
  });

  router.get('/login', (req, res) => {
    res.set('Cache-Control', 'no-store');
    // Link previewers probe with HEAD; only a real GET spends the one-time token.
    if (req.method === 'HEAD') {
      res.status(200).type('html').end();
      return;
    }
    const token = typeof req.query.token === 'string' ? req.query.token : undefined;
    const outcome = consumeLoginToken(ctx, token);
    if (!outcome.ok) {
      res.status(401).type('html').send(loginFailedPage(outcome.reason));
      return;
    }
    ctx.log.info({ sessionId: outcome.sessionId }, 'dashboard login');
    const maxAge = Math.floor((outcome.expiresAt - ctx.clock.now()) / 1000);
    res.set('Set-Cookie', sessionCookie(req, outcome.session, maxAge)).redirect(303, `${APP_PREFIX}/`);
  });

  /** Every /app/api route needs the session; without one it answers 401 and nothing else. */
  const requireSession: RequestHandler = (req, res, next) => {
    const session = findSession(ctx, cookieValue(req, SESSION_COOKIE));
    if (!session) return sendApiError(res, unauthorized());
    (res.locals as { session?: OperatorSession }).session = session;
    next();
  };
  router.use('/api', requireSession);

  router.get('/api/session', (_req, res) => {
    const workspace = getWorkspace(ctx);
    if (!workspace) return sendApiError(res, new ApiError('not_found', 'This server holds no workspace yet. Run `npm start` or `npx outreach seed` first.'));
    sendJson(res, 200, { workspace: { name: workspace.name, plan: workspace.plan, env: ctx.env }, tools: toolNames });
  });

  router.post('/api/logout', (req, res) => {
    endSession(ctx, cookieValue(req, SESSION_COOKIE));
    res.set('Set-Cookie', sessionCookie(req, '', 0));
    sendJson(res, 200, { ok: true });
  });

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
      outcome = await callTool(ctx, tool, { operator: true, requestId }, toolArguments(tool, args));
    } catch (err) {
      outcome = { ok: false, error: toApiError(err) };
    }
    sendJson(res, 200, toCallResult(outcome));
  });

  router.use('/api', (req, res) => {
    sendApiError(res, new ApiError('not_found', `No dashboard endpoint ${req.method} ${APP_PREFIX}/api${req.path}.`));
  });

  // The built SPA. Checked per request, so a build made while the server runs is served at once.
  router.use('/assets', (req, res, next) => {
    if (!existsSync(join(uiDir, 'index.html'))) return notBuilt(res);
    next();
  });
  router.use('/assets', express.static(join(uiDir, 'assets'), { index: false, immutable: true, maxAge: '365d', fallthrough: false, redirect: false }));
  router.use(express.static(uiDir, { index: false, redirect: false, maxAge: 0 }));
  router.get(/.*/, (_req, res) => {
    const index = join(uiDir, 'index.html');
    if (!existsSync(index)) return notBuilt(res);
    // Client-side routing: every page path is the SPA's entry; it must be revalidated, its assets need not.
    res.set('Cache-Control', 'no-cache').sendFile(index);
  });
  router.use((req, res) => {
    res.status(405).set('Allow', 'GET').type('text/plain').send(`${req.method} is not supported on ${APP_PREFIX}${req.path}.\n`);
  });
  const errors: ErrorRequestHandler = (err: { type?: string; status?: number; statusCode?: number }, req, res, next) => {
    if (res.headersSent) return next(err);
    if (err?.type === 'entity.too.large') {
      return sendApiError(
        res,
        new ApiError('validation_error', `Request body is larger than ${MAX_CALL_BODY_BYTES} bytes (10 MiB).`, { maxBytes: MAX_CALL_BODY_BYTES }),
        413,
      );
    }
    const status = err?.status ?? err?.statusCode;
    if (status === 404) return res.status(404).type('text/plain').send(`Not found: ${APP_PREFIX}${req.path}\n`);
    if (typeof status === 'number' && status >= 400 && status < 500) return sendApiError(res, validationError('The request body could not be read.', []));
    next(err);
  };
  router.use(errors);

  app.use(APP_PREFIX, router);
}

function notBuilt(res: Response): void {
  res.status(503).set('Cache-Control', 'no-store').type('text/plain').send(NOT_BUILT_TEXT);
}

type ParsedCall = { ok: true; name: string; args: Record<string, unknown> } | { ok: false; error: ApiError };

/** `{ name, arguments }` as JSON; anything else is a validation_error naming the field. */
function parseCall(req: Request): ParsedCall {
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
