import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  JSONRPCRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpScope } from './server.js';

/**
 * The library versions whose behaviour this file reproduces (the reply's exact headers, and
 * repeated headers joined with ", "), as `test/mcp/fastpath.test.ts` compared them byte for
 * byte. That test also fails when an installed version differs from these: compare the two
 * paths again, then update them.
 */
export const COPIED_FROM = { '@modelcontextprotocol/sdk': '1.32.2', '@hono/node-server': '2.1.8' } as const;

interface Pending {
  /** The id the client chose; many clients (and every stateless one) reuse the same few. */
  clientId: RequestId;
  scope: McpScope;
  settle: (reply: JSONRPCMessage) => void;
}

/**
 * A Transport that lets one long-lived SDK Server answer many HTTP requests at once. Each
 * request enters under a fresh internal JSON-RPC id, since concurrent clients may all send
 * id 1; the reply goes back under the client's id. A request's scope (key, caller, offered
 * tools) travels with its internal id, never in a closure over the server.
 */
export class RequestMux implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private lastId = 0;
  private readonly pending = new Map<number, Pending>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** Only replies are delivered: as in the SDK's JSON-response mode, notifications have no stream. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!('id' in message) || 'method' in message || typeof message.id !== 'number') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    pending.settle({ ...message, id: pending.clientId });
  }

  /** Hands one request to the server; resolves with its reply, under the client's id. */
  dispatch(request: JSONRPCRequest, scope: McpScope): Promise<JSONRPCMessage> {
    const deliver = this.onmessage;
    if (!deliver) return Promise.reject(new Error('The MCP server is not connected to its transport.'));
    const id = ++this.lastId;
    return new Promise((settle) => {
      // Registered first: the server answers an unknown method synchronously, inside deliver.
      this.pending.set(id, { clientId: request.id, scope, settle });
      deliver({ ...request, id });
    });
  }

  /** The scope of a request the server is handling, by its internal id. */
  scopeOf(id: RequestId): McpScope {
    const pending = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (!pending) throw new Error(`No MCP request ${String(id)} is in flight.`);
    return pending.scope;
  }
}

/**
 * A header as the SDK transport sees it: @hono/node-server joins repeated headers with ", ",
 * where Node keeps only the first Content-Type.
 */
function joinedHeader(req: IncomingMessage, lowerName: string): string | undefined {
  let value: string | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) {
      value = value === undefined ? (raw[i + 1] as string) : `${value}, ${raw[i + 1] as string}`;
    }
  }
  return value;
}

/**
 * The request a POST carries, when it is the common well-formed case that the SDK's
 * stateless transport (JSON-response mode) would hand to its server unchanged: Accept names
 * both application/json and text/event-stream, Content-Type is JSON, any MCP-Protocol-Version
 * is supported, and the body is one JSON-RPC request. Anything else (batches, notifications,
 * responses, bad headers) is undefined and goes through the SDK transport, which answers it.
 */
export function fastPathRequest(req: IncomingMessage, body: unknown): JSONRPCRequest | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(joinedHeader(req, 'content-type'))) return undefined;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) return undefined;
  // The SDK parses with JSONRPCMessageSchema, whose first member is this schema: same result.
  const parsed = JSONRPCRequestSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/** A reply exactly as the SDK transport writes it through @hono/node-server. */
export function writeReply(res: ServerResponse, reply: JSONRPCMessage): void {
  const json = JSON.stringify(reply);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}
