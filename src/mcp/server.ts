import { randomBytes, randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  isJSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CacheHint,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type ServerContext,
  type ServerOptions,
  type Tool as McpTool,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { Ctx } from '../core/context.js';
import type { ProgressReporter } from '../core/progress.js';
import { cancellable, followWithProgress } from './follow.js';
import { ApiError, validationError } from '../core/errors.js';
import { requestFingerprint } from '../core/idempotency/store.js';
import type { Tool } from '../tools/define.js';
import { toolByName } from '../tools/index.js';
import { admit, callTool, mcpInput, toolArguments, toolInputProblem, type Authenticated, type Confirmation, type Entrant } from '../tools/pipeline.js';
import { mcpInputSchema, mcpOutputSchema } from '../tools/schemas.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';
import { APPS_EXTENSION, clientRendersViews, listViewResources, readViewResource, toolUiMeta } from './apps.js';
import { completeArgument } from './completion.js';
import type { Reach } from '../core/auth/scope.js';
import { isChangesUri, LIVE_RESOURCES, LIVE_TEMPLATES, mayHearOf, readChanges, readLiveResource, type LiveSubscriptions } from './live.js';
import { getPrompt, listPrompts } from './prompts.js';
import { toToolResult } from './results.js';
import { registerTaskMethods, TASKS_EXTENSION, type TaskRunner } from './tasks.js';

const INSTRUCTIONS =
  'Outreach automation for one LinkedIn workspace. Start with get_credits or list_campaigns. Adding a lead costs 1 credit; everything else is free. Write tools accept idempotencyKey: reuse it when retrying. The start_outreach prompt walks from an empty workspace to a running campaign.';

/** Which protocol a request speaks: `legacy` is every revision through 2025-11-25, `modern` is 2026-07-28. */
export type Era = 'legacy' | 'modern';

/**
 * How long a client may reuse a listing or a view (2026-07-28 caching): they change only when
 * the server restarts with another configuration. The discovery, the prompts and the templates
 * are the same for every caller, so a shared cache may keep them (`public`). The tools, the
 * resources and a view's read follow the caller's key (a read-only or scoped key lists fewer
 * tools and views, and is refused a view whose tool it lacks), so only the caller's own client
 * may keep those (`private`): a gateway's shared cache must not hand one key's listing to another.
 */
const CACHE_HINT: CacheHint = { ttlMs: 300_000, cacheScope: 'public' };
const CALLER_CACHE_HINT: CacheHint = { ttlMs: 300_000, cacheScope: 'private' };

/** The four hints, always all of them (the house rule): a client never has to guess a default. */
const listedAnnotations = (annotations: Tool['annotations']): McpTool['annotations'] => ({ ...annotations });

const described = new WeakMap<Tool, McpTool>();

/**
 * The tools/list entry of a tool, as 2025 hosts get it (with the view link in `_meta.ui`).
 * Tools never change, and converting their zod schemas to JSON Schema costs more than a whole
 * tool call, so each entry is built once and shared.
 */
export function describeTool(tool: Tool): McpTool {
  let entry = described.get(tool);
  if (!entry) {
    entry = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: mcpInputSchema(mcpInput(tool)) as McpTool['inputSchema'],
      outputSchema: mcpOutputSchema(tool.output) as McpTool['outputSchema'],
      annotations: listedAnnotations(tool.annotations),
    };
    const ui = toolUiMeta(tool.name);
    if (ui) entry._meta = ui;
    described.set(tool, entry);
  }
  return entry;
}

type JsonNode = Record<string, unknown>;
const isNode = (v: unknown): v is JsonNode => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What a shared argument keeps beside its sibling: its type and value set, not its bounds or words. */
function typeOnly(node: JsonNode): JsonNode {
  const out: JsonNode = {};
  for (const key of ['type', 'enum', 'const']) if (node[key] !== undefined) out[key] = node[key];
  if (Array.isArray(node.anyOf)) out.anyOf = node.anyOf.map((branch: unknown) => (isNode(branch) ? typeOnly(branch) : branch));
  if (isNode(node.items)) out.items = typeOnly(node.items);
  return out;
}

/** A batch's list beside its single tool: each field of its items by name and type, pointing at the single tool for the rest. */
function itemsByName(node: JsonNode, asIn: string): JsonNode {
  const out = typeOnly(node);
  const items = node.items;
  if (!isNode(items) || !isNode(items.properties)) return out;
  const fields: Record<string, JsonNode> = {};
  for (const [name, prop] of Object.entries(items.properties)) if (isNode(prop)) fields[name] = { ...typeOnly(prop), description: asIn };
  out.items = { ...typeOnly(items), properties: fields, ...(Array.isArray(items.required) ? { required: items.required } : {}) };
  return out;
}

const besideSibling = new WeakMap<Tool, McpTool>();

/**
 * The entry of a tool whose sibling (ToolSpec.sameArgumentsAs) is in the same listing: the
 * shared arguments by type, pointing at the sibling's entry for the rest.
 */
function describeBesideSibling(tool: Tool): McpTool {
  let entry = besideSibling.get(tool);
  if (!entry) {
    const full = describeTool(tool);
    const same = tool.sameArgumentsAs;
    const siblingFields = new Set(Object.keys(toolByName.get(same?.tool ?? '')?.input.shape ?? {}));
    const properties = { ...(full.inputSchema.properties as Record<string, JsonNode>) };
    const asIn = `As in ${same?.tool}.`;
    for (const field of same?.fields ?? []) {
      const prop = properties[field];
      if (!prop) continue;
      // A field the sibling has reads "As in <sibling>."; a batch's list of the sibling's
      // arguments keeps its own description, which names the sibling, and names each field of
      // its items (by type: `{ "type": "object" }` would leave a model guessing what it may pass).
      properties[field] = siblingFields.has(field) ? { ...typeOnly(prop), description: asIn } : { ...itemsByName(prop, asIn), description: prop.description };
    }
    entry = { ...full, inputSchema: { ...full.inputSchema, properties } as McpTool['inputSchema'] };
    besideSibling.set(tool, entry);
  }
  return entry;
}

/** A listing of these tools: each tool's entry, shorter where its sibling's stands beside it. */
export function listingOf(tools: readonly Tool[]): McpTool[] {
  const names = new Set(tools.map((t) => t.name));
  return tools.map((t) => (t.sameArgumentsAs && names.has(t.sameArgumentsAs.tool) ? describeBesideSibling(t) : describeTool(t)));
}

/** What a modern request's client declared, which changes what its listing carries. */
interface ListingFlags {
  /** The client renders MCP App views: keep `_meta.ui`. */
  views: boolean;
  /** The client takes tasks: say which tools may answer with one. */
  tasks: boolean;
}

/** The tools one request is offered, indexed for tools/call and listed for tools/list. */
export interface OfferedTools {
  byName: ReadonlyMap<string, Tool>;
  listing: McpTool[];
  /** Modern listings by what the client declared (see ListingFlags), built on first use. */
  variants: Map<string, McpTool[]>;
}

const offeredSets = new WeakMap<readonly Tool[], OfferedTools>();

/** Memoised per tool array: an unfiltered request passes the server's own array every time. */
export function offeredTools(tools: readonly Tool[]): OfferedTools {
  let offered = offeredSets.get(tools);
  if (!offered) {
    offered = { byName: new Map(tools.map((t) => [t.name, t])), listing: listingOf(tools), variants: new Map() };
    offeredSets.set(tools, offered);
  }
  return offered;
}

const keyOffers = new WeakMap<readonly Tool[], WeakMap<readonly Tool[], OfferedTools>>();

/**
 * What a scoped key is offered: `listed` (tools/list shows only those, see keyListing) while
 * tools/call still finds every tool of the request, so calling one outside the key's scope
 * gets the pipeline's own 403 forbidden, as over REST, not an unknown tool.
 */
export function offeredToKey(requested: readonly Tool[], listed: readonly Tool[]): OfferedTools {
  if (listed === requested) return offeredTools(requested);
  let byListed = keyOffers.get(requested);
  if (!byListed) {
    byListed = new WeakMap();
    keyOffers.set(requested, byListed);
  }
  let offered = byListed.get(listed);
  if (!offered) {
    const byName = new Map(requested.map((t) => [t.name, t]));
    for (const t of listed) byName.set(t.name, t);
    offered = { byName, listing: listingOf(listed), variants: new Map() };
    byListed.set(listed, offered);
  }
  return offered;
}

/**
 * The listing a modern request gets. MCP Apps is negotiated there (the extension's capability):
 * a client that does not render views is spared the `_meta.ui` links, and one that takes tasks
 * learns which tools may answer with one.
 */
function modernListing(offered: OfferedTools, flags: ListingFlags): McpTool[] {
  const key = `${flags.views ? 'v' : ''}${flags.tasks ? 't' : ''}`;
  let listing = offered.variants.get(key);
  if (!listing) {
    listing = offered.listing.map((entry) => {
      const tool = offered.byName.get(entry.name) as Tool;
      const { _meta, ...rest } = entry;
      const out: McpTool = flags.views && _meta ? { ...rest, _meta } : rest;
      if (flags.tasks && tool.task) out.execution = { taskSupport: 'optional' };
      return out;
    });
    offered.variants.set(key, listing);
  }
  return listing;
}

/** The scope of the request a handler serves (see mcpServer). */
export type ScopeOf = (rc: ServerContext) => McpScope;

/** Whom one MCP request acts for, and what it may call. */
export interface McpScope {
  offered: OfferedTools;
  /**
   * Who the calls are for. Over HTTP the request was authenticated before any protocol work
   * (for its plain-HTTP 401), so this is that caller; over stdio it is the key, which each
   * call authenticates, so a revoked key stops working at once.
   */
  entrant: Entrant;
  /** The one method a single HTTP request calls, when known (see McpServerOptions.only). */
  only?: string | undefined;
  /**
   * Where this request's 2025-era resources/subscribe goes: the stdio connection's, or over
   * HTTP the key's (./live.ts). Absent, the revision offers no subscribe (2026-07-28 listens).
   */
  live?: LiveSubscriptions | undefined;
  /**
   * Authenticates the request's credential again, for a read that waits (the changes resource):
   * over HTTP the entrant is the caller as authenticated when the request came, so a revocation
   * while it waits is seen only this way. Over stdio the entrant is the key, and admitting it
   * authenticates it anyway.
   */
  recheck?: (() => Authenticated) | undefined;
}

/**
 * The confirmation round (2026-07-28 multi-round-trip requests; on a 2025 stdio connection the
 * SDK turns the same round into an elicitation request). The state the client echoes is sealed
 * with a key of this process and bound to the call: a confirmation answers one call, made with
 * the same key, tool and arguments, within ten minutes.
 */
interface ConfirmState {
  digest: string;
  /**
   * This question's own id. A "yes" is one call: on a tool that takes an idempotency key, the
   * confirmed call without one runs under `confirmed:<once>`, so a client that sends the same
   * answer again (a retry after a lost response) gets the first call's result replayed instead
   * of a second message or deletion.
   */
  once: string;
}
const confirmCodec = createRequestStateCodec<ConfirmState>({
  key: randomBytes(32),
  ttlSeconds: 600,
  bind: (c) => `${c.mcpReq.method}\0${(c.http?.authInfo?.clientId as string | undefined) ?? 'stdio'}`,
});

const CONFIRM_KEY = 'confirm';

/** What the client declared it can do, for this request: per request on 2026-07-28, per connection before. */
function clientCapabilities(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return declared ?? server.getClientCapabilities();
}

/** A form elicitation: `elicitation: {}` (the first form of the capability) or one naming `form`. */
function canAsk(caps: ClientCapabilities | undefined): boolean {
  const elicitation = caps?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return Object.keys(elicitation).length === 0 || elicitation.form !== undefined;
}

/** The call a confirmation answers: its tool and arguments (the sealed state is bound to the key already). */
const callDigest = (tool: Tool, args: unknown): string => requestFingerprint({ method: 'tools/call', route: tool.name, params: {}, body: args ?? {} });

/**
 * Where the confirm stage stands for this call: asked before and answered (with the question's
 * id), to ask, or trusted.
 */
async function confirmationOf(
  server: Server,
  ctx: ServerContext,
  tool: Tool,
  digest: string,
): Promise<{ confirmation: Confirmation | undefined; once?: string }> {
  if (!tool.confirm) return { confirmation: undefined };
  const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  const state = ctx.mcpReq.requestState<ConfirmState>();
  if (answer.kind === 'elicit' && state?.digest === digest) {
    return { confirmation: answer.action === 'accept' ? 'accepted' : 'declined', once: state.once };
  }
  return { confirmation: canAsk(clientCapabilities(server, ctx)) ? 'ask' : undefined };
}

/**
 * Why a tools/call request is malformed (no params, arguments that are not an object, no
 * name), as our validation_error; null for a well-formed one.
 */
function malformedToolCall(params: unknown): ApiError | null {
  if (params === undefined || params === null || typeof params !== 'object' || Array.isArray(params)) {
    return validationError("tools/call needs params: the tool's name and its arguments as a JSON object.", []);
  }
  const args = (params as { arguments?: unknown }).arguments;
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    const got = Array.isArray(args) ? 'an array' : args === null ? 'null' : `a ${typeof args}`;
    return validationError(`arguments must be a JSON object of named arguments, not ${got}.`, ['arguments']);
  }
  const name = (params as { name?: unknown }).name;
  if (typeof name !== 'string') return validationError('name: the name of the tool to call is required, as a string.', ['name']);
  return null;
}

/** A 2025-era tools/call: a request without the 2026-07-28 envelope's protocol version. */
function legacyToolCall(message: JSONRPCMessage): message is JSONRPCRequest {
  // The method and the envelope first: a 2026-07-28 call, and any other method, skip the schema check.
  if ((message as { method?: unknown }).method !== 'tools/call') return false;
  const meta = ((message as { params?: unknown }).params as { _meta?: Record<string, unknown> } | null | undefined)?._meta;
  if (meta?.[PROTOCOL_VERSION_META_KEY] !== undefined) return false;
  return isJSONRPCRequest(message);
}

/**
 * A transport around another that passes everything through, each inbound message by way of
 * `receive`, which a subclass overrides to look at (or answer) a message before the SDK does.
 */
export class RelayTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(protected readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.receive(message, extra);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion = (version: string): void => this.inner.setProtocolVersion?.(version);

  setSupportedProtocolVersions = (versions: string[]): void => this.inner.setSupportedProtocolVersions?.(versions);

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  protected receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    this.onmessage?.(message, extra);
  }
}

/**
 * The rules this server keeps on every transport before the SDK reads a message, as a
 * transport around the SDK's own (the streamable HTTP one of a 2025-era request, the stdio
 * one): the one place where they live.
 * - A `__proto__` argument is kept aside (keepProtoKey) so the tool's schema sees it.
 * - A malformed 2025-era tools/call (see malformedToolCall), which the SDK would refuse with a
 *   JSON-RPC error of its own wording, is answered as every failed call is on those
 *   revisions: an isError result carrying our validation_error body, alone or in a batch.
 *   (2026-07-28 makes a malformed request a protocol error, and the SDK's answer stands.)
 */
export class LegacyRules extends RelayTransport {
  protected override receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    keepProtoKey(message);
    const refusal = legacyToolCall(message) ? malformedToolCall(message.params) : null;
    if (!refusal) return this.onmessage?.(message, extra);
    const { id } = message as JSONRPCRequest;
    this.inner
      .send({ jsonrpc: '2.0', id, result: toToolResult({ ok: false, error: refusal }) }, { relatedRequestId: id })
      .catch((err: unknown) => this.onerror?.(err as Error));
  }
}

/**
 * A `__proto__` key among a call's arguments. JSON gives it as an ordinary key, and REST's
 * strict schemas refuse it by name as an unknown argument; but the SDK rebuilds the arguments
 * object while validating the request, and an assignment of `__proto__` to a fresh object sets
 * its prototype instead of a key, so the key would vanish unseen (and an object value would
 * become the arguments' prototype). The transports therefore move it, before the SDK sees the
 * message, to this stand-in key, and the call handler puts it back as an own key, so the
 * pipeline refuses it exactly as REST does. The stand-in holds a NUL, which no argument name has.
 */
const PROTO_STANDIN = '\u0000__proto__';

/** Moves a top-level `__proto__` argument of each tools/call in a message (or a batch) to its stand-in. */
export function keepProtoKey(message: unknown): void {
  for (const m of Array.isArray(message) ? message : [message]) {
    if (m === null || typeof m !== 'object' || (m as { method?: unknown }).method !== 'tools/call') continue;
    const args = (m as { params?: { arguments?: unknown } }).params?.arguments;
    if (args === null || typeof args !== 'object' || Array.isArray(args) || !Object.hasOwn(args, '__proto__')) continue;
    const record = args as Record<string, unknown>;
    const value = Object.getOwnPropertyDescriptor(record, '__proto__')?.value;
    Reflect.deleteProperty(record, '__proto__');
    record[PROTO_STANDIN] = value;
  }
}

/** The arguments as the client sent them: a stand-in key back to `__proto__`, an own key. */
function withProtoKey(args: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(args, PROTO_STANDIN)) return args;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    Object.defineProperty(out, key === PROTO_STANDIN ? '__proto__' : key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The reporter of a call that carries `_meta.progressToken`: each report goes out as
 * `notifications/progress` on the call's own exchange (over HTTP the answer then streams).
 * Progress only grows, as the protocol asks; a report that could not be sent is dropped.
 */
function progressOf(rc: ServerContext): ProgressReporter | undefined {
  const progressToken = rc.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let last = -1;
  return (done, total, message) => {
    if (done <= last) return;
    last = done;
    rc.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken, progress: done, total, ...(message ? { message } : {}) } })
      .catch(() => undefined);
  };
}

export interface McpServerOptions {
  era: Era;
  /**
   * The one method this instance will answer, when the request is known to be a single one
   * (HTTP): only its handler is registered, which is a tenth of a short call's own work.
   * Absent (stdio, batches), every handler is.
   */
  only?: string | undefined;
  /** Long calls for clients with the Tasks extension (2026-07-28 only). */
  tasks: TaskRunner;
}

const SERVER_INFO = { name: SERVER_NAME, version: SERVER_VERSION, title: 'Outreach MCP' };

/** The instance options of each era, built once: a server is built for every request. */
function serverOptions(era: Era): ServerOptions {
  return {
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false, subscribe: true },
      prompts: { listChanged: false },
      completions: {},
      extensions: { [APPS_EXTENSION.id]: APPS_EXTENSION.settings, ...(era === 'modern' ? { [TASKS_EXTENSION]: {} } : {}) },
    },
    instructions: INSTRUCTIONS,
    cacheHints: {
      'server/discover': CACHE_HINT,
      'tools/list': CALLER_CACHE_HINT,
      'prompts/list': CACHE_HINT,
      'resources/list': CALLER_CACHE_HINT,
      'resources/read': CALLER_CACHE_HINT,
      'resources/templates/list': CACHE_HINT,
    },
    requestState: { verify: confirmCodec.verify },
  };
}
const MODERN_OPTIONS = serverOptions('modern');
const LEGACY_OPTIONS = serverOptions('legacy');

/**
 * One MCP server instance over the registry: per HTTP request (both eras), per stdio
 * connection, or one per era for the plain HTTP calls of the process (http.ts, sharedInstance),
 * whose scope then comes with each request (`scope` is a function of the request's context). Validation is
 * ours, so a bad argument is an isError result with the spec's validation_error body, on every
 * revision.
 */
export function mcpServer(ctx: Ctx, scope: McpScope | ScopeOf, opts: McpServerOptions): Server {
  const modern = opts.era === 'modern';
  const scopeOf: ScopeOf = typeof scope === 'function' ? scope : () => scope;
  const server = new Server(SERVER_INFO, modern ? MODERN_OPTIONS : LEGACY_OPTIONS);
  const wants = (method: string) => opts.only === undefined || opts.only === method;

  if (wants('tools/list'))
    server.setRequestHandler('tools/list', (_request, rc) => {
      const { offered } = scopeOf(rc);
      if (!modern) return { tools: offered.listing };
      const caps = clientCapabilities(server, rc);
      return { tools: modernListing(offered, { views: clientRendersViews(caps), tasks: caps?.extensions?.[TASKS_EXTENSION] !== undefined }) };
    });

  // The MCP App views of the offered tools (src/mcp/apps.ts), and the live resources
  // (./live.ts): the draft queue, and through templates each campaign and its queue.
  if (wants('resources/list'))
    server.setRequestHandler('resources/list', (_request, rc) => ({ resources: [...listViewResources(scopeOf(rc).offered.byName), ...LIVE_RESOURCES] }));
  if (wants('resources/read'))
    server.setRequestHandler('resources/read', async (request, rc) => {
      const { uri } = request.params;
      const scope = scopeOf(rc);
      if (isChangesUri(uri)) {
        // A read that waits: a 2025 client over stateless HTTP cancels it by id (see cancellable).
        const held = cancellable(ctx, {
          keyId: 'caller' in scope.entrant ? scope.entrant.caller.keyId : '',
          requestId: rc.mcpReq.id,
          signal: rc.mcpReq.signal,
        });
        try {
          return await readChanges(ctx, scope, uri, opts.era, held.signal);
        } finally {
          held.release();
        }
      }
      return (await readLiveResource(ctx, scope.entrant, uri, opts.era)) ?? readViewResource(uri, scope.offered.byName);
    });
  if (wants('resources/templates/list')) server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: LIVE_TEMPLATES }));
  // 2025 revisions: a subscription is kept per connection (stdio) or per key (HTTP), and any
  // URI is accepted: one that names nothing of ours never changes. 2026-07-28 replaced these
  // methods with subscriptions/listen, which the SDK's entries serve.
  if (!modern) {
    const subscriptions = (rc: ServerContext): { live: LiveSubscriptions; reach: Reach | null | undefined } => {
      const scope = scopeOf(rc);
      const auth = admit(ctx, scope.entrant);
      if (!auth.ok) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, auth.error.message, auth.error.toBody());
      if (!scope.live) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Resource subscriptions are not offered on this transport.');
      return { live: scope.live, reach: auth.caller.reach };
    };
    if (wants('resources/subscribe'))
      server.setRequestHandler('resources/subscribe', (request, rc) => {
        const { live, reach } = subscriptions(rc);
        // A campaign outside the key is answered as one that never existed: kept nowhere, never updated.
        if (mayHearOf(reach, request.params.uri)) live.add(request.params.uri);
        return {};
      });
    if (wants('resources/unsubscribe'))
      server.setRequestHandler('resources/unsubscribe', (request, rc) => {
        subscriptions(rc).live.remove(request.params.uri);
        return {};
      });
  }

  if (wants('prompts/list')) server.setRequestHandler('prompts/list', () => ({ prompts: listPrompts() }));
  if (wants('prompts/get'))
    server.setRequestHandler('prompts/get', (request, rc) => getPrompt(ctx, scopeOf(rc).offered.byName, request.params.name, request.params.arguments ?? {}));

  if (wants('completion/complete'))
    server.setRequestHandler('completion/complete', (request, rc) => completeArgument(ctx, scopeOf(rc).entrant, request.params));

  if (wants('tools/call'))
    server.setRequestHandler('tools/call', async (request, rc): Promise<CallToolResult | InputRequiredResult> => {
      const { name, arguments: args = {} } = request.params;
      const { offered, entrant } = scopeOf(rc);
      const tool = offered.byName.get(name);
      if (!tool) {
        const message = `Unknown tool "${name}". Call tools/list for the available tools.`;
        // 2026-07-28: an unknown tool is a protocol error; the 2025 revisions here answered isError.
        if (modern) throw new ProtocolError(ProtocolErrorCode.InvalidParams, message, { name });
        return toToolResult({ ok: false, error: new ApiError('not_found', message) });
      }
      const given = withProtoKey(args);
      const call = toolArguments(tool, given);
      // The digest reads every argument, so it waits for the input guard, run on exactly what
      // the pipeline's input stage will run it on, and for a key that is a string. Arguments
      // that fail either are not digested and not asked about: the pipeline refuses them anyway,
      // before the handler (input stage, idempotency stage), after admission as for any call.
      const guarded =
        tool.confirm !== undefined &&
        toolInputProblem(tool, call.input) === null &&
        (call.idempotencyKey === undefined || typeof call.idempotencyKey === 'string');
      const digest = guarded ? callDigest(tool, given) : '';
      const { confirmation, once } = guarded ? await confirmationOf(server, rc, tool, digest) : { confirmation: undefined };
      // One "yes", one call: an accepted answer sent again replays the first call's result.
      if (confirmation === 'accepted' && once !== undefined && tool.idempotent && call.idempotencyKey === undefined) {
        call.idempotencyKey = `confirmed:${once}`;
      }
      if (confirmation === 'ask') {
        const outcome = await callTool(ctx, tool, entrant, { ...call, confirmation });
        if (outcome.ok !== 'ask') return server.projectCallToolResult(toToolResult(outcome), undefined);
        return inputRequired({
          inputRequests: { [CONFIRM_KEY]: inputRequired.elicit({ message: outcome.question, requestedSchema: { type: 'object', properties: {} } }) },
          requestState: await confirmCodec.mint({ digest, once: randomUUID() }, rc),
        });
      }
      if (tool.task && modern && opts.tasks.wanted(clientCapabilities(server, rc))) {
        return opts.tasks.start(tool, entrant, { ...call, confirmation });
      }
      const progress = progressOf(rc);
      const outcome = await callTool(ctx, tool, entrant, { ...call, confirmation, progress });
      // Work that goes on after the answer (a Lookalike build) is followed while the caller
      // listens: the call stays in flight, reporting each step, and then answers as before.
      if (progress && outcome.ok === true && tool.task?.follow) {
        await followWithProgress(ctx, tool, outcome.body, progress, {
          keyId: 'caller' in entrant ? entrant.caller.keyId : '',
          requestId: rc.mcpReq.id,
          signal: rc.mcpReq.signal,
        });
      }
      return toToolResult(outcome);
    });

  registerTaskMethods(
    server,
    (rc) => admit(ctx, scopeOf(rc).entrant),
    opts.tasks,
    (rc) => clientCapabilities(server, rc),
  );
  return server;
}
