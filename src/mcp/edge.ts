import type { ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Request, Response } from 'express';
import type { Ctx } from '../core/context.js';
import { readingBody } from '../http/body.js';
import type { FrontDoor } from '../http/front-door.js';
import { answerRouteError, type EdgeHandler } from '../http/host.js';
import { mcpRequest, type McpHttpRequest } from './http.js';

/** The paths MCP answers POSTs on; nothing else shares them. */
const MCP_PATHS = new Set(['/mcp', '/']);

/**
 * MCP POSTs before Express. A call is one JSON-RPC exchange on two fixed paths, and Express's
 * own per-request work (its request and response objects, the router) was about half of a plain
 * call's server time: with it, both eras ran under half of REST's throughput (bench/METHOD.md,
 * "MCP before Express"). The edge takes only requests it answers exactly as the Express route
 * would, and leaves every other to Express untouched:
 * - a POST to `/mcp` or `/` with no query string (the route's only input beyond the body);
 * - a Host the front door accepted before, and no `X-Forwarded-*` header (the client's address
 *   and scheme are then the socket's, as Express's settings would also find);
 * - a key or a bearer token.
 * The body is read by the route's own reader (`readingBody`, body-parser under the 128 KiB
 * limit), its failures and the handler's are answered as the host answers them
 * (`answerRouteError`), and the handler is the route's own (`mcpPostHandler`), so the answers
 * are the same; `test/mcp/edge.test.ts` compares the two.
 */
export function mcpEdge(ctx: Ctx, front: FrontDoor, handle: (req: McpHttpRequest, res: ServerResponse) => Promise<void>): EdgeHandler {
  return (req, res) => {
    if (req.method !== 'POST' || !MCP_PATHS.has(req.url ?? '')) return false;
    const h = req.headers;
    if (h['x-forwarded-for'] !== undefined || h['x-forwarded-proto'] !== undefined || h['x-forwarded-host'] !== undefined) return false;
    const key = h['x-api-key'];
    if ((typeof key !== 'string' || key === '') && !/^Bearer[ \t]/i.test(h.authorization ?? '')) return false;
    if (!front.hostKnownGood(req)) return false;

    const requestId = front.begin(req, res, () => undefined);
    front.simpleCors(req, res);
    const url = req.url as string;
    const origin = () => `${(req.socket as Partial<TLSSocket>).encrypted ? 'https' : 'http'}://${h.host ?? 'localhost'}`;
    // body-parser reads a bare node request as it reads Express's (it is connect middleware).
    const expressReq = req as Request;
    const expressRes = res as Response;
    // A body that could not be read, or a handler that threw: answered as the host answers them.
    const failed = (err?: unknown) => answerRouteError(ctx, err, expressReq, expressRes, requestId);
    const route = readingBody((read) =>
      handle(
        mcpRequest(
          res,
          { header: (name) => single(h[name.toLowerCase()]), ip: req.socket.remoteAddress, query: {}, url, raw: read.body as unknown, requestId },
          origin,
        ),
        res,
      ).catch(failed),
    );
    route(expressReq, expressRes, failed);
    return true;
  };
}

/** A header as Express's `req.get` gives it: several values joined. */
const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);
