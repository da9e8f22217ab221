import type { IncomingMessage, ServerResponse } from 'node:http';
import cors, { type CorsOptions } from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { localhostAllowedHostnames, validateHostHeader } from '@modelcontextprotocol/server';
import type { Ctx } from '../core/context.js';
import { accessLog, accessPath, type AccessLog } from '../log.js';
import { newRequestId } from './request.js';

export const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

const EXPOSED_HEADERS = ['Mcp-Session-Id', 'WWW-Authenticate', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id', 'Idempotent-Replayed'];

/** CORS for any origin: browser-based MCP clients (the Inspector) and REST callers alike. */
const corsOptions: CorsOptions = {
  origin: '*',
  methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  allowedHeaders: [
    'Content-Type',
    'Accept',
    'X-API-Key',
    'Authorization',
    'Mcp-Protocol-Version',
    'Mcp-Session-Id',
    'Idempotency-Key',
    'Last-Event-ID',
    'X-Request-Id',
    'Idempotent-Replayed',
  ],
  exposedHeaders: EXPOSED_HEADERS,
  maxAge: 600,
};
const EXPOSED = EXPOSED_HEADERS.join(',');

/** The most Host values remembered as accepted; Host is client-chosen. */
const MAX_ACCEPTED_HOSTS = 32;

/**
 * What every response carries, and what every request goes through first:
 * 1. a request id (or the caller's X-Request-Id), echoed back and in the access log line;
 * 2. on loopback binds, DNS-rebinding protection by the SDK's Host check, remembering the
 *    Host values it accepted (a client sends the same one every time);
 * 3. CORS: preflights are answered by the cors package; for every other request its answer
 *    is fixed (any origin, the exposed headers), so those two headers are set directly, the
 *    exposed headers only when the request names an Origin (`simpleCors`).
 * One instance serves the Express middleware and the edge (./edge.ts), so both give the same
 * headers and log lines and share what the Host check accepted.
 */
export class FrontDoor {
  private readonly access: AccessLog;
  private readonly allowedHosts = localhostAllowedHostnames();
  private readonly acceptedHosts = new Set<string>();
  private readonly preflight = cors(corsOptions);

  constructor(
    ctx: Ctx,
    /** Whether the server binds a loopback address, where the Host check applies. */
    private readonly loopback: boolean,
  ) {
    this.access = accessLog(ctx.log);
  }

  /** Whether a request's Host needs no check: not a loopback bind, or a Host accepted before. */
  hostKnownGood(req: IncomingMessage): boolean {
    const host = req.headers.host;
    return !this.loopback || (host !== undefined && this.acceptedHosts.has(host));
  }

  /** Gives the request its id (header and return value) and its access-log line when it finishes. */
  begin(req: IncomingMessage, res: ServerResponse, tool: () => string | undefined): string {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : newRequestId();
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    res.on('finish', () => {
      this.access.request({
        requestId: id,
        method: req.method,
        path: accessPath((req as Partial<Request>).originalUrl?.split('?')[0] ?? req.url?.split('?')[0] ?? ''),
        status: res.statusCode,
        tool: tool(),
        ms: performance.now() - started,
      });
    });
    return id;
  }

  /**
   * The CORS headers of every request that is not a preflight. Any origin may read every
   * answer, so `Access-Control-Allow-Origin: *` goes on all of them, and an answer a cache kept
   * from a request without an Origin still reaches a browser. The list of headers a page's
   * script may read goes only where a browser asked: a cross-origin request always carries an
   * Origin, and the list is the longest header of a short answer (bench/METHOD.md).
   */
  simpleCors(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.headers.origin !== undefined) res.setHeader('Access-Control-Expose-Headers', EXPOSED);
  }

  /** The Express middleware: one layer, because each Express layer costs a measurable share of a short request. */
  middleware(): RequestHandler {
    const admitted = (req: Request, res: Response, next: NextFunction): void => {
      if (req.method === 'OPTIONS') return this.preflight(req, res, next);
      this.simpleCors(req, res);
      next();
    };
    return (req, res, next) => {
      res.locals.requestId = this.begin(req, res, () => res.locals.tool);
      if (this.hostKnownGood(req)) return admitted(req, res, next);
      const host = req.headers.host;
      const checked = validateHostHeader(host, this.allowedHosts);
      // The SDK's own refusal (its hostHeaderValidationResponse): 403 with a JSON-RPC error.
      if (!checked.ok) return void res.status(403).json({ jsonrpc: '2.0', error: { code: -32000, message: checked.message }, id: null });
      if (host !== undefined && this.acceptedHosts.size < MAX_ACCEPTED_HOSTS) this.acceptedHosts.add(host);
      admitted(req, res, next);
    };
  }
}
