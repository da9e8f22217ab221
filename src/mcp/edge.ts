import type { IncomingMessage, ServerResponse } from 'node:http';
import { validationError } from '../core/errors.js';
import { contentTypeProblem, MAX_BODY_BYTES, sendError } from '../http/body.js';
import type { FrontDoor } from '../http/front-door.js';
import type { EdgeHandler } from '../http/host.js';
import type { McpHttpRequest } from './http.js';

/** The paths MCP answers POSTs on; nothing else shares them. */
const MCP_PATHS = new Set(['/mcp', '/']);

/**
 * MCP POSTs before Express. An MCP call is one JSON-RPC exchange on two fixed paths, and the
 * SDK's per-request work already costs twice a REST call; Express's own per-request work (the
 * router, its request and response objects, the body parser) is another third of that. The
 * edge takes only requests it answers exactly as the Express route would, and leaves every
 * other to Express untouched:
 * - a POST to `/mcp` or `/` with no query string (the route's only input beyond the body);
 * - a Host the front door accepted before, and no `X-Forwarded-*` header (the client address
 *   and scheme are then the socket's, as Express's trust-proxy setting would also find);
 * - a JSON Content-Type and a Content-Length within the body limit (Express's body parser
 *   answers an over-long or chunked body, or another media type);
 * - a key or a bearer token (Express answers the key-less 401, with its challenge).
 * The handler is the route's own (`mcpPostHandler`), so the answers are the same;
 * `test/mcp/edge.test.ts` compares the two.
 */
export function mcpEdge(front: FrontDoor, handle: (req: McpHttpRequest, res: ServerResponse) => Promise<void>): EdgeHandler {
  return (req, res) => {
    if (req.method !== 'POST' || !MCP_PATHS.has(req.url ?? '')) return false;
    const h = req.headers;
    if (h['x-forwarded-for'] !== undefined || h['x-forwarded-proto'] !== undefined || h['x-forwarded-host'] !== undefined) return false;
    if (h['transfer-encoding'] !== undefined || contentTypeProblem(h['content-type']) !== null) return false;
    const length = Number(h['content-length']);
    if (!Number.isInteger(length) || length <= 0 || length > MAX_BODY_BYTES) return false;
    const key = h['x-api-key'];
    if ((typeof key !== 'string' || key === '') && !/^Bearer[ \t]/i.test(h.authorization ?? '')) return false;
    if (!front.hostKnownGood(req)) return false;

    const requestId = front.begin(req, res, () => undefined);
    front.simpleCors(res);
    const closed = new AbortController();
    res.on('close', () => closed.abort());
    readBody(req, length).then(
      (raw) =>
        handle(
          {
            header: (name) => single(h[name.toLowerCase()]),
            ip: req.socket.remoteAddress,
            query: {},
            origin: `http://${h.host}`,
            url: req.url as string,
            raw,
            requestId,
            closed: closed.signal,
          },
          res,
        ),
      // As Express's body errors answer a body that could not be read.
      () => sendError(res, validationError('The request body could not be read. Send JSON with Content-Type: application/json.', [])),
    );
    return true;
  };
}

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** The body the Content-Length announced, and not a byte more or less. */
function readBody(req: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > length) {
        req.destroy();
        reject(new Error('the body is longer than its Content-Length'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => (received === length ? resolve(Buffer.concat(chunks, length)) : reject(new Error('the body is shorter than its Content-Length'))));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('the request was aborted')));
  });
}
