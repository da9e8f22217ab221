import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ctx } from '../core/context.js';
import { sendError } from '../http/body.js';
import type { FrontDoor } from '../http/front-door.js';
import type { Tool } from '../tools/define.js';
import { peekRefusal } from '../tools/pipeline.js';
import { REST_PREFIX } from './adapter.js';
import { routeParser } from './routes.js';

/** The paths the edge looks at: ids and words only, with nothing for Express to decode first. */
const PLAIN_PATH = /^\/public\/v1(?:\/[A-Za-z0-9_-]+)+\/?$/;

/**
 * Refusals at the edge, before Express. A key that floods the API is refused on every request
 * while its bucket refills; answering those 429s without Express's per-request work keeps a
 * flood cheap for the server. The edge answers only what it can answer exactly as the pipeline
 * would, and hands everything else to Express untouched:
 * - only while some bucket is empty (one comparison otherwise), and only body-less GET requests
 *   on plain /public/v1 paths, with an X-API-Key, no X-Forwarded-For (the client address is then
 *   the socket's, as Express's trust-proxy setting would also find), and a Host the front door
 *   accepted before;
 * - only when the pipeline's own admission stages (tools/pipeline.ts), run in its order with
 *   nothing charged, end in a refusal of the rate_limit stage. A refusal charges nothing in the
 *   pipeline either, so the answer is the pipeline's, with the same headers.
 * The response is the one the REST face sends, with the same access-log line.
 * `test/rest/edge.test.ts` compares the two.
 *
 * The edge keeps no route table of its own: its routes are the registry's GET tools, matched by
 * `routeParser` (./routes.ts), which is path-to-regexp with the options Express's router gives
 * the same templates. Without it, a flood's 429s cost what a served request costs: measured at
 * 37% of bare Express's throughput, against 97% with it (bench/METHOD.md).
 */
export function edgeRefusals(ctx: Ctx, tools: readonly Tool[], front: FrontDoor): (req: IncomingMessage, res: ServerResponse) => boolean {
  const routes = tools.filter((t) => t.http.method === 'GET').map((tool) => ({ tool, matches: routeParser(tool.http.path).matches }));

  return (req, res) => {
    if (req.method !== 'GET' || !ctx.limits.mayRefuse()) return false;
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key === '' || req.headers['x-forwarded-for'] !== undefined) return false;
    // A body is read (and may be refused as too large) before anything else in Express.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
    const path = req.url?.split('?')[0] ?? '';
    if (!path.startsWith(REST_PREFIX) || !PLAIN_PATH.test(path) || !front.hostKnownGood(req)) return false;
    const address = req.socket.remoteAddress;
    if (address === undefined) return false;

    const relative = path.slice(REST_PREFIX.length);
    const tool = routes.find((r) => r.matches(relative))?.tool;
    const refusal = peekRefusal(ctx, { apiKey: key }, address, tool);
    if (refusal?.stage !== 'rate_limit') return false;

    front.begin(req, res, () => tool?.name);
    front.simpleCors(req, res);
    sendError(res, refusal.error, refusal.headers);
    return true;
  };
}
