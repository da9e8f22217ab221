import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import type { Ctx } from '../core/context.js';
import { ApiError, toApiError } from '../core/errors.js';
import type { Tool } from '../tools/define.js';
import { bodyErrors, readRawBody, sendError } from './body.js';
import { llmsTxt, overview } from './discovery.js';
import { FrontDoor, LOOPBACK_HOSTS } from './front-door.js';
import { oauthRouter } from './oauth/router.js';
import { TRUST_PROXY_SETTING } from './request.js';
import { mountProviderWebhook, type ProviderWebhook } from './webhooks.js';
import { mountUnsubscribe } from './unsubscribe.js';

/**
 * A handler that may answer a request before Express (returns true when it did). It must
 * answer exactly as the app would; the host runs it behind the same front door.
 */
export type EdgeHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** What the host lends a face while it mounts. */
export interface HostServices {
  readonly front: FrontDoor;
  /** Registers a handler to run before Express, in mount order. */
  edge(handler: EdgeHandler): void;
}

/** A face (REST, MCP, the dashboard): registers its routes on the one app. */
export type Mount = (app: Express, host: HostServices) => void;

export interface HostOptions {
  /** The address the server binds; loopback binds get Host-header (DNS rebinding) protection. */
  host: string;
  /** The faces, mounted in this order after the front door and before the host's own routes. */
  mounts: readonly Mount[];
  /** The tools MCP serves (after the config's tool selection), which discovery lists. */
  mcpTools: readonly Tool[];
  /** Every tool MCP clients may reach (toolsets included), which discovery lists by toolset. */
  mcpPermitted?: readonly Tool[];
  /** Endpoints of the network provider that receive its events (e.g. Unipile webhooks); key-less. */
  webhooks?: readonly ProviderWebhook[];
  /**
   * A reverse proxy on this machine is configured (Settings.trustProxy): X-Forwarded-For from
   * loopback names the client. Off (the default), the client is the connection's peer.
   */
  trustProxy?: boolean;
  /** The front door to use; a fresh one otherwise (tests share one between two hosts). */
  front?: FrontDoor;
}

export interface Host {
  app: Express;
  /** What the HTTP server runs: the faces' edge handlers first, then the app. */
  handler: RequestListener;
}

/**
 * The host's answer to an error a route passed on: a body it could not read is answered as the
 * body errors say (413, or 400 naming the body); anything else is logged and answered by its
 * error body, unless the response has begun (the last resort). The app's error handler and an
 * edge that runs a route's handler itself (src/mcp/edge.ts) both answer with it.
 */
export function answerRouteError(ctx: Ctx, err: unknown, req: Request, res: Response, requestId: unknown): void {
  bodyErrors(err, req, res, (rest?: unknown) => {
    ctx.log.error({ err: rest, requestId }, 'unhandled error');
    if (!res.headersSent) sendError(res, toApiError(rest));
  });
}

/**
 * The one HTTP host: the front door (request id, access log, Host check, CORS), the faces in
 * order, then OAuth, `/health`, discovery (`/llms.txt`, `/.well-known/mcp.json`, the overview at
 * GET / and /mcp), the provider webhooks, the one-click unsubscribe of emails, and the answers of last resort (404, body errors, 503).
 */
export function createHost(ctx: Ctx, opts: HostOptions): Host {
  const app = express();
  app.disable('x-powered-by');
  // A TLS proxy on the same machine makes the origin https (OAuth issuer, metadata URLs).
  app.set('trust proxy', 'loopback');
  app.set(TRUST_PROXY_SETTING, opts.trustProxy === true);
  app.set('etag', false);
  app.set('query parser', 'simple');

  const front = opts.front ?? new FrontDoor(ctx, LOOPBACK_HOSTS.has(opts.host));
  app.use(front.middleware());
  const edges: EdgeHandler[] = [];
  const services: HostServices = { front, edge: (handler) => void edges.push(handler) };
  for (const mount of opts.mounts) mount(app, services);

  const mcpTools = opts.mcpTools;
  const permitted = opts.mcpPermitted ?? mcpTools;
  app.use(oauthRouter(ctx));
  // GET routes read (and so bound) a body too: one over 128 KiB is 413 on every route.
  app.get('/health', readRawBody, (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/llms.txt', readRawBody, (req, res) => {
    res.type('text/plain; charset=utf-8').send(llmsTxt(req, ctx.env, mcpTools, permitted));
  });
  app.get('/.well-known/mcp.json', readRawBody, (req, res) => {
    res.json(overview(req, ctx.env, mcpTools, permitted));
  });
  for (const path of ['/', '/mcp']) {
    app.get(path, readRawBody, (req, res) => {
      res.json(overview(req, ctx.env, mcpTools, permitted));
    });
  }
  for (const webhook of opts.webhooks ?? []) mountProviderWebhook(app, webhook);
  mountUnsubscribe(app, ctx);

  app.use((req, res) => {
    sendError(res, new ApiError('not_found', `No route ${req.method} ${req.path}. See /llms.txt.`));
  });
  const routeErrors: ErrorRequestHandler = (err: unknown, req, res, _next) => answerRouteError(ctx, err, req, res, res.locals.requestId);
  app.use(routeErrors);

  const handler: RequestListener =
    edges.length === 0
      ? app
      : (req, res) => {
          for (const edge of edges) if (edge(req, res)) return;
          app(req, res);
        };
  return { app, handler };
}
