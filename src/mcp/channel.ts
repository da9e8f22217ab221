import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type MessageExtraInfo,
  type RequestId,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import type { McpScope } from './server.js';

interface Pending {
  id: RequestId;
  scope: McpScope;
  resolve: (reply: JSONRPCResponse) => void;
  reject: (err: Error) => void;
}

/**
 * One in-process connection (the SDK's documented custom `Transport`) that carries HTTP calls
 * of many callers to one long-lived server instance, as a stdio connection carries one
 * client's calls. It is used only for requests whose answer depends on the request and its
 * caller alone, never on the connection (see http.ts). Request ids are renumbered on the way
 * in, since every HTTP client counts its own, and restored on the way out; each request's
 * scope (caller, offered tools) is found by that id (`scopeFor`). Notifications and
 * server-to-client requests have no HTTP exchange left to ride on and are dropped, as the
 * SDK's per-request transport drops them in JSON mode.
 */
export class CallChannel implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private next = 0;
  private readonly pending = new Map<number, Pending>();

  async start(): Promise<void> {}

  /** Delivers one request for `scope` and resolves with its reply, under the request's own id. */
  exchange(request: JSONRPCRequest, scope: McpScope, authInfo?: AuthInfo): Promise<JSONRPCResponse> {
    const deliver = this.onmessage;
    if (!deliver) return Promise.reject(new Error('The MCP call channel is not connected to a server.'));
    const id = ++this.next;
    return new Promise<JSONRPCResponse>((resolve, reject) => {
      this.pending.set(id, { id: request.id, scope, resolve, reject });
      deliver({ ...request, id }, authInfo ? { authInfo } : undefined);
    });
  }

  /** The scope of the request a handler serves. */
  scopeFor = (rc: ServerContext): McpScope => {
    const scope = typeof rc.mcpReq.id === 'number' ? this.pending.get(rc.mcpReq.id)?.scope : undefined;
    if (!scope) throw new Error('An MCP request reached the shared server without the scope its authentication gave it.');
    return scope;
  };

  async send(message: JSONRPCMessage): Promise<void> {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return;
    const pending = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (!pending) {
      this.onerror?.(new Error(`A reply for an unknown request id: ${String(message.id)}`));
      return;
    }
    this.pending.delete(message.id as number);
    pending.resolve({ ...message, id: pending.id });
  }

  async close(): Promise<void> {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new Error('The MCP call channel closed before the call was answered.'));
    this.onclose?.();
  }
}
