import type { Express, RequestHandler } from 'express';
import type { Ctx } from '../core/context.js';
import { readingBody, readRawBody } from '../http/body.js';
import { baseUrl } from '../http/request.js';
import type { HostServices } from '../http/host.js';
import type { Tool } from '../tools/define.js';
import type { ToolSets } from '../tools/select.js';
import { serverCard } from './card.js';
import { expressRequest, expressRoute, mcpPostHandler, mcpStreamHandler, methodNotAllowedBody } from './http.js';
import { mcpEdge } from './edge.js';
import { KeyedLive } from './live.js';

const methodNotAllowed =
  (allow: string): RequestHandler =>
  (_req, res) => {
    res
      .status(405)
      .set('Allow', allow)
      .json(methodNotAllowedBody(`use ${allow}.`));
  };

const wantsEventStream = (accept: string | undefined): boolean => (accept ?? '').includes('text/event-stream');

/**
 * The MCP face: streamable HTTP (stateless, JSON responses) at / and /mcp. A GET asking for
 * an event stream opens the key's stream of resource updates (2025 revisions; see
 * ./live.ts); any other GET falls through to the host's overview. `tools` is the MCP tool set
 * after the config's selection.
 */
export function mountMcp(app: Express, host: HostServices, ctx: Ctx, tools: readonly Tool[], toolSets?: ToolSets): void {
  const live = new KeyedLive(ctx);
  const handle = mcpPostHandler(ctx, tools, { toolSets, live });
  const stream = mcpStreamHandler(ctx, live);
  const post = expressRoute(handle);
  // Most POSTs are answered before Express, by the same handler (see ./edge.ts).
  host.edge(mcpEdge(ctx, host.front, handle));
  // The Server Card: at the well-known path, and at the one the card's own draft reserves.
  app.get(['/.well-known/mcp/server-card.json', '/mcp/server-card'], readRawBody, (req, res) => {
    res.json(serverCard(baseUrl(req), ctx.env, tools, toolSets?.universe));
  });
  // One router layer per path, and the POST's body read and handler as one (see readingBody):
  // each layer Express walks costs a share of a short call.
  for (const path of ['/', '/mcp']) {
    app
      .route(path)
      .get((req, res, next) => {
        if (wantsEventStream(req.get('accept'))) return stream(expressRequest(req, res), res);
        next();
      })
      .delete(methodNotAllowed('GET, POST'))
      .post(readingBody(post));
  }
}
