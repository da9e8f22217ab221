import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import {
  CLIENT_CAPABILITIES_META_KEY,
  classifyInboundRequest,
  createMcpHandler,
  isJsonContentType,
  isJSONRPCRequest,
  PerRequestHTTPServerTransport,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type InboundClassificationOutcome,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type McpHandlerRequestOptions,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Ctx } from '../core/context.js';
import { httpStatus, toApiError, validationError, type ApiError } from '../core/errors.js';
import { listenToChanges } from '../core/live/feed.js';
import { memo } from '../core/memo.js';
import { parseJson, sendError, writeJson } from '../http/body.js';
import { baseUrl, clientAddress, requestIdOf } from '../http/request.js';
import type { Tool } from '../tools/define.js';
import { authenticate, type Authenticated, type Credential } from '../tools/pipeline.js';
import { keyListing, parseSwitch, parseToolNames, requestToolSet, selectTools, type ToolSelection, type ToolSets } from '../tools/select.js';
import { MODERN_PROTOCOL_VERSION } from './card.js';
import { CallChannel } from './channel.js';
import { inBandErrors } from './inband.js';
import { KeyedLive, LiveBus } from './live.js';
import { toToolResult } from './results.js';
import { keepProtoKey, malformedToolCall, mcpServer, offeredToKey, type McpScope, type OfferedTools } from './server.js';
import { TaskRunner } from './tasks.js';

/**
 * What the handler reads of an HTTP request, from Express or from the edge (./edge.ts): the same
 * values either way, so both answer alike.
 */
export interface McpHttpRequest {
  header(name: string): string | undefined;
  /** The client's address, for the failed-authentication guard. */
  ip: string | undefined;
  /** The parsed query string (Express's simple parser). */
  query: Record<string, unknown>;
  /** `scheme://host` as the client reached it. */
  origin: string;
  /** The path and query as sent. */
  url: string;
  /** The raw body, read under the body limit. */
  raw: unknown;
  requestId: string;
  /** Aborted when the client goes away (ends a subscriptions/listen stream). */
  closed: AbortSignal;
}

export function mcpCredential(req: McpHttpRequest): Credential {
  const bearer = /^Bearer[ \t]+(\S+)\s*$/i.exec(req.header('authorization') ?? '')?.[1];
  return { apiKey: req.header('x-api-key'), bearerToken: bearer };
}

/** RFC 6750 §3: the challenge names the metadata, and says why a presented token failed. */
function challenge(req: McpHttpRequest, credential: Credential, error: ApiError): string {
  const metadata = `${req.origin}/.well-known/oauth-protected-resource${req.url.startsWith('/mcp') ? '/mcp' : ''}`;
  const parts = [`resource_metadata="${metadata}"`];
  if (!credential.apiKey && credential.bearerToken) {
    parts.unshift('error="invalid_token"', `error_description="${error.message.replace(/["\\]/g, '')}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}

/** A refused MCP request: the pipeline's status and headers, with the OAuth challenge on a 401. */
function refuse(req: McpHttpRequest, res: ServerResponse, credential: Credential, auth: Extract<Authenticated, { ok: false }>): void {
  const headers = { ...auth.headers };
  if (httpStatus(auth.error) === 401) headers['WWW-Authenticate'] = challenge(req, credential, auth.error);
  sendError(res, auth.error, headers);
}

/**
 * The tools a request is offered: the server's MCP set, or, with `?toolsets=`, `?tools=` or
 * `?readonly=` on the MCP URL, the server's permitted tools selected by them. Toolsets add
 * tools the config permits; `tools` and `readonly` narrow. Nothing reaches past the config.
 */
export function requestedTools(req: Pick<McpHttpRequest, 'query'>, serverTools: readonly Tool[], sets?: ToolSets): readonly Tool[] {
  const query = req.query;
  const sel: ToolSelection = {};
  if (query.tools !== undefined) {
    if (typeof query.tools !== 'string') throw validationError('tools must be one comma-separated list of tool names.', ['tools']);
    sel.include = parseToolNames(query.tools);
  }
  if (query.readonly !== undefined) {
    const on = typeof query.readonly === 'string' ? parseSwitch(query.readonly) : undefined;
    if (on === undefined) throw validationError('readonly must be 1 or 0 (true or false).', ['readonly']);
    sel.readOnly = on;
  }
  if (query.toolsets !== undefined) {
    if (typeof query.toolsets !== 'string') throw validationError('toolsets must be one comma-separated list of toolset names (manage, drafts).', ['toolsets']);
    sel.toolsets = parseToolNames(query.toolsets);
  }
  if (sel.include === undefined && sel.readOnly === undefined && sel.toolsets === undefined) return serverTools;
  const fields = { include: 'tools', readOnly: 'readonly', toolsets: 'toolsets' };
  if (sets) return requestToolSet(sets, sel, fields);
  return selectTools(serverTools, sel, fields);
}

export interface McpHttpOptions {
  /** The server's permitted tool sets, for `?toolsets=` and `?tools=` (see requestedTools). */
  toolSets?: ToolSets;
  /** The process's task runner, shared with any other MCP entry of the process. */
  tasks?: TaskRunner;
  /** The 2025-era subscriptions by key, shared with the GET event streams (mcpStreamHandler). */
  live?: KeyedLive;
}

/** The request's scope rides on the SDK's pass-through auth info, the one value it hands the factory. */
const SCOPE = 'outreachScope';
const scopeOf = (authInfo: AuthInfo | undefined): McpScope => {
  const scope = authInfo?.extra?.[SCOPE] as McpScope | undefined;
  if (!scope) throw new Error('An MCP request reached the server without the scope its authentication gave it.');
  return scope;
};

/**
 * A 2025-era request (no per-request `_meta` envelope), served statelessly as before: a fresh
 * instance per request on the SDK's streamable HTTP transport, answering in JSON. (The SDK's
 * own stateless fallback answers in SSE, which 2025 clients here were never sent.)
 */
function legacyEntry(factory: McpServerFactory): FetchLikeMcpHandler {
  return {
    fetch: async (request: globalThis.Request, options?: McpHandlerRequestOptions) => {
      const authInfo = options?.authInfo;
      const server = await factory({ era: 'legacy', ...(authInfo ? { authInfo } : {}), requestInfo: request });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request, {
          ...(authInfo ? { authInfo } : {}),
          ...(options?.parsedBody !== undefined ? { parsedBody: options.parsedBody } : {}),
        });
      } finally {
        void transport.close();
        void server.close();
      }
    },
  };
}

/**
 * Whether a 2025-era request is one the SDK's full transport would hand to the server as it
 * is: a single JSON-RPC request (no batch, notification or response), with the Accept and
 * Content-Type the transport requires and no unsupported MCP-Protocol-Version. Such a request
 * is one exchange, which the SDK's single-exchange transport serves at a third of the cost;
 * anything else goes to the full transport, which gives every HTTP-level answer (406, 415, 400,
 * 202, batches).
 */
function singleExchange(req: McpHttpRequest, route: InboundClassificationOutcome, body: unknown): JSONRPCRequest | null {
  if (route.kind !== 'legacy' || (route.reason !== 'no-claim' && route.reason !== 'initialize') || !isJSONRPCRequest(body)) return null;
  const accept = req.header('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null;
  if (!isJsonContentType(req.header('content-type'))) return null;
  const version = req.header('mcp-protocol-version');
  return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version) ? body : null;
}

/**
 * Streamable HTTP for both eras on one endpoint. The key or token is checked before any
 * protocol work, so a bad one is a plain HTTP 401. The SDK decides the era of each request
 * (classifyInboundRequest, the classification createMcpHandler itself runs): a request carrying
 * the 2026-07-28 `_meta` envelope, or refused by its rules, goes to its stateless entry
 * (createMcpHandler), which answers server/discover, the envelope and header rules and the
 * revision's error codes; anything else is a 2025-era request, served statelessly in JSON.
 */
export function mcpPostHandler(ctx: Ctx, tools: readonly Tool[], opts: McpHttpOptions = {}): (req: McpHttpRequest, res: ServerResponse) => Promise<void> {
  const tasks = opts.tasks ?? new TaskRunner(ctx);
  const onerror = (err: Error) => ctx.log.debug({ err }, 'mcp request refused');
  const factory: McpServerFactory = ({ era, authInfo }) => {
    const scope = scopeOf(authInfo);
    return mcpServer(ctx, scope, { era, tasks, only: scope.only });
  };
  const live = opts.live ?? new KeyedLive(ctx);
  // subscriptions/listen streams hear of changes through this bus (fed by core's change feed).
  const modernEntry = createMcpHandler(factory, { legacy: 'reject', onerror, bus: new LiveBus(ctx) });
  const legacy = legacyEntry(factory);
  // Plain calls of every request share one instance per era, each over an in-process
  // connection made on the first such call (see CallChannel, CHANNEL_METHODS, plainModernCall).
  let legacyCalls: Promise<CallChannel> | undefined;
  const legacyChannel = (): Promise<CallChannel> => {
    legacyCalls ??= (async () => {
      const channel = new CallChannel();
      channel.onerror = onerror;
      await mcpServer(ctx, channel.scopeFor, { era: 'legacy', tasks }).connect(channel);
      return channel;
    })();
    return legacyCalls;
  };
  // The 2026-07-28 instance is bound to its era by the SDK's connection entry (serveStdio over
  // our own transport, as its `transport` option offers); 2025 openings are refused there.
  // (Imported on the first such call: the stdio entry is not part of starting the server.)
  let modernCalls: Promise<CallChannel> | undefined;
  const modernChannel = (): Promise<CallChannel> => {
    modernCalls ??= (async () => {
      const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
      const channel = new CallChannel();
      serveStdio(() => mcpServer(ctx, channel.scopeFor, { era: 'modern', tasks }), { transport: channel, legacy: 'reject', onerror });
      return channel;
    })();
    return modernCalls;
  };
  const overChannel = async (res: ServerResponse, reply: Promise<JSONRPCResponse>) => {
    try {
      const json = JSON.stringify(await reply);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) }).end(json);
    } catch (err) {
      ctx.log.error({ err }, 'mcp request failed');
      if (!res.headersSent) sendError(res, toApiError(err));
    }
  };
  const serve = async (entry: FetchLikeMcpHandler, req: McpHttpRequest, res: ServerResponse, parsedBody: unknown, authInfo: AuthInfo) => {
    try {
      await answer(res, await entry.fetch(webRequest(req, parsedBody), { authInfo, parsedBody }));
    } catch (err) {
      ctx.log.error({ err }, 'mcp request failed');
      if (!res.headersSent) sendError(res, toApiError(err));
    }
  };

  return async (req: McpHttpRequest, res: ServerResponse) => {
    const credential = mcpCredential(req);
    const auth = authenticate(ctx, credential, { requestId: req.requestId, clientAddress: req.ip });
    if (!auth.ok) return refuse(req, res, credential, auth);
    let offered: readonly Tool[];
    try {
      offered = requestedTools(req, tools, opts.toolSets);
    } catch (err) {
      return sendError(res, toApiError(err));
    }
    const body = parseJson(req.raw, req.header('content-type'));
    if (!body.ok) return sendError(res, body.error);
    keepProtoKey(body.value);

    const { caller } = auth;
    // A scoped key lists only its tools (core/auth/scope.ts decides which).
    const listed = keyListing(offered, opts.toolSets?.universe ?? tools, caller.reach);
    const scope: McpScope = { offered: offeredToKey(offered, listed), entrant: { caller }, live: live.forKey(caller.keyId) };
    const authInfo: AuthInfo = { token: '', clientId: caller.keyId, scopes: [], extra: { [SCOPE]: scope } };

    // A request carrying the envelope's protocol version claims 2026-07-28: never a 2025 one,
    // whatever else it holds, so the SDK's entry classifies it (and answers any refusal) alone.
    const claimed = envelopeClaim(body.value);
    if (claimed) {
      if (plainModernCall(req, body.value, scope.offered))
        return overChannel(
          res,
          modernChannel().then((channel) => channel.exchange(body.value as JSONRPCRequest, scope)),
        );
      scope.only = claimed;
      // A listen stream lasts: its key is checked again before each update, and a revoked key's stream ends.
      const served = claimed === 'subscriptions/listen' ? whileAdmitted(ctx, req, credential) : req;
      return serve(modernEntry, served, res, body.value, authInfo);
    }
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: req.header('mcp-protocol-version'),
      mcpMethodHeader: req.header('mcp-method'),
      mcpNameHeader: req.header('mcp-name'),
      body: body.value,
    });
    if (route.kind !== 'legacy') {
      if (route.kind === 'modern' && route.messageKind === 'request') scope.only = route.message.method;
      return serve(modernEntry, req, res, body.value, authInfo);
    }

    const answered = answerMalformedCalls(body.value);
    if (answered) {
      if (answered.rest.length === 0) return writeJson(res, 200, {}, JSON.stringify(Array.isArray(body.value) ? answered.replies : answered.replies[0]));
      // A batch mixing malformed calls with other messages: the SDK answers the others.
      const request = new globalThis.Request(`${req.origin}${req.url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: req.header('accept') ?? '' },
        body: JSON.stringify(answered.rest),
      });
      const response = await legacy.fetch(request, { authInfo, parsedBody: answered.rest });
      const others = response.status === 200 ? ((await response.json()) as unknown[]) : [];
      const replies = [...answered.replies, ...(Array.isArray(others) ? others : [others])];
      const order = new Map((body.value as RpcRequest[]).map((m, i) => [m.id, i]));
      replies.sort((a, b) => (order.get((a as RpcRequest).id) ?? 0) - (order.get((b as RpcRequest).id) ?? 0));
      return writeJson(res, 200, {}, JSON.stringify(replies));
    }
    const single = singleExchange(req, route, body.value);
    if (!single) return serve(legacy, req, res, body.value, authInfo);

    // As the SDK's per-request transport answers these methods: every outcome is the handler's
    // own, so a 200 whose body is the JSON-RPC reply.
    const reportsProgress = hasProgressToken(single);
    if (CHANNEL_METHODS.has(single.method) && !reportsProgress)
      return overChannel(
        res,
        legacyChannel().then((channel) => channel.exchange(single, scope, authInfo)),
      );

    scope.only = single.method;
    const server = await factory({ era: 'legacy', authInfo });
    // A call that asked for progress streams its notifications before the answer (SSE).
    const transport = new PerRequestHTTPServerTransport({ classification: { era: 'legacy' }, responseMode: reportsProgress ? 'auto' : 'json' });
    try {
      await server.connect(transport);
      await answer(res, await inBandErrors(await transport.handleMessage(single, { authInfo })));
    } finally {
      void server.close();
    }
  };
}

/**
 * The methods served over a shared connection (CallChannel): their answer depends on the
 * request and its caller alone, never on the connection. Anything that could touch a
 * connection's state (`initialize`, `logging/setLevel`) gets an instance of its own.
 */
const CHANNEL_METHODS: ReadonlySet<string> = new Set(['tools/call', 'tools/list']);

/**
 * Whether a 2026-07-28 request may go to the shared instance: a single request the SDK
 * classifies as modern, whose standard headers repeat exactly what its body says (so the HTTP
 * entry's header checks have nothing to refuse), whose envelope declares the client's
 * capabilities (read per request, never the connection's), and that is a listing or a call of
 * an offered tool that neither asks to confirm nor may become a task (those keep the SDK's
 * per-request entry, which binds a confirmation to the caller's key). Anything else, a refusal
 * above all, is the HTTP entry's to answer.
 */
function plainModernCall(req: McpHttpRequest, body: unknown, offered: OfferedTools): body is JSONRPCRequest {
  if (!isJSONRPCRequest(body) || !CHANNEL_METHODS.has(body.method) || !isJsonContentType(req.header('content-type'))) return false;
  // The shared channel drops notifications: a call that asked for progress needs its own exchange.
  if (hasProgressToken(body)) return false;
  const version = req.header('mcp-protocol-version');
  const name = req.header('mcp-name');
  // The revision this server serves (card.ts), which the SDK's HTTP entry accepts.
  if (version !== MODERN_PROTOCOL_VERSION || req.header('mcp-method') !== body.method) return false;
  const params = body.params as { name?: unknown; _meta?: Record<string, unknown> } | undefined;
  const caps = params?._meta?.[CLIENT_CAPABILITIES_META_KEY];
  if (caps === null || typeof caps !== 'object' || Array.isArray(caps)) return false;
  if (body.method === 'tools/call') {
    const tool = typeof params?.name === 'string' ? offered.byName.get(params.name) : undefined;
    if (!tool || tool.confirm || tool.task || name !== tool.name) return false;
  } else if (name !== undefined) return false;
  const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: version, mcpMethodHeader: body.method, mcpNameHeader: name, body });
  return route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === version;
}

/**
 * The headers the SDK's entries read: the media types, the protocol version and the
 * revision's standard headers, the `Mcp-Param-*` mirrors of no tool of ours, and the Host
 * and Origin its checks may name. Our own (the key, the token) stay out: the SDK gets the
 * caller as `authInfo`.
 */
const FORWARDED_HEADERS = ['host', 'origin', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'last-event-id'];

/** Request heads built before, by URL and forwarded headers: a client repeats the same few. */
const heads = memo<string, globalThis.Request>(256);

/**
 * The request as the SDK's web-standard entries take it. The body is already parsed and goes
 * alongside (parsedBody), so the Request carries only the method, URL and headers, and one
 * built for the same head before serves again (a Request costs more to build than the SDK's
 * classification of the call); a subscriptions/listen stream gets its own, with a signal that
 * ends it when the client goes away.
 */
function webRequest(req: McpHttpRequest, parsedBody: unknown): globalThis.Request {
  const url = `${req.origin}${req.url}`;
  const values = FORWARDED_HEADERS.map((name) => req.header(name));
  const headers = (): [string, string][] => FORWARDED_HEADERS.flatMap((name, i) => (values[i] === undefined ? [] : [[name, values[i] as string]]));
  if ((parsedBody as { method?: unknown } | null)?.method === 'subscriptions/listen') {
    return new globalThis.Request(url, { method: 'POST', headers: headers(), signal: req.closed });
  }
  // Header values never hold a line break (Node refuses them), so the key is unambiguous.
  const key = `${url}\n${values.map((v) => v ?? '\u0000').join('\n')}`;
  return heads.get(key, () => new globalThis.Request(url, { method: 'POST', headers: headers() }));
}

/**
 * Writes an SDK answer: a JSON body in one write with its length, or an event stream (a
 * subscriptions/listen stream, or a call that sent notifications first) piped as it comes.
 */
async function answer(res: ServerResponse, response: globalThis.Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (response.body === null || !(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...headers, 'content-length': String(body.length) }).end(body);
    return;
  }
  res.writeHead(response.status, headers);
  const stream = Readable.fromWeb(response.body as NodeReadableStream);
  // Resolves when the stream has been written out (or the client left), so the caller closes
  // the serving instance only after its last message.
  await new Promise<void>((resolve) => {
    res.on('close', () => {
      stream.destroy();
      resolve();
    });
    stream.on('end', resolve);
    stream.on('error', resolve);
    stream.pipe(res);
  });
}

/** Whether a request asks for progress notifications (`_meta.progressToken`). */
function hasProgressToken(request: JSONRPCRequest): boolean {
  const meta = (request.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.progressToken !== undefined;
}

/** The method of a single request that carries the 2026-07-28 envelope claim; undefined otherwise. */
function envelopeClaim(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
  if (typeof method !== 'string' || typeof params !== 'object' || params === null) return undefined;
  return params._meta?.[PROTOCOL_VERSION_META_KEY] !== undefined ? method : undefined;
}

interface RpcRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params?: unknown;
}

const isToolCall = (m: unknown): m is RpcRequest =>
  m !== null && typeof m === 'object' && (m as RpcRequest).method === 'tools/call' && (m as RpcRequest).id !== undefined;

/**
 * A 2025-era tools/call that the SDK would refuse with a JSON-RPC error of its own wording
 * (no params, arguments not an object, no name) is answered here as every failed call was on
 * those revisions: an isError result with our validation_error body, alone or in a batch. (On
 * 2026-07-28 a malformed request is a protocol error, and the SDK's answer stands.) Null when
 * the body holds no such call; otherwise our replies, and the messages left for the SDK.
 */
function answerMalformedCalls(body: unknown): { replies: unknown[]; rest: unknown[] } | null {
  const messages = Array.isArray(body) ? body : [body];
  const replies: unknown[] = [];
  const rest: unknown[] = [];
  for (const message of messages) {
    const refusal = isToolCall(message) ? malformedToolCall(message.params) : null;
    if (refusal) replies.push({ jsonrpc: '2.0', id: (message as RpcRequest).id, result: toToolResult({ ok: false, error: refusal }) });
    else rest.push(message);
  }
  return replies.length === 0 ? null : { replies, rest };
}

/**
 * The request with a `closed` signal that also fires when its key stops authenticating (checked
 * on each batch of changes, before the listen stream's updates go out), so the SDK ends a
 * revoked key's subscriptions/listen stream.
 */
function whileAdmitted(ctx: Ctx, req: McpHttpRequest, credential: Credential): McpHttpRequest {
  const closed = new AbortController();
  const stop = listenToChanges(ctx, () => {
    if (!authenticate(ctx, credential, { requestId: req.requestId, clientAddress: req.ip }).ok) closed.abort();
  });
  closed.signal.addEventListener('abort', stop, { once: true });
  if (req.closed.aborted) closed.abort();
  else req.closed.addEventListener('abort', () => closed.abort(), { once: true });
  return { ...req, closed: closed.signal };
}

/** An Express request as the handlers read it. */
export function expressRequest(req: Request, res: Response): McpHttpRequest {
  const closed = new AbortController();
  res.on('close', () => closed.abort());
  return {
    header: (name) => req.get(name),
    ip: clientAddress(req),
    query: req.query as Record<string, unknown>,
    origin: baseUrl(req),
    url: req.originalUrl,
    raw: req.body,
    requestId: requestIdOf(res),
    closed: closed.signal,
  };
}

/** The Express route's view of a request (the route has read the body with readRawBody). */
export function expressRoute(handle: (req: McpHttpRequest, res: ServerResponse) => Promise<void>): RequestHandler {
  return (req: Request, res: Response) => handle(expressRequest(req, res), res);
}

/**
 * GET with `Accept: text/event-stream` on the MCP endpoint: the 2025-era stream that carries
 * `notifications/resources/updated` for the key's subscriptions (see KeyedLive). The key is
 * checked as for a POST, and again before each delivery.
 */
export function mcpStreamHandler(ctx: Ctx, live: KeyedLive): (req: McpHttpRequest, res: ServerResponse) => void {
  return (req, res) => {
    const credential = mcpCredential(req);
    const auth = authenticate(ctx, credential, { requestId: req.requestId, clientAddress: req.ip });
    if (!auth.ok) return refuse(req, res, credential, auth);
    live.open(auth.caller.keyId, res, () => authenticate(ctx, credential, { requestId: req.requestId, clientAddress: req.ip }).ok);
  };
}
