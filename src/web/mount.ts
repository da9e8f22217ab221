import compression from 'compression';
import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Ctx } from '../core/context.js';
import { ApiError, validationError } from '../core/errors.js';
import { getWorkspace } from '../core/workspace/get.js';
import type { Tool } from '../tools/define.js';
import { MAX_CALL_BODY_BYTES, mountCall } from './call.js';
import { sendApiError, sendJson } from './reply.js';
import { requireSameOrigin, securityHeaders } from './security.js';
import { mountEvents } from './events.js';
import { APP_PREFIX, mountSession, sessionOf } from './session.js';
import { toolsForRole } from '../core/members/roles.js';
import { DEFAULT_UI_DIR, mountSpa } from './static.js';
import { mountCrm } from './crm.js';
import type { CrmConnection } from '../core/crm/read.js';

export { type CallResult, MAX_CALL_BODY_BYTES, toCallResult } from './call.js';
export { APP_PREFIX, SESSION_COOKIE } from './session.js';
export { DEFAULT_UI_DIR } from './static.js';

/** The login command a signed-out visitor is told to run when the server names none. */
export const DEFAULT_LOGIN_HINT = 'npx outreach login';

/** JSON answers smaller than this go out as they are: compressing them saves less than it costs. */
const COMPRESS_THRESHOLD_BYTES = 1024;

export interface WebOptions {
  /** Every tool the dashboard may call: the public ones, the manage set and the operator tools. */
  tools: readonly Tool[];
  /** The built dashboard; DEFAULT_UI_DIR unless a test points elsewhere. */
  uiDir?: string;
  /** The configured public address (`publicUrl`): writes from its origin are the dashboard's own. */
  publicUrl?: string;
  /**
   * The command a signed-out visitor is told to run. It names `--db` when the server runs on a
   * database other than the default one, but never the path: the visitor is not signed in.
   */
  loginHint?: string;
  /** The CRM connection the CRM page shows (the config's `crm` section, the token's variable); none configured when absent. */
  crm?: CrmConnection;
}

/**
 * The dashboard, a third face beside REST and MCP, mounted at /app:
 * - `GET /app/login?token=…` turns a one-time link into a session cookie (./session.ts);
 * - `/app/api/session`, `/app/api/call` (./call.ts), `/app/api/events` (live updates, ./events.ts),
 *   `/app/api/crm` (the CRM page, ./crm.ts) and `/app/api/logout`, all behind the session;
 * - the built SPA for every other GET, its hashed assets precompressed and long-cached (./static.ts).
 * Every response carries the CSP and security headers; every non-GET request must come from our
 * own origin. An API key opens nothing here, and the session cookie opens nothing elsewhere.
 */
export function mountWeb(app: Express, ctx: Ctx, opts: WebOptions): void {
  const toolRefs = opts.tools.map((t) => ({ name: t.name, readOnly: t.annotations.readOnlyHint }));
  const hint = opts.loginHint ?? DEFAULT_LOGIN_HINT;
  const router = express.Router({ strict: false });

  router.use(securityHeaders, requireSameOrigin(opts.publicUrl ? new URL(opts.publicUrl).origin : undefined));
  // Lists of leads and conversations run to tens of kilobytes of JSON; the assets come precompressed.
  router.use(compression({ threshold: COMPRESS_THRESHOLD_BYTES }));

  mountSession(router, ctx, hint);

  // The member and the tools their role may call: the dashboard shows only those (the server refuses the rest).
  router.get('/api/session', (_req, res) => {
    const workspace = getWorkspace(ctx);
    if (!workspace) return sendApiError(res, new ApiError('not_found', 'This server holds no workspace yet. Run `npm start` or `npx outreach seed` first.'));
    const { member } = sessionOf(res);
    const tools = toolsForRole(member.role, toolRefs).map((t) => t.name);
    sendJson(res, 200, { workspace: { name: workspace.name, plan: workspace.plan, env: ctx.env }, member, tools });
  });

  mountCall(router, ctx, opts.tools);
  mountEvents(router, ctx);
  mountCrm(router, ctx, opts.crm ?? { crm: null, tokenEnv: null, tokenSet: false });

  router.use('/api', (req, res) => {
    sendApiError(res, new ApiError('not_found', `No dashboard endpoint ${req.method} ${APP_PREFIX}/api${req.path}.`));
  });

  mountSpa(router, opts.uiDir ?? DEFAULT_UI_DIR);
  router.use((req, res) => {
    res.status(405).set('Allow', 'GET').type('text/plain').send(`${req.method} is not supported on ${APP_PREFIX}${req.path}.\n`);
  });
  router.use(errors);

  app.use(APP_PREFIX, router);
}

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
