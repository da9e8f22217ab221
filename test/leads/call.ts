import type { Client } from '@modelcontextprotocol/client';
import { ERROR_STATUS, type ErrorCode } from '../../src/core/errors.js';
import { toolByName } from '../../src/tools/index.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, toolBody, type TestCtxOptions, type TestServer } from '../helpers.js';

export const TRANSPORTS = ['rest', 'mcp'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export interface CallResult {
  status: number;
  body: any;
  /** The exact body text: the REST response body, or the MCP text block. */
  text: string;
  headers: Headers | null;
}

/**
 * Calls a tool the way a client of `transport` would: REST builds the spec's route from the
 * tool's path template (path ids from args, the rest as the JSON body); MCP passes args.
 * MCP results get the status their error code maps to, so one assertion covers both.
 */
export async function call(
  server: TestServer,
  transport: Transport,
  name: string,
  args: Record<string, unknown>,
  opts: { idempotencyKey?: string; key?: string; mcp?: Client } = {},
): Promise<CallResult> {
  const tool = toolByName.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  if (transport === 'rest') {
    const body: Record<string, unknown> = { ...args };
    const path = tool.http.path.replace(/:([A-Za-z]+)/g, (_m, p: string) => {
      const value = String(body[p]);
      delete body[p];
      return encodeURIComponent(value);
    });
    const headers: Record<string, string> = { 'content-type': 'application/json', 'X-API-Key': opts.key ?? TEST_KEY };
    if (opts.idempotencyKey !== undefined) headers['Idempotency-Key'] = opts.idempotencyKey;
    const res = await fetch(`${server.url}/public/v1${path}`, { method: tool.http.method, headers, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text), text, headers: res.headers };
  }
  const client = opts.mcp ?? (await server.mcp(opts.key));
  const withKey = opts.idempotencyKey === undefined ? args : { ...args, idempotencyKey: opts.idempotencyKey };
  const result = (await client.callTool({ name, arguments: withKey })) as CallToolResult;
  const body = toolBody(result);
  const first = result.content[0];
  const text = first && first.type === 'text' ? first.text : '';
  const isError = result.isError === true;
  const status = isError ? ERROR_STATUS[body.error.code as ErrorCode] : 200;
  return { status, body, text, headers: null };
}

export interface Session {
  server: TestServer;
  call(name: string, args: Record<string, unknown>, opts?: { idempotencyKey?: string; key?: string }): Promise<CallResult>;
  close(): Promise<void>;
}

/**
 * A fresh seeded server and, for MCP, one connected client to make every call with. Limits are
 * relaxed unless given: these sessions test lead semantics, test/ratelimit tests the limits.
 */
export async function openSession(transport: Transport, opts: TestCtxOptions = {}): Promise<Session> {
  const server = await startTestServer({ limits: RELAXED_LIMITS, ...opts });
  const mcp = transport === 'mcp' ? await server.mcp() : undefined;
  return {
    server,
    call: (name, args, o = {}) => call(server, transport, name, args, { ...o, ...(o.key === undefined && mcp ? { mcp } : {}) }),
    close: () => server.close(),
  };
}
