import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  ProtocolErrorCode,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { serveStdio as serveOverStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Reach } from '../core/auth/scope.js';
import type { Ctx } from '../core/context.js';
import type { ApiError } from '../core/errors.js';
import { bodyTooLarge, MAX_BODY_BYTES } from '../http/body.js';
import { newRequestId } from '../http/request.js';
import type { Tool } from '../tools/define.js';
import { ConnectionLive, narrowListen } from './live.js';
import { LegacyRules, mcpServer, offeredToKey, RelayTransport, type McpScope } from './server.js';
import { authenticate } from '../tools/pipeline.js';
import { keyListing } from '../tools/select.js';
import { TaskRunner } from './tasks.js';

/**
 * MCP over stdio with the key from OUTREACH_API_KEY, in whichever era the client opens with:
 * an `initialize` pins the connection to the 2025 revisions, a request carrying the 2026-07-28
 * `_meta` envelope (server/discover first, as clients probe) to that revision. The key is
 * checked on every call, so a revoked key stops working at once; stdout carries protocol
 * messages only. Its live updates check it too: when it stops authenticating (revoked by the
 * CLI, the dashboard or a server, or expired), its subscriptions end with the next batch of
 * changes (the revocation is one), one line on stderr says so, and the process stays up
 * refusing every call with the key's error, as the HTTP endpoint does (docs/decisions.md).
 */
export async function serveStdio(ctx: Ctx, tools: readonly Tool[], apiKey: string, universe: readonly Tool[] = tools): Promise<void> {
  // A scoped key lists only its tools; every call is still checked by the pipeline.
  const who = authenticate(ctx, { apiKey }, { requestId: newRequestId() });
  const reach = who.ok ? who.caller.reach : null;
  const offered = offeredToKey(tools, keyListing(tools, universe, reach));
  const tasks = new TaskRunner(ctx);
  const transport = new KeyedStdio(new LegacyRules(new StdioServerTransport()), reach);
  const live = new ConnectionLive(
    ctx,
    {
      refusal: () => {
        const auth = authenticate(ctx, { apiKey }, { requestId: newRequestId() });
        return auth.ok ? null : auth.error;
      },
      ended: (refusal) => {
        transport.endListens(refusal);
        process.stderr.write(
          `outreach mcp: the API key no longer works (${refusal.message}); its resource subscriptions have ended and every call is refused. Restart with a valid OUTREACH_API_KEY.\n`,
        );
      },
    },
    reach,
  );
  const scope: McpScope = {
    offered,
    live,
    get entrant() {
      return { credential: { apiKey }, requestId: newRequestId() };
    },
  };
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

/**
 * The connection's transport, which keeps the ids of its open 2026-07-28
 * `subscriptions/listen` requests (the SDK's stdio entry serves them) so that a key that stops
 * authenticating can end them: the entry is told each one was cancelled (it then delivers
 * nothing more for it), and the client gets the key's error as the listen request's answer,
 * which the v2 client reads as the server closing the subscription. A listen opened after
 * that is refused the same way.
 */
class KeyedStdio extends RelayTransport {
  private readonly listens = new Set<RequestId>();
  private refusal: ApiError | undefined;

  /** `reach`: the key's, so a listen honours only the campaigns it may hear of (narrowListen). */
  constructor(
    inner: Transport,
    private readonly reach: Reach | null | undefined,
  ) {
    super(inner);
  }

  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // A listen's answer (its graceful close, or its refusal) ends it.
    if ('id' in message && ('result' in message || 'error' in message)) this.listens.delete(message.id as RequestId);
    return this.inner.send(message, options);
  }

  /** Ends every open listen with the key's refusal, and refuses the ones to come. */
  endListens(refusal: ApiError): void {
    this.refusal = refusal;
    for (const id of this.listens) {
      this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: refusal.message } });
      this.refuse(id, refusal);
    }
    this.listens.clear();
  }

  protected override receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    // The body limit of HTTP holds per message here: a request over it is refused, as a
    // JSON-RPC error carrying the API's error (details.maxBytes), and never reaches a tool.
    if (isJSONRPCRequest(message) && overLimit(message)) return this.refuse(message.id, bodyTooLarge());
    if (isJSONRPCRequest(message) && message.method === 'subscriptions/listen') {
      if (this.refusal) return this.refuse(message.id, this.refusal);
      narrowListen(message, this.reach);
      this.listens.add(message.id);
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.listens.delete(requestId);
    }
    this.onmessage?.(message, extra);
  }

  private refuse(id: RequestId, refusal: ApiError): void {
    this.inner
      .send({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidRequest, message: refusal.message, data: refusal.toBody() } })
      .catch((err: unknown) => this.onerror?.(err as Error));
  }
}

/**
 * Whether a message is larger than the body limit, as its JSON (the line a client wrote, less
 * any spacing between tokens). A small message is known to be under it without being written out.
 */
function overLimit(message: JSONRPCRequest): boolean {
  if (message.params === undefined) return false;
  let json: string;
  try {
    json = JSON.stringify(message);
  } catch {
    // Nested too deep to write out: the arguments' own depth check refuses it, with its name.
    return false;
  }
  // No character takes more than three bytes in UTF-8 (a pair of surrogates, four, is two characters).
  return json.length * 3 > MAX_BODY_BYTES && Buffer.byteLength(json) > MAX_BODY_BYTES;
}
