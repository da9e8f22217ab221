import { PROTOCOL_VERSION_META_KEY, type JSONRPCMessage, type MessageExtraInfo, type Transport } from '@modelcontextprotocol/server';
import { serveStdio as serveOverStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Ctx } from '../core/context.js';
import { newRequestId } from '../http/request.js';
import type { Tool } from '../tools/define.js';
import { toToolResult } from './results.js';
import { ConnectionLive } from './live.js';
import { keepProtoKey, malformedToolCall, mcpServer, offeredToKey, type McpScope } from './server.js';
import { authenticate } from '../tools/pipeline.js';
import { keyListing } from '../tools/select.js';
import { TaskRunner } from './tasks.js';

/**
 * The stdio transport, with one thing answered before the server sees it: a 2025-era tools/call
 * that the SDK would refuse with a JSON-RPC error of its own (see malformedToolCall) gets our
 * isError validation_error result, as it does over HTTP.
 */
class AnsweringStdio implements Transport {
  private readonly inner = new StdioServerTransport();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  async start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message) => {
      keepProtoKey(message);
      const refusal = legacyToolCall(message) ? malformedToolCall(message.params) : null;
      if (!refusal || !('id' in message) || message.id === undefined) return this.onmessage?.(message);
      this.inner
        .send({ jsonrpc: '2.0', id: message.id, result: toToolResult({ ok: false, error: refusal }) })
        .catch((err: unknown) => this.onerror?.(err as Error));
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

function legacyToolCall(message: JSONRPCMessage): message is JSONRPCMessage & { method: string; id: string | number; params?: unknown } {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return false;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.[PROTOCOL_VERSION_META_KEY] === undefined;
}

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
  const transport = new AnsweringStdio();
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
