import type { JSONRPCMessage, JSONRPCRequest, JSONRPCResponse, MessageExtraInfo, RequestId, ServerContext, Transport } from '@modelcontextprotocol/server';
import type { McpScope } from './server.js';

/**
 * Calls `gone` once when the client goes away (at once if it has already), and returns the call
 * that stops listening.
 */
export type WhenGone = (gone: () => void) => () => void;

/** A WhenGone of an abort signal. */
export function whenAborted(signal: AbortSignal): WhenGone {
  return (gone) => {
    if (signal.aborted) {
      gone();
      return () => undefined;
    }
    signal.addEventListener('abort', gone, { once: true });
    return () => signal.removeEventListener('abort', gone);
  };
}

interface Pending {
  /** The id the client gave the request, restored on its reply. */
  id: RequestId;
  scope: McpScope;
  resolve: (reply: JSONRPCResponse | undefined) => void;
}

/**
 * One in-process connection (the SDK's documented custom `Transport`) over which the plain HTTP
 * calls of every caller reach one long-lived server instance, as one stdio connection carries one
 * client's calls; the SDK's `serveStdio` serves it (see http.ts, sharedInstance).
 *
 * Every HTTP client counts its own request ids, so ids are renumbered on the way in and restored
 * on the way out, and each request's scope (its caller, the tools it is offered) is found by that
 * id (`scopeFor`): the instance holds nothing of any caller. A request whose client goes away is
 * cancelled as a client would cancel it (`notifications/cancelled`), which aborts its handler's
 * signal, and its exchange settles with no reply. Notifications and server-to-client requests have
 * no exchange to ride on and are dropped: only calls that send none come this way.
 */
export class CallChannel implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private next = 0;
  private readonly pending = new Map<number, Pending>();

  async start(): Promise<void> {}

  /**
   * Delivers one request for `scope` and resolves with its reply under the request's own id, or
   * with undefined when the client goes away first (`whenGone`) or the channel closes.
   */
  exchange(request: JSONRPCRequest, scope: McpScope, whenGone: WhenGone): Promise<JSONRPCResponse | undefined> {
    const deliver = this.onmessage;
    if (!deliver) return Promise.reject(new Error('The MCP call channel is not connected to a server.'));
    const id = ++this.next;
    return new Promise((resolve) => {
      let delivered = false;
      let stop = (): void => undefined;
      const gone = () => {
        if (!this.pending.delete(id)) return;
        resolve(undefined);
        if (delivered) deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'The client closed the connection.' } });
      };
      this.pending.set(id, {
        id: request.id,
        scope,
        resolve: (reply) => {
          stop();
          resolve(reply);
        },
      });
      stop = whenGone(gone);
      // Gone already: nothing was delivered, so nothing is cancelled.
      if (!this.pending.has(id)) return;
      delivered = true;
      deliver({ ...request, id });
    });
  }

  /** The scope of the request a handler of the shared instance serves. */
  scopeFor = (rc: ServerContext): McpScope => {
    const scope = typeof rc.mcpReq.id === 'number' ? this.pending.get(rc.mcpReq.id)?.scope : undefined;
    if (!scope) throw new Error('An MCP request reached the shared server without the scope its authentication gave it.');
    return scope;
  };

  async send(message: JSONRPCMessage): Promise<void> {
    // A reply (the instance writes only well-formed messages, so no schema check is needed).
    if (!('id' in message) || !('result' in message || 'error' in message)) return;
    const id = message.id;
    const pending = typeof id === 'number' ? this.pending.get(id) : undefined;
    // A reply to a cancelled request has no one left to read it.
    if (!pending) return;
    this.pending.delete(id as number);
    pending.resolve({ ...message, id: pending.id } as JSONRPCResponse);
  }

  async close(): Promise<void> {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.resolve(undefined);
    this.onclose?.();
  }
}
