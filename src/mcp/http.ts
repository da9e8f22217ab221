import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import {
  CLIENT_CAPABILITIES_META_KEY,
  classifyInboundRequest,
  createMcpHandler,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJsonContentType,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type InboundClassificationOutcome,
  type JSONRPCRequest,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Request, RequestHandler, Response } from 'express';
import type { Reach } from '../core/auth/scope.js';
import type { Ctx } from '../core/context.js';
import { httpStatus, toApiError, validationError, type ApiError } from '../core/errors.js';
import { listenToChanges } from '../core/live/feed.js';
import { memo } from '../core/memo.js';
import { parseJson, sendError } from '../http/body.js';
import { baseUrl, clientAddress, requestIdOf } from '../http/request.js';
import type { Tool } from '../tools/define.js';
import { authenticate, type Authenticated, type Credential } from '../tools/pipeline.js';
import { keyListing, narrowingOf, parseSwitch, parseToolNames, requestToolSet, selectTools, type ToolSelection, type ToolSets } from '../tools/select.js';
import { MODERN_PROTOCOL_VERSION } from './card.js';
import { CallChannel, whenAborted, type WhenGone } from './channel.js';
import { cancelFollowed } from './follow.js';
import { isChangesUri, KeyedLive, LiveBus, narrowListen } from './live.js';
import { keepProtoKey, LegacyRules, mcpServer, offeredToKey, type Era, type McpScope, type OfferedTools } from './server.js';
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
  /** The same moment as `closed`, as a plain listener (see WhenGone). */
  whenGone: WhenGone;
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
 * What the MCP URL asks for: `?toolsets=`, `?tools=` and `?readonly=`, or undefined when it
 * asks for nothing. A malformed value is a validation_error naming it.
 */
export function requestSelection(req: Pick<McpHttpRequest, 'query'>): ToolSelection | undefined {
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
  return sel.include === undefined && sel.readOnly === undefined && sel.toolsets === undefined ? undefined : sel;
}

/**
 * The tools a request is offered: the server's MCP set, or, with `?toolsets=`, `?tools=` or
 * `?readonly=` on the MCP URL, the server's permitted tools selected by them. Toolsets add
 * tools the config permits; `tools` and `readonly` narrow. Nothing reaches past the config.
 */
export function requestedTools(
  req: Pick<McpHttpRequest, 'query'>,
  serverTools: readonly Tool[],
  sets?: ToolSets,
  sel = requestSelection(req),
): readonly Tool[] {
  if (sel === undefined) return serverTools;
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
 * Streamable HTTP for both eras on one endpoint. The key or token is checked before any protocol
 * work, so a bad one is a plain HTTP 401. The SDK decides the era of each request
 * (classifyInboundRequest, the classification createMcpHandler and isLegacyRequest run), and
 * each era has one path:
 * - a plain call (see plainCall: tools/list, or a tools/call that neither confirms, may become a
 *   task nor asks for progress, with nothing the SDK's HTTP entry would refuse) goes to the era's
 *   one shared instance (sharedInstance), its caller's scope passed with the request;
 * - anything else goes to a fresh instance on the SDK's own HTTP entry for the era:
 *   createMcpHandler for 2026-07-28 (server/discover, the envelope and header rules, the
 *   revision's error codes, the subscriptions/listen streams, confirmations and tasks), and for
 *   2025 the SDK's streamable HTTP transport, stateless, answering in JSON (or as an event
 *   stream when a call asked for progress), its JSON-RPC errors in the body with HTTP 200.
 * Both answer a plain call alike; the shared instance only saves building a server and a
 * transport per request, which was most of a short call's cost (bench/METHOD.md).
 */
export function mcpPostHandler(ctx: Ctx, tools: readonly Tool[], opts: McpHttpOptions = {}): (req: McpHttpRequest, res: ServerResponse) => Promise<void> {
  const tasks = opts.tasks ?? new TaskRunner(ctx);
  const onerror = (err: Error) => ctx.log.debug({ err }, 'mcp request refused');
  const factory: McpServerFactory = ({ era, authInfo }) => {
    const scope = scopeOf(authInfo);
    return mcpServer(ctx, scope, { era, tasks, only: scope.only });
  };
  const live = opts.live ?? new KeyedLive(ctx);
  const shared: Record<Era, CallChannel> = { legacy: sharedInstance(ctx, 'legacy', tasks, onerror), modern: sharedInstance(ctx, 'modern', tasks, onerror) };
  // subscriptions/listen streams hear of changes through this bus (fed by core's change feed).
  const modern = createMcpHandler(factory, { legacy: 'reject', onerror, bus: new LiveBus(ctx) });
  // A key held to campaigns listens through an entry whose bus hears only of them (the SDK
  // filters a stream's updates by URI alone, and one bus serves every stream of its entry).
  const heldTo = (reach: Reach) => createMcpHandler(factory, { legacy: 'reject', onerror, bus: new LiveBus(ctx, reach) });
  // A 2025-era request: answered, and written out, before its instance closes (an event
  // stream's last message comes after the transport has handed its Response over).
  const legacy = async (res: ServerResponse, request: globalThis.Request, parsedBody: unknown, authInfo: AuthInfo): Promise<void> => {
    const server = await factory({ era: 'legacy', authInfo });
    // A call that asked for progress streams its notifications before the answer.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !asksProgress(parsedBody) });
    await server.connect(new LegacyRules(transport));
    // A client gone mid-call cancels it: closing the instance aborts the handler's signal.
    const gone = () => void server.close();
    request.signal.addEventListener('abort', gone, { once: true });
    try {
      await answer(res, await transport.handleRequest(request, { authInfo, parsedBody }));
    } finally {
      request.signal.removeEventListener('abort', gone);
      void server.close();
    }
  };

  return async (req: McpHttpRequest, res: ServerResponse) => {
    const credential = mcpCredential(req);
    const auth = authenticate(ctx, credential, { requestId: req.requestId, clientAddress: req.ip });
    if (!auth.ok) return refuse(req, res, credential, auth);
    let offered: readonly Tool[];
    let selection: ToolSelection | undefined;
    try {
      selection = requestSelection(req);
      offered = requestedTools(req, tools, opts.toolSets, selection);
    } catch (err) {
      return sendError(res, toApiError(err));
    }
    const body = parseJson(req.raw, req.header('content-type'));
    if (!body.ok) return sendError(res, body.error);
    keepProtoKey(body.value);

    // The SDK's classification, from the headers it reads and the parsed body.
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: req.header('mcp-protocol-version'),
      mcpMethodHeader: req.header('mcp-method'),
      mcpNameHeader: req.header('mcp-name'),
      body: body.value,
    });
    const { caller } = auth;
    // A scoped key lists only its tools (core/auth/scope.ts decides which).
    // What the URL narrows (?tools=, ?readonly=) narrows what the key's toolsets add too.
    const listed = keyListing(offered, opts.toolSets?.universe ?? tools, caller.reach, selection && narrowingOf(selection));
    const scope: McpScope = {
      offered: offeredToKey(offered, listed),
      entrant: { caller },
      live: live.forKey(caller.keyId, caller.reach),
      recheck: () => authenticate(ctx, credential, { requestId: req.requestId, clientAddress: req.ip }),
    };
    // A single request registers only its method's handler (see McpServerOptions.only).
    const single = isSingleRequest(route, body.value);
    scope.only = single ? (body.value as JSONRPCRequest).method : undefined;
    // A listen honours only the campaigns the key may hear of.
    narrowListen(body.value, caller.reach);
    // A listen stream lasts: its key is checked again while it is open, and a revoked key's stream ends.
    const served = scope.only === 'subscriptions/listen' ? whileAdmitted(ctx, req, credential) : req;
    // A 2025-era cancellation of a request this process holds open: a followed call, a waiting read (see cancelFollowed).
    if (!single && isJSONRPCNotification(body.value) && body.value.method === 'notifications/cancelled') {
      const requestId = (body.value.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') cancelFollowed(ctx, caller.keyId, requestId);
    }
    try {
      if (single && plainCall(req, body.value as JSONRPCRequest, route, scope.offered)) {
        const reply = await shared[route.kind === 'legacy' ? 'legacy' : 'modern'].exchange(body.value as JSONRPCRequest, scope, req.whenGone);
        // No reply: the client went away (nothing to write), or the instance closed.
        if (!reply) {
          if (!req.closed.aborted) throw new Error('The shared MCP instance closed before answering.');
          return;
        }
        const json = JSON.stringify(reply);
        // As the SDK's entries answer a handler's own reply: HTTP 200, the JSON-RPC message as the body.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) }).end(json);
        return;
      }
      const request = webRequest(served, body.value);
      const authInfo: AuthInfo = { token: '', clientId: caller.keyId, scopes: [], extra: { [SCOPE]: scope } };
      if (route.kind === 'legacy') await legacy(res, request, body.value, authInfo);
      else {
        const entry = scope.only === 'subscriptions/listen' && caller.reach?.campaignIds ? heldTo(caller.reach) : modern;
        await answer(res, await entry.fetch(request, { authInfo, parsedBody: body.value }));
      }
    } catch (err) {
      ctx.log.error({ err }, 'mcp request failed');
      if (!res.headersSent) sendError(res, toApiError(err));
    }
  };
}

/**
 * The one long-lived instance of an era that serves plain calls (see plainCall), on an in-process
 * connection (CallChannel) that the SDK's serveStdio serves as it serves a stdio client, behind
 * the same LegacyRules: the first call pins the era, and each call's scope comes with it.
 */
function sharedInstance(ctx: Ctx, era: Era, tasks: TaskRunner, onerror: (err: Error) => void): CallChannel {
  const channel = new CallChannel();
  serveStdio(({ era }) => mcpServer(ctx, channel.scopeFor, { era, tasks }), {
    transport: new LegacyRules(channel),
    legacy: era === 'legacy' ? 'serve' : 'reject',
    onerror,
  });
  return channel;
}

/**
 * Whether the body is one JSON-RPC request (isJSONRPCRequest), read from the SDK's classification
 * where it already tells (a request or a notification of either era, a batch), so a plain call
 * is not checked against the request schema twice.
 */
function isSingleRequest(route: InboundClassificationOutcome, body: unknown): boolean {
  if (route.kind === 'modern') return route.messageKind === 'request';
  if (route.kind === 'legacy') {
    if (route.reason === 'no-claim' || route.reason === 'initialize') return true;
    if (route.reason === 'notification' || route.reason === 'batch') return false;
  }
  return isJSONRPCRequest(body);
}

/** The methods a shared instance serves: their answer depends on the request and its caller alone. */
const PLAIN_METHODS: ReadonlySet<string> = new Set(['tools/list', 'tools/call']);

/**
 * Whether a request (one, not a batch) goes to its era's shared instance: a request of a plain
 * method, in JSON, that asks for no progress (which streams), and that the SDK's HTTP entry for
 * its era would pass to a handler as it is:
 * - a tools/call names a tool the request is offered that neither confirms (a confirmation is
 *   bound to the caller's key by the HTTP entry) nor may become a task, with arguments that are
 *   an object (a malformed call is the entry's and LegacyRules' to answer);
 * - 2025: the client accepts JSON and event streams, and names a revision the transport serves
 *   or none;
 * - 2026-07-28: the SDK classifies it as a request of the revision this server speaks, its
 *   standard headers repeat exactly what its body says, and its envelope declares the client's
 *   capabilities (read per request, never the connection's).
 * Anything else, a refusal above all, is the SDK's per-request entry to answer.
 */
function plainCall(req: McpHttpRequest, body: JSONRPCRequest, route: InboundClassificationOutcome, offered: OfferedTools): boolean {
  if (!PLAIN_METHODS.has(body.method) || !isJsonContentType(req.header('content-type'))) return false;
  const params = body.params as { name?: unknown; arguments?: unknown; _meta?: Record<string, unknown> } | undefined;
  if (params?._meta?.progressToken !== undefined) return false;
  const name = req.header('mcp-name');
  if (body.method === 'tools/call') {
    const tool = typeof params?.name === 'string' ? offered.byName.get(params.name) : undefined;
    if (!tool || tool.confirm || tool.task) return false;
    const args = params?.arguments;
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) return false;
    if (route.kind === 'modern' && name !== tool.name) return false;
  } else if (route.kind === 'modern' && name !== undefined) return false;
  const version = req.header('mcp-protocol-version');
  if (route.kind === 'legacy') {
    const accept = req.header('accept') ?? '';
    return (
      accept.includes('application/json') && accept.includes('text/event-stream') && (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    );
  }
  if (route.kind !== 'modern' || route.messageKind !== 'request' || route.classification.revision !== MODERN_PROTOCOL_VERSION) return false;
  if (version !== MODERN_PROTOCOL_VERSION || req.header('mcp-method') !== body.method) return false;
  const caps = params?._meta?.[CLIENT_CAPABILITIES_META_KEY];
  return caps !== null && typeof caps === 'object' && !Array.isArray(caps);
}

/** Whether a message (or any of a batch) reads the changes resource, which waits for a change. */
function readsChanges(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some((m) => {
    if (!isJSONRPCRequest(m) || m.method !== 'resources/read') return false;
    const uri = (m.params as { uri?: unknown } | undefined)?.uri;
    return typeof uri === 'string' && isChangesUri(uri);
  });
}

/** Whether a message (or any of a batch) is a request that asks for progress notifications. */
function asksProgress(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some(
    (m) => isJSONRPCRequest(m) && (m.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.progressToken !== undefined,
  );
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
  // A listen stream, a call that asked for progress (it may stay open while it reports), and a
  // read of the changes resource (it waits) end their exchange when the client goes away.
  if ((parsedBody as { method?: unknown } | null)?.method === 'subscriptions/listen' || asksProgress(parsedBody) || readsChanges(parsedBody)) {
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

/** How often an open listen stream's key is checked again when nothing changes. */
const ADMISSION_RECHECK_MS = 15_000;

/**
 * The request with a `closed` signal that also fires when its key stops authenticating (checked
 * on each batch of changes, before the listen stream's updates go out, and every
 * ADMISSION_RECHECK_MS), so the SDK ends a revoked or expired key's subscriptions/listen stream.
 */
function whileAdmitted(ctx: Ctx, req: McpHttpRequest, credential: Credential): McpHttpRequest {
  const closed = new AbortController();
  const check = () => {
    if (!authenticate(ctx, credential, { requestId: req.requestId, clientAddress: req.ip }).ok) closed.abort();
  };
  const stop = listenToChanges(ctx, check);
  // Also on a timer: a key that expires (no write announces that) or is revoked by another
  // process ends its stream within ADMISSION_RECHECK_MS, not at the next change.
  const timer = setInterval(check, ADMISSION_RECHECK_MS);
  timer.unref();
  closed.signal.addEventListener(
    'abort',
    () => {
      stop();
      clearInterval(timer);
    },
    { once: true },
  );
  if (req.closed.aborted) closed.abort();
  else req.closed.addEventListener('abort', () => closed.abort(), { once: true });
  return { ...req, closed: closed.signal, whenGone: whenAborted(closed.signal) };
}

/** Why a request's `closed` signal fired: its exchange ended, answered or not. */
const EXCHANGE_CLOSED = new Error('The HTTP exchange closed.');

/** What an exchange's request gives the handlers, beside the `closed` signal and `whenGone` that its response gives. */
type McpRequestFields = Omit<McpHttpRequest, 'closed' | 'whenGone' | 'origin'>;

/**
 * A request as the handlers read it, from Express or from the edge: `fields`, `origin` read only
 * when wanted (a refusal's challenge, the SDK's per-request entries), and the `closed` signal
 * made when first read (a plain call never reads it: an AbortSignal and its listeners cost more
 * than the rest of the request's own bookkeeping); `whenGone` listens on the response itself.
 */
export function mcpRequest(res: ServerResponse, fields: McpRequestFields, origin: () => string): McpHttpRequest {
  let ended = false;
  let closed: AbortController | undefined;
  res.once('close', () => {
    ended = true;
    // With a reason made once: abort() without one builds a DOMException, stack and all, per request.
    closed?.abort(EXCHANGE_CLOSED);
  });
  return {
    ...fields,
    get origin() {
      return origin();
    },
    get closed() {
      if (!closed) {
        closed = new AbortController();
        if (ended) closed.abort(EXCHANGE_CLOSED);
      }
      return closed.signal;
    },
    whenGone: (gone) => {
      if (ended) {
        gone();
        return () => undefined;
      }
      res.once('close', gone);
      return () => res.off('close', gone);
    },
  };
}

/** An Express request as the handlers read it. */
export function expressRequest(req: Request, res: Response): McpHttpRequest {
  return mcpRequest(
    res,
    {
      header: (name) => req.get(name),
      ip: clientAddress(req),
      query: req.query as Record<string, unknown>,
      url: req.originalUrl,
      raw: req.body,
      requestId: requestIdOf(res),
    },
    () => baseUrl(req),
  );
}

/**
 * The Express route of a handler, behind readingBody (one layer with the body read): a rejection
 * goes to the error handlers, as Express sends it there from a layer of its own.
 */
export function expressRoute(handle: (req: McpHttpRequest, res: ServerResponse) => Promise<void>): RequestHandler {
  return (req: Request, res: Response, next) => handle(expressRequest(req, res), res).catch(next);
}

/** The JSON-RPC body of a 405 on the MCP endpoint: the server is stateless, and `advice` says what to send. */
export const methodNotAllowedBody = (advice: string) => ({
  jsonrpc: '2.0' as const,
  error: { code: -32000, message: `Method not allowed. This server is stateless: ${advice}` },
  id: null,
});

/**
 * GET with `Accept: text/event-stream` on the MCP endpoint: the 2025-era stream that carries
 * `notifications/resources/updated` for the key's subscriptions (see KeyedLive). The key is
 * checked as for a POST, and again before each delivery.
 */
export function mcpStreamHandler(ctx: Ctx, live: KeyedLive): (req: McpHttpRequest, res: ServerResponse) => void {
  return (req, res) => {
    const credential = mcpCredential(req);
    // With no key and no token there is no stream to give: the endpoint is stateless, so such a
    // GET is 405, as a DELETE is. A key or token that fails is still 401, with the challenge.
    if (!credential.apiKey && !credential.bearerToken) {
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
      res.end(JSON.stringify(methodNotAllowedBody('POST a JSON-RPC request. An event stream of resource updates needs a key.')));
      return;
    }
    const auth = authenticate(ctx, credential, { requestId: req.requestId, clientAddress: req.ip });
    if (!auth.ok) return refuse(req, res, credential, auth);
    live.open(auth.caller.keyId, res, () => authenticate(ctx, credential, { requestId: req.requestId, clientAddress: req.ip }).ok);
  };
}
