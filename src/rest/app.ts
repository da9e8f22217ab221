import type { RequestListener } from 'node:http';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Ctx } from '../core/context.js';
import { ApiError, toApiError } from '../core/errors.js';
import { baseUrl, mcpPostHandler } from '../mcp/http.js';
import { oauthRouter } from '../mcp/oauth/router.js';
import type { Tool } from '../tools/define.js';
import type { ToolSets } from '../tools/select.js';
import { RateLimitReport } from '../core/ratelimit/report.js';
import { enforceRateLimits, errorHeaders, resolveCaller } from '../tools/pipeline.js';
import { bodyErrors, readRawBody, sendError } from './body.js';
import { llmsTxt, overview } from './discovery.js';
import { REST_PREFIX, restCredential, restRoutes } from './adapter.js';
import { openApiDocument } from './openapi.js';
import { referenceHtml } from './reference.js';
import { FrontDoor, LOOPBACK_HOSTS } from './front-door.js';
import { edgeRefusals } from './edge.js';
import { routeMatcher } from './routes.js';

export interface AppOptions {
  /** The address the server binds; loopback binds get Host-header (DNS rebinding) protection. */
  host: string;
  /** The tools MCP serves (after the config's tool selection); REST always serves every route. */
  mcpTools?: readonly Tool[];
  /** What MCP clients may add with `?toolsets=` or pick with `?tools=` (defaults to mcpTools). */
  mcpToolSets?: ToolSets;
  /** Routes of the network provider that receive its events (e.g. Unipile webhooks); key-less. */
  mount?: (app: Express) => void;
  /** The front door to share with the edge (see httpHandler); a fresh one otherwise. */
  front?: FrontDoor;
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
  const mcpTools = opts.mcpTools ?? tools.filter((t) => t.toolset === undefined);
  const mcpToolSets: ToolSets = opts.mcpToolSets ?? { universe: tools, base: {} };
  app.disable('x-powered-by');
  // A TLS proxy on the same machine makes the origin https (OAuth issuer, metadata URLs).
  app.set('trust proxy', 'loopback');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((opts.front ?? new FrontDoor(ctx, LOOPBACK_HOSTS.has(opts.host))).middleware());

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

  restRoutes(app, ctx, tools);
  const routes = tools.map((t) => ({ method: t.http.method, matches: routeMatcher(t.http.path) }));
  // Unknown /public/v1 routes still require a key first, then answer not_found. Every body is
  // read under the 128 KiB limit first, also for routes that turn out not to exist.
  const readBodyUnlessGet: RequestHandler = (req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? next() : readRawBody(req, res, next));
  app.use(REST_PREFIX, readBodyUnlessGet, (req, res) => {
    const report = new RateLimitReport();
    let error: ApiError;
    try {
      const caller = resolveCaller(ctx, restCredential(req), String(res.locals.requestId), { clientAddress: req.ip, report });
      // Every /public/v1 request counts against the key's global limit, a wrong path too.
      enforceRateLimits(ctx, caller, undefined);
      const known = routes.filter((r) => r.matches(req.path)).map((r) => r.method);
      const message = known.length
        ? `${req.method} is not supported on ${req.path}; use ${known.join(', ')}.`
        : `No route ${req.method} ${REST_PREFIX}${req.path}. See /llms.txt for the routes.`;
      error = new ApiError('not_found', message);
    } catch (err) {
      error = toApiError(err);
    }
    sendError(res, error, errorHeaders(error, report));
  });

  app.use(oauthRouter(ctx));
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/llms.txt', (req, res) => {
    res.type('text/plain; charset=utf-8').send(llmsTxt(req, ctx.env, mcpTools, mcpToolSets.universe));
  });
  app.get('/.well-known/mcp.json', (req, res) => {
    res.json(overview(req, ctx.env, mcpTools, mcpToolSets.universe));
  });
  for (const path of ['/', '/mcp']) {
    app.get(path, (req, res, next) => {
      if (wantsEventStream(req.get('accept'))) return methodNotAllowed('POST')(req, res, next);
      res.json(overview(req, ctx.env, mcpTools, mcpToolSets.universe));
    });
    app.delete(path, methodNotAllowed('GET, POST'));
    app.post(path, readRawBody, mcpPostHandler(ctx, mcpTools, { toolSets: mcpToolSets }));
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

/**
 * What the HTTP server runs: the edge's refusals first (./edge.ts), then the Express app, both
 * behind one front door, so they answer and log alike.
 */
export function httpHandler(ctx: Ctx, tools: readonly Tool[], opts: AppOptions): RequestListener {
  const front = opts.front ?? new FrontDoor(ctx, LOOPBACK_HOSTS.has(opts.host));
  const app = createApp(ctx, tools, { ...opts, front });
  const refusedAtEdge = edgeRefusals(ctx, tools, front);
  return (req, res) => {
    if (!refusedAtEdge(req, res)) app(req, res);
  };
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
