import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateKey } from '../core/auth/keys.js';
import type { Ctx } from '../core/context.js';
import { BLOCKED_PLANS, getWorkspace } from '../core/workspace/get.js';
import type { Tool } from '../tools/define.js';
import { errorHeaders } from '../tools/pipeline.js';
import { RateLimitReport } from '../core/ratelimit/report.js';
import { REST_PREFIX } from './adapter.js';
import { sendError } from './body.js';
import type { FrontDoor } from './front-door.js';
import { routeMatcher } from './routes.js';

/** The paths the edge looks at: ids and words only, so its matching cannot differ from Express's. */
const PLAIN_PATH = /^\/public\/v1(?:\/[A-Za-z0-9_-]+)+\/?$/;

/**
 * Refusals at the edge, before Express. A key that floods the API is refused on every request
 * while its bucket refills; answering those 429s without Express's per-request work keeps a
 * flood cheap for the server. The edge answers only what it can answer exactly as the pipeline
 * would, and hands everything else to Express untouched:
 * - only while some bucket is empty (one comparison otherwise), and only GET requests on plain
 *   /public/v1 paths, with an X-API-Key, no X-Forwarded-For (the client address is then the
 *   socket's, as Express's trust-proxy setting would also find), and a Host the front door
 *   accepted before;
 * - only when the pipeline's own stages, in its order, end in a rate-limit refusal: the failed-
 *   authentication guard passes, the key is valid, the plan may use the API, the tool's plan
 *   gate passes, and the key's buckets (global and the route's class) refuse. The buckets are
 *   only peeked; a refusal charges nothing either way, so the answer is the pipeline's.
 * The response is the one the REST adapter sends: the same status, body and headers, and the
 * same access-log line. `test/rest/edge.test.ts` compares the two.
 */
export function edgeRefusals(ctx: Ctx, tools: readonly Tool[], front: FrontDoor): (req: IncomingMessage, res: ServerResponse) => boolean {
  const routes = tools.filter((t) => t.http.method === 'GET').map((tool) => ({ tool, matches: routeMatcher(tool.http.path) }));

  return (req, res) => {
    if (req.method !== 'GET' || !ctx.limits.mayRefuse()) return false;
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key === '' || req.headers['x-forwarded-for'] !== undefined) return false;
    const path = req.url?.split('?')[0] ?? '';
    if (!path.startsWith(REST_PREFIX) || !PLAIN_PATH.test(path) || !front.hostKnownGood(req)) return false;
    const address = req.socket.remoteAddress;
    if (address === undefined || !ctx.limits.authGuard(address).ok) return false;

    let keyId: string;
    try {
      keyId = authenticateKey(ctx, key).keyId;
    } catch {
      return false;
    }
    const workspace = getWorkspace(ctx);
    if (!workspace || BLOCKED_PLANS.has(workspace.plan)) return false;
    const relative = path.slice(REST_PREFIX.length);
    const tool = routes.find((r) => r.matches(relative))?.tool;
    if (tool?.planGate?.(ctx, workspace)) return false;
    const admission = ctx.limits.peekCall(keyId, tool?.rateLimit);
    if (admission.ok) return false;

    front.begin(req, res, () => tool?.name);
    front.simpleCors(res);
    const error = ctx.limits.refusal(admission);
    const report = new RateLimitReport();
    report.add(...admission.states);
    sendError(res, error, errorHeaders(error, report));
    return true;
  };
}
