import { serveStdio as serveOverStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Ctx } from '../core/context.js';
import { newRequestId } from '../http/request.js';
import type { Tool } from '../tools/define.js';
import { ConnectionLive } from './live.js';
import { LegacyRules, mcpServer, offeredToKey, type McpScope } from './server.js';
import { authenticate } from '../tools/pipeline.js';
import { keyListing } from '../tools/select.js';
import { TaskRunner } from './tasks.js';

/**
 * MCP over stdio with the key from OUTREACH_API_KEY, in whichever era the client opens with:
 * an `initialize` pins the connection to the 2025 revisions, a request carrying the 2026-07-28
 * `_meta` envelope (server/discover first, as clients probe) to that revision. The key is
 * checked on every call, so a revoked key stops working at once; stdout carries protocol
 * messages only.
 */
export async function serveStdio(ctx: Ctx, tools: readonly Tool[], apiKey: string, universe: readonly Tool[] = tools): Promise<void> {
  // A scoped key lists only its tools; every call is still checked by the pipeline.
  const who = authenticate(ctx, { apiKey }, { requestId: newRequestId() });
  const offered = offeredToKey(tools, keyListing(tools, universe, who.ok ? who.caller.reach : null));
  const tasks = new TaskRunner(ctx);
  const live = new ConnectionLive(ctx);
  const scope: McpScope = {
    offered,
    live,
    get entrant() {
      return { credential: { apiKey }, requestId: newRequestId() };
    },
  };
  const transport = new LegacyRules(new StdioServerTransport());
  const closed = new Promise<void>((resolve) => {
    process.stdin.on('end', resolve);
    process.stdin.on('close', resolve);
  });
  const handle = serveOverStdio(
    ({ era }) => {
      const server = mcpServer(ctx, scope, { era, tasks });
      live.attach(server, era);
      return server;
    },
    {
      transport,
      onerror: (err) => ctx.log.debug({ err }, 'mcp stdio message refused'),
    },
  );
  await closed;
  live.close();
  await handle.close();
}
