import cors, { type CorsOptions } from 'cors';
import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import type { Ctx } from '../core/context.js';
import { ApiError, toApiError } from '../core/errors.js';
import { accessLogger, accessPath } from '../log.js';
import { baseUrl, mcpPostHandler, newRequestId } from '../mcp/http.js';
import { oauthRouter } from '../mcp/oauth/router.js';
import type { Tool } from '../tools/define.js';
import { RateLimitReport } from '../core/ratelimit/report.js';
import { enforceRateLimits, errorHeaders, resolveCaller } from '../tools/pipeline.js';
import { bodyErrors, readRawBody, sendError } from './body.js';
import { llmsTxt, overview } from './discovery.js';
import { restCredential, restRouter } from './adapter.js';
import { openApiDocument } from './openapi.js';
import { referenceHtml } from './reference.js';

export interface AppOptions {
  /** The address the server binds; loopback binds get Host-header (DNS rebinding) protection. */
  host: string;
  /** The tools MCP serves (after the config's tool selection); REST always serves every route. */
  mcpTools?: readonly Tool[];
  /** Routes of the network provider that receive its events (e.g. Unipile webhooks); key-less. */
  mount?: (app: Express) => void;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

const EXPOSED_HEADERS = ['Mcp-Session-Id', 'WWW-Authenticate', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id', 'Idempotent-Replayed'];

/** CORS for any origin: browser-based MCP clients (the Inspector) and REST callers alike. */
const corsOptions: CorsOptions = {
  origin: '*',
  methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  allowedHeaders: ['Content-Type', 'Accept', 'X-API-Key', 'Authorization', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Idempotency-Key', 'Last-Event-ID', 'X-Request-Id', 'Idempotent-Replayed'],
  exposedHeaders: EXPOSED_HEADERS,
  maxAge: 600,
};

/**
 * What every request goes through first, in one middleware because each Express layer costs
 * a measurable share of a short request:
 * 1. a request id (or the caller's X-Request-Id), echoed back and in the access log line;
 * 2. on loopback binds, DNS-rebinding protection by the SDK's Host check, remembering the
 *    Host values it accepted (a client sends the same one every time; Host is client-chosen,
 *    so only a few are kept);
 * 3. CORS: preflights are answered by the cors package; for every other request its answer
 *    is fixed (any origin, the exposed headers), so those two headers are set directly.
 */
function frontDoor(ctx: Ctx, loopback: boolean): RequestHandler {
  const access = accessLogger(ctx.log);
  const hostCheck = hostHeaderValidation(['localhost', '127.0.0.1', '[::1]']);
  const acceptedHosts = new Set<string>();
  const preflight = cors(corsOptions);
  const exposed = EXPOSED_HEADERS.join(',');
  const admitted = (req: Request, res: Response, next: NextFunction): void => {
    if (req.method === 'OPTIONS') return preflight(req, res, next);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', exposed);
    next();
  };
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : newRequestId();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      access.info(
        {
          requestId: id,
          method: req.method,
          path: accessPath(req.originalUrl.split('?')[0] ?? ''),
          status: res.statusCode,
          tool: res.locals.tool,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    const host = req.headers.host;
    if (!loopback || (host !== undefined && acceptedHosts.has(host))) return admitted(req, res, next);
    hostCheck(req, res, () => {
      if (host !== undefined && acceptedHosts.size < 32) acceptedHosts.add(host);
      admitted(req, res, next);
    });
  };
}

const methodNotAllowed =
  (allow: string): RequestHandler =>
  (_req, res) => {
    res
      .status(405)
      .set('Allow', allow)
      .json({ jsonrpc: '2.0', error: { code: -32000, message: `Method not allowed. This server is stateless: use ${allow}.` }, id: null });
  };

const wantsEventStream: (accept: string | undefined) => boolean = (accept) => (accept ?? '').includes('text/event-stream');

/** The one HTTP app: discovery, MCP at / and /mcp, and the REST facade under /public/v1. */
export function createApp(ctx: Ctx, tools: readonly Tool[], opts: AppOptions): Express {
  const app = express();
  const mcpTools = opts.mcpTools ?? tools;
  app.disable('x-powered-by');
  // A TLS proxy on the same machine makes the origin https (OAuth issuer, metadata URLs).
  app.set('trust proxy', 'loopback');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use(frontDoor(ctx, LOOPBACK_HOSTS.has(opts.host)));

  // The REST facade first: its routes are the hot path, and no other route shares its prefix.
  // The API description is key-less, like the discovery URLs: a client reads it before it has a key.
  const openApi = memoByOrigin((origin) => openApiDocument(tools, origin));
  app.get('/public/v1/openapi.json', (req, res) => {
    res.json(openApi(baseUrl(req)));
  });
  app.get('/public/v1/docs', (req, res) => {
    res
      .set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .type('html')
      .send(referenceHtml(openApi(baseUrl(req)), { openapi: '/public/v1/openapi.json', llms: '/llms.txt' }));
  });

  const api = restRouter(ctx, tools);
  // Unknown /public/v1 routes still require a key first, then answer not_found.
  api.use((req, res) => {
    const report = new RateLimitReport();
    let error: ApiError;
    try {
      const caller = resolveCaller(ctx, restCredential(req), String(res.locals.requestId), { clientAddress: req.ip, report });
      // Every /public/v1 request counts against the key's global limit, a wrong path too.
      enforceRateLimits(ctx, caller, undefined);
      const known = tools.filter((t) => matches(t.http.path, req.path)).map((t) => t.http.method);
      const message = known.length
        ? `${req.method} is not supported on ${req.path}; use ${known.join(', ')}.`
        : `No route ${req.method} /public/v1${req.path}. See /llms.txt for the routes.`;
      error = new ApiError('not_found', message);
    } catch (err) {
      error = toApiError(err);
    }
    sendError(res, error, errorHeaders(error, report));
  });
  app.use('/public/v1', api);

  app.use(oauthRouter(ctx));
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/llms.txt', (req, res) => {
    res.type('text/plain; charset=utf-8').send(llmsTxt(req, ctx.env, mcpTools));
  });
  app.get('/.well-known/mcp.json', (req, res) => {
    res.json(overview(req, ctx.env, mcpTools));
  });
  for (const path of ['/', '/mcp']) {
    app.get(path, (req, res, next) => {
      if (wantsEventStream(req.get('accept'))) return methodNotAllowed('POST')(req, res, next);
      res.json(overview(req, ctx.env, mcpTools));
    });
    app.delete(path, methodNotAllowed('GET, POST'));
    app.post(path, readRawBody, mcpPostHandler(ctx, mcpTools));
  }

  opts.mount?.(app);

  app.use((req, res) => {
    sendError(res, new ApiError('not_found', `No route ${req.method} ${req.path}. See /llms.txt.`));
  });
  app.use(bodyErrors);
  const lastResort: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
    ctx.log.error({ err, requestId: res.locals.requestId }, 'unhandled error');
    if (!res.headersSent) sendError(res, toApiError(err));
  };
  app.use(lastResort);
  return app;
}

/** One generated value per origin (Host header), with a small bound since Host is client-chosen. */
function memoByOrigin<T>(make: (origin: string) => T, max = 16): (origin: string) => T {
  const cache = new Map<string, T>();
  return (origin) => {
    const hit = cache.get(origin);
    if (hit !== undefined) return hit;
    const value = make(origin);
    if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(origin, value);
    return value;
  };
}

/** Whether a concrete path matches a route template such as /campaigns/:campaignId. */
function matches(template: string, path: string): boolean {
  const a = template.split('/');
  const b = path.replace(/\/$/, '').split('/');
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
}
