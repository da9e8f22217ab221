import type { ErrorRequestHandler, Express } from 'express';
import type { Ctx } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { readRawBody, sendError } from '../http/body.js';
import type { HostServices } from '../http/host.js';
import { baseUrl } from '../http/request.js';
import type { Tool } from '../tools/define.js';
import { admitRoute, errorHeaders } from '../tools/pipeline.js';
import { authenticateRest, REST_PREFIX, restRoutes, sendOutcome } from './adapter.js';
import { edgeRefusals } from './edge.js';
import { openApiDocument } from './openapi.js';
import { referenceHtml } from './reference.js';
import { routeParser } from './routes.js';

/**
 * The REST face under /public/v1: the API description (key-less, like the discovery URLs: a
 * client reads it before it has a key), one route per tool, the answer for routes that do not
 * exist, and the edge's refusals (./edge.ts). Every request's body is read under the 128 KiB
 * limit first, GET requests and routes that turn out not to exist included.
 */
export function mountRest(app: Express, host: HostServices, ctx: Ctx, tools: readonly Tool[]): void {
  const openApi = memoByOrigin((origin) => openApiDocument(tools, origin));
  app.get('/public/v1/openapi.json', readRawBody, (req, res) => {
    res.json(openApi(baseUrl(req)));
  });
  app.get('/public/v1/docs', readRawBody, (req, res) => {
    res
      .set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .type('html')
      .send(referenceHtml(openApi(baseUrl(req)), { openapi: '/public/v1/openapi.json', llms: '/llms.txt' }));
  });

  const handlers = restRoutes(app, ctx, tools);
  const routes = tools.map((t) => ({ method: t.http.method, matches: routeParser(t.http.path).matches }));

  // Unknown /public/v1 routes still require a key first, then answer not_found.
  app.use(REST_PREFIX, readRawBody, (req, res) => {
    const auth = authenticateRest(ctx, req, res);
    if (!auth.ok) return sendOutcome(res, auth);
    const refused = admitRoute(ctx, auth.caller);
    if (refused) return sendOutcome(res, refused);
    const known = routes.filter((r) => r.matches(req.path)).map((r) => r.method);
    const message = known.length
      ? `${req.method} is not supported on ${req.path}; use ${known.join(', ')}.`
      : `No route ${req.method} ${REST_PREFIX}${req.path}. See /llms.txt for the routes.`;
    const error = new ApiError('not_found', message);
    sendError(res, error, errorHeaders(error, auth.caller.rateLimits));
  });

  // A path parameter Express cannot decode (`/campaigns/%ff`, not UTF-8) fails before the
  // route runs. It is a malformed id like any other: the route runs with the segment as sent,
  // and the tool's validation names it.
  const undecodable: ErrorRequestHandler = (err: unknown, req, res, next) => {
    if (!(err instanceof URIError) || (err as { status?: unknown }).status !== 400) return next(err);
    const route = handlers.find((h) => h.method === req.method && h.matches(req.path));
    if (!route) return next(err);
    req.params = route.params(req.path);
    readRawBody(req, res, (readErr?: unknown) => (readErr ? next(readErr) : void route.handler(req, res)));
  };
  app.use(REST_PREFIX, undecodable);

  host.edge(edgeRefusals(ctx, tools, host.front));
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
