import type { ServerResponse } from 'node:http';
import {
  InMemoryServerEventBus,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  type ListResourceTemplatesResult,
  type Server,
  type ServerEvent,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { type Reach, reachesCampaign, reachIncludes, withReach } from '../core/auth/scope.js';
import { allCampaignIds, findCampaignRow } from '../core/campaigns/campaign.js';
import { ApiError, validationError } from '../core/errors.js';
import type { Ctx } from '../core/context.js';
import { listenToChanges, type LiveChange } from '../core/live/feed.js';
import { awaitChanges } from '../core/live/journal.js';
import { toolByName } from '../tools/index.js';
import { admit, callTool, toolArguments, type Authenticated, type Entrant } from '../tools/pipeline.js';

/*
 * Live resources: a campaign and its draft queue, read as JSON and subscribed to for change
 * notifications. The change feed of core (src/core/live) says which resources changed; this
 * module turns its batches into `notifications/resources/updated` on every transport:
 * - 2025 revisions over stdio: `resources/subscribe` on the connection (ConnectionLive);
 * - 2025 revisions over HTTP: `resources/subscribe` for the key, delivered on the key's GET
 *   event streams (KeyedLive): the endpoint is stateless, so a subscription belongs to the key;
 * - 2026-07-28: `subscriptions/listen`, served by the SDK, fed through the event bus (LiveBus).
 * And for a reader that hears no notification at all (an MCP App view: its host passes on
 * resource reads, not updates), the changes resource (readChanges): a read that waits, with a
 * cursor, for the next change in the reader's scope.
 */

/** The protocol era of a request (as server.ts names it; not imported from there, which imports this module). */
type Era = 'legacy' | 'modern';

const JSON_MIME = 'application/json';
export const DRAFTS_URI = 'outreach://drafts';
export const campaignUri = (id: string): string => `outreach://campaigns/${encodeURIComponent(id)}`;
export const campaignDraftsUri = (id: string): string => `${campaignUri(id)}/drafts`;

/** How many drafts a draft queue resource shows (list_drafts' largest page). */
const QUEUE_PAGE = 100;

export const LIVE_RESOURCES: Resource[] = [
  {
    uri: DRAFTS_URI,
    name: 'drafts',
    title: 'Draft queue',
    description: `The drafts of every campaign waiting for approval, oldest first (the first ${QUEUE_PAGE}, as list_drafts with status pending). Subscribe to hear when the queue changes.`,
    mimeType: JSON_MIME,
  },
];

export const LIVE_TEMPLATES: ListResourceTemplatesResult['resourceTemplates'] = [
  {
    uriTemplate: 'outreach://campaigns/{campaignId}',
    name: 'campaign',
    title: 'Campaign',
    description: 'A campaign as get_campaign answers it: status, settings and stats. Subscribe to hear when its status, settings or counters change.',
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: 'outreach://campaigns/{campaignId}/drafts',
    name: 'campaign_drafts',
    title: "Campaign's draft queue",
    description: `A campaign's drafts waiting for approval, oldest first (the first ${QUEUE_PAGE}, as list_drafts with status pending). Subscribe to hear when a draft is created, edited, approved, rejected, skipped or sent.`,
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: 'outreach://changes{?campaignId,after,wait}',
    name: 'changes',
    title: 'Changes (long poll)',
    description:
      'For a client that cannot receive resource notifications (an MCP App view). Read without after for a cursor; read with after=<cursor> and the answer comes as soon as a campaign, draft queue or conversation you may see changes (at most once a second), or after wait seconds (default 20, at most 25) with no change. Each answer gives the next cursor, what changed, and the live resource URIs to read again; reset: true means read everything again. campaignId narrows it to one campaign.',
    mimeType: JSON_MIME,
  },
];

type LiveTarget = { kind: 'campaign'; campaignId: string } | { kind: 'drafts'; campaignId?: string };

/** What a live resource URI names; undefined for any other URI (a view's, or none of ours). */
export function parseLiveUri(uri: string): LiveTarget | undefined {
  if (uri === DRAFTS_URI) return { kind: 'drafts' };
  const m = /^outreach:\/\/campaigns\/([^/?#]+)(\/drafts)?$/.exec(uri);
  if (!m) return undefined;
  let campaignId: string;
  try {
    campaignId = decodeURIComponent(m[1] as string);
  } catch {
    return undefined;
  }
  return m[2] ? { kind: 'drafts', campaignId } : { kind: 'campaign', campaignId };
}

/**
 * Whether a caller whose key reaches `reach` may hear of a live URI's changes. A key held to
 * some campaigns hears only of theirs: any other campaign is absent for it, as an id that never
 * existed, and such an id never changes. So its subscriptions leave those URIs out (a 2025
 * subscribe is answered and kept nowhere; a 2026-07-28 listen does not honour them), which
 * also answers alike for a campaign outside the key and one that does not exist. URIs that name
 * no campaign (the drafts queue, a view's, none of ours) are for every key.
 */
export function mayHearOf(reach: Reach | null | undefined, uri: string): boolean {
  const target = parseLiveUri(uri);
  const campaignId = target && 'campaignId' in target ? target.campaignId : undefined;
  return campaignId === undefined || reachIncludes(reach, campaignId);
}

/**
 * A 2026-07-28 `subscriptions/listen` request narrowed, in place, to the resources its caller
 * may hear of (mayHearOf): the SDK then honours, and delivers, only those. Anything that is not
 * such a request is left alone.
 */
export function narrowListen(message: unknown, reach: Reach | null | undefined): void {
  if (!reach?.campaignIds || (message as { method?: unknown } | null)?.method !== 'subscriptions/listen') return;
  const notifications = (message as { params?: { notifications?: { resourceSubscriptions?: unknown } } }).params?.notifications;
  const uris = notifications?.resourceSubscriptions;
  if (!Array.isArray(uris)) return;
  (notifications as { resourceSubscriptions: unknown[] }).resourceSubscriptions = uris.filter((uri) => typeof uri !== 'string' || mayHearOf(reach, uri));
}

/**
 * Reads a live resource as its tool answers it (get_campaign, list_drafts), through the tool
 * pipeline: the caller is admitted and rate limited as for the call, and reads only its own
 * workspace. On 2026-07-28 the result says it may not be cached (it changes as the engine works).
 * A resource that names nothing is `-32602` with the URI in `data` on every revision: the SDK
 * sends that code for a missing resource whatever the revision (2026-07-28 requires it; clients
 * of the 2025 revisions are asked to accept it beside `-32002`).
 */
export async function readLiveResource(ctx: Ctx, entrant: Entrant, uri: string, era: Era): Promise<ReadResourceResult | undefined> {
  const target = parseLiveUri(uri);
  if (!target) return undefined;
  const [toolName, args] =
    target.kind === 'campaign'
      ? ['get_campaign', { campaignId: target.campaignId }]
      : ['list_drafts', { status: 'pending', limit: QUEUE_PAGE, ...(target.campaignId === undefined ? {} : { campaignId: target.campaignId }) }];
  const tool = toolByName.get(toolName);
  if (!tool) throw new Error(`the ${toolName} tool is not registered`);
  const outcome = await callTool(ctx, tool, entrant, toolArguments(tool, args));
  if (!outcome.ok) {
    if (outcome.error.code === 'not_found') {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.error.message, { uri });
    }
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, outcome.error.message, outcome.error.toBody());
  }
  const result: ReadResourceResult = { contents: [{ uri, mimeType: JSON_MIME, text: outcome.json }] };
  return era === 'modern' ? { ...result, ttlMs: 0, cacheScope: 'private' } : result;
}

export const CHANGES_URI = 'outreach://changes';
/** The changes resource's wait, in seconds: the default, and the longest (below the SDKs' 60 s request timeout, and the 30 s of many proxies). */
export const CHANGES_WAIT_S = 20;
export const CHANGES_MAX_WAIT_S = 25;

export const isChangesUri = (uri: string): boolean => uri === CHANGES_URI || uri.startsWith(`${CHANGES_URI}?`);

/** A read of the changes resource: the campaign it narrows to, the cursor, and the wait. */
export function changesUri(q: { campaignId?: string | undefined; after?: string | undefined; wait?: number | undefined } = {}): string {
  const params = new URLSearchParams();
  if (q.campaignId !== undefined) params.set('campaignId', q.campaignId);
  if (q.after !== undefined) params.set('after', q.after);
  if (q.wait !== undefined) params.set('wait', String(q.wait));
  const query = params.toString();
  return query ? `${CHANGES_URI}?${query}` : CHANGES_URI;
}

const CHANGES_PARAMS: ReadonlySet<string> = new Set(['campaignId', 'after', 'wait']);

function badChangesRead(uri: string, message: string, field: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message, { uri, ...validationError(message, [field]).toBody() });
}

function parseChangesUri(uri: string): { campaignId?: string; after?: string; waitMs: number } {
  const query = new URLSearchParams(uri.slice(CHANGES_URI.length + 1));
  const out: { campaignId?: string; after?: string; waitMs: number } = { waitMs: CHANGES_WAIT_S * 1000 };
  for (const name of new Set(query.keys())) {
    if (!CHANGES_PARAMS.has(name)) throw badChangesRead(uri, `${CHANGES_URI} takes campaignId, after and wait, not ${name}.`, name);
    if (query.getAll(name).length > 1) throw badChangesRead(uri, `${name} may be given once.`, name);
  }
  const campaignId = query.get('campaignId');
  if (campaignId !== null) out.campaignId = campaignId;
  const after = query.get('after');
  if (after !== null) out.after = after;
  const wait = query.get('wait');
  if (wait !== null) {
    if (!/^\d{1,2}$/.test(wait) || Number(wait) > CHANGES_MAX_WAIT_S) {
      throw badChangesRead(uri, `wait must be a whole number of seconds from 0 to ${CHANGES_MAX_WAIT_S}.`, 'wait');
    }
    out.waitMs = Number(wait) * 1000;
  }
  return out;
}

/** The live resources a change in the reader's scope touches (a workspace change: every one, which the answer says by itself). */
function urisOfChange(change: LiveChange): string[] {
  if (change.resource === 'campaign') return [campaignUri(change.campaignId)];
  if (change.resource === 'drafts') return [campaignDraftsUri(change.campaignId), DRAFTS_URI];
  return [];
}

/**
 * Reads the changes resource (outreach://changes): waits, from the cursor `after`, for the
 * next changes the caller may see (its key's campaigns; one campaign with `campaignId`), and
 * answers with them and the next cursor; or answers after the wait with none. The caller is
 * admitted first, and checked again on every batch of the feed while it waits (`recheck`:
 * over HTTP the request's credential, authenticated again), so a revoked key's read ends with
 * the key's error at once. `signal` ends the wait when the reader goes away.
 */
export async function readChanges(
  ctx: Ctx,
  scope: { entrant: Entrant; recheck?: (() => Authenticated) | undefined },
  uri: string,
  era: Era,
  signal: AbortSignal | undefined,
): Promise<ReadResourceResult> {
  const refusalNow = (): ApiError | null => {
    const auth = scope.recheck ? scope.recheck() : admit(ctx, scope.entrant);
    return auth.ok ? null : auth.error;
  };
  const auth = admit(ctx, scope.entrant);
  if (!auth.ok) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, auth.error.message, auth.error.toBody());
  const q = parseChangesUri(uri);
  const scoped = withReach(ctx, auth.caller.reach ?? null);
  if (q.campaignId !== undefined && !findCampaignRow(scoped, q.campaignId)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Campaign ${q.campaignId} not found.`, { uri });
  }
  const mine = (campaignId: string | null): boolean =>
    campaignId === null ? q.campaignId === undefined && !scoped.campaigns : (q.campaignId ?? campaignId) === campaignId && reachesCampaign(scoped, campaignId);
  const wanted = (c: LiveChange): boolean => c.resource === 'workspace' || (c.resource !== 'access' && mine(c.campaignId));
  let answer: Awaited<ReturnType<typeof awaitChanges>>;
  try {
    answer = await awaitChanges(ctx, { after: q.after, wanted, waitMs: q.waitMs, signal, refusal: refusalNow });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'validation_error') throw badChangesRead(uri, err.message, 'after');
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, err.message, err.toBody());
  }
  const body = { ...answer, uris: [...new Set(answer.changes.flatMap(urisOfChange))] };
  const result: ReadResourceResult = { contents: [{ uri, mimeType: JSON_MIME, text: JSON.stringify(body) }] };
  return era === 'modern' ? { ...result, ttlMs: 0, cacheScope: 'private' } : result;
}

/**
 * The live resource URIs a batch of changes touches, as a key that reaches `reach` sees them.
 * Another process's commit touches them all. The drafts queue of a key held to some campaigns
 * lists only theirs, so it changed only with a draft of one of them: a draft of any other
 * campaign, absent for the key, is no change to it.
 */
export function urisOfChanges(ctx: Ctx, batch: readonly LiveChange[], reach?: Reach | null): string[] {
  const out = new Set<string>();
  for (const change of batch) {
    switch (change.resource) {
      case 'campaign':
        if (reachIncludes(reach, change.campaignId)) out.add(campaignUri(change.campaignId));
        break;
      case 'drafts':
        if (!reachIncludes(reach, change.campaignId)) break;
        out.add(campaignDraftsUri(change.campaignId));
        out.add(DRAFTS_URI);
        break;
      case 'conversation':
        // No resource shows a conversation; its counters move with the campaign's own change.
        break;
      case 'access':
        // No resource changed; the streams check their key (KeyedLive.deliver, whileAdmitted).
        break;
      case 'workspace':
        out.add(DRAFTS_URI);
        for (const id of allCampaignIds(ctx)) {
          if (!reachIncludes(reach, id)) continue;
          out.add(campaignUri(id));
          out.add(campaignDraftsUri(id));
        }
        break;
    }
  }
  return [...out];
}

/** At most this many subscriptions per connection (stdio) or key (HTTP), so memory stays bounded. */
export const MAX_SUBSCRIPTIONS = 256;

/** Where a 2025-era `resources/subscribe` and `resources/unsubscribe` are kept. */
export interface LiveSubscriptions {
  add(uri: string): void;
  remove(uri: string): void;
}

function addBounded(uris: Set<string>, uri: string): void {
  if (!uris.has(uri) && uris.size >= MAX_SUBSCRIPTIONS) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `At most ${MAX_SUBSCRIPTIONS} resources may be subscribed at once; unsubscribe from one first.`, {
      uri,
    });
  }
  uris.add(uri);
}

/**
 * What a stdio connection's live updates check of its key: `refusal` is the key's refusal now
 * (null while it authenticates); `ended` is told once, when a refusal ends the updates.
 */
export interface KeyWatch {
  refusal(): ApiError | null;
  ended(refusal: ApiError): void;
}

/**
 * One stdio connection's live updates. A 2025 connection hears of the URIs it subscribed to;
 * on 2026-07-28 the SDK's stdio entry keeps the `subscriptions/listen` filters and drops every
 * update no subscription asked for, so the instance sends each changed URI. Every batch checks
 * the connection's key first, as the HTTP streams do: once it no longer authenticates (revoked,
 * expired), the subscriptions are dropped, the feed is left, and nothing more is sent.
 */
export class ConnectionLive implements LiveSubscriptions {
  private readonly uris = new Set<string>();
  private current: { server: Server; era: Era } | undefined;
  private stop: (() => void) | undefined;
  private over = false;

  /** `reach`: the connection key's, so it hears only of what the key may see (urisOfChanges). */
  constructor(
    private readonly ctx: Ctx,
    private readonly key?: KeyWatch,
    private readonly reach?: Reach | null,
  ) {}

  /** The instance now serving the connection (the SDK builds one per era it settles on). */
  attach(server: Server, era: Era): void {
    this.current = { server, era };
    if (era === 'modern') this.listen();
  }

  add(uri: string): void {
    addBounded(this.uris, uri);
    this.listen();
  }

  remove(uri: string): void {
    this.uris.delete(uri);
  }

  close(): void {
    this.stop?.();
    this.stop = undefined;
  }

  private listen(): void {
    if (this.over) return;
    this.stop ??= listenToChanges(this.ctx, (batch) => {
      const refusal = this.key?.refusal() ?? null;
      if (refusal) return this.end(refusal);
      const current = this.current;
      if (!current) return;
      for (const uri of urisOfChanges(this.ctx, batch, this.reach)) {
        if (current.era === 'legacy' && !this.uris.has(uri)) continue;
        current.server.sendResourceUpdated({ uri }).catch((err: unknown) => this.ctx.log.debug({ err }, 'resource update not sent'));
      }
    });
  }

  private end(refusal: ApiError): void {
    this.over = true;
    this.uris.clear();
    this.close();
    this.key?.ended(refusal);
  }
}

/** How long a key's subscriptions wait for an event stream to carry them. */
const UNCARRIED_MS = 10 * 60 * 1000;
const KEEPALIVE_MS = 15_000;

interface KeyEntry {
  /** What the key reaches (its scope's campaigns), once a request of the key said. */
  reach: Reach | null;
  uris: Set<string>;
  streams: Map<ServerResponse, { stillAdmitted: () => boolean; keepalive: NodeJS.Timeout }>;
  /** Updates that came while no stream was open (a client's stream opens after its first calls, or reconnects). */
  missed: Set<string>;
  idle: NodeJS.Timeout | undefined;
}

const updateFrame = (uri: string): string =>
  `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } })}\n\n`;

/**
 * The 2025-era HTTP endpoint's subscriptions. It keeps no sessions, so a subscription belongs to
 * the key that made it, and its updates go out on every event stream (GET with
 * `Accept: text/event-stream`) open with that key; updates that come while the key has no
 * stream open wait for its next one (each URI once). A key's subscriptions end with its last
 * stream, or after ten minutes without one. Before each delivery the stream's key is
 * authenticated again: a revoked key's streams are closed.
 */
export class KeyedLive {
  private readonly byKey = new Map<string, KeyEntry>();
  private stop: (() => void) | undefined;

  constructor(private readonly ctx: Ctx) {}

  forKey(keyId: string, reach: Reach | null = null): LiveSubscriptions {
    return {
      add: (uri) => {
        const entry = this.entry(keyId);
        entry.reach = reach;
        addBounded(entry.uris, uri);
        if (entry.streams.size === 0) this.armIdle(keyId, entry);
        this.listen();
      },
      remove: (uri) => {
        const entry = this.byKey.get(keyId);
        entry?.uris.delete(uri);
        entry?.missed.delete(uri);
      },
    };
  }

  /** Serves an event stream for the key until the client goes away. */
  open(keyId: string, res: ServerResponse, stillAdmitted: () => boolean): void {
    const entry = this.entry(keyId);
    clearTimeout(entry.idle);
    entry.idle = undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(': live resource updates for this key\n\n');
    for (const uri of entry.missed) res.write(updateFrame(uri));
    entry.missed.clear();
    // Each keepalive asks for the key again too: one that expired (no write announces that) or
    // was revoked by another process ends within a keepalive, not at the next change.
    const keepalive = setInterval(() => (stillAdmitted() ? res.write(': keepalive\n\n') : res.end()), KEEPALIVE_MS);
    keepalive.unref();
    entry.streams.set(res, { stillAdmitted, keepalive });
    this.listen();
    res.on('close', () => {
      const stream = entry.streams.get(res);
      if (!stream) return;
      clearInterval(stream.keepalive);
      entry.streams.delete(res);
      if (entry.streams.size === 0 && this.byKey.get(keyId) === entry) this.forget(keyId);
    });
  }

  private entry(keyId: string): KeyEntry {
    let entry = this.byKey.get(keyId);
    if (!entry) {
      entry = { reach: null, uris: new Set(), streams: new Map(), missed: new Set(), idle: undefined };
      this.byKey.set(keyId, entry);
    }
    return entry;
  }

  /** The feed is listened to while any key has a subscription or a stream. */
  private listen(): void {
    this.stop ??= listenToChanges(this.ctx, (batch) => this.deliver(batch));
  }

  private forget(keyId: string): void {
    const entry = this.byKey.get(keyId);
    clearTimeout(entry?.idle);
    this.byKey.delete(keyId);
    if (this.byKey.size === 0) {
      this.stop?.();
      this.stop = undefined;
    }
  }

  private armIdle(keyId: string, entry: KeyEntry): void {
    if (entry.idle !== undefined) return;
    entry.idle = setTimeout(() => {
      entry.idle = undefined;
      if (this.byKey.get(keyId) === entry && entry.streams.size === 0) this.forget(keyId);
    }, UNCARRIED_MS);
    entry.idle.unref();
  }

  /**
   * Every batch checks each open stream's key first (a revoked key's stream ends with the batch
   * that says access changed, whatever its subscriptions), then sends each key its updates.
   */
  private deliver(batch: readonly LiveChange[]): void {
    const uris = urisOfChanges(this.ctx, batch);
    for (const entry of this.byKey.values()) {
      const wanted = (entry.reach?.campaignIds ? urisOfChanges(this.ctx, batch, entry.reach) : uris).filter((uri) => entry.uris.has(uri));
      if (entry.streams.size === 0) {
        for (const uri of wanted) entry.missed.add(uri);
        continue;
      }
      for (const [res, stream] of entry.streams) {
        if (!stream.stillAdmitted()) {
          res.end();
          continue;
        }
        for (const uri of wanted) res.write(updateFrame(uri));
      }
    }
  }
}

/**
 * The event bus of the 2026-07-28 HTTP entry's `subscriptions/listen` streams (the SDK's
 * in-process bus), fed from the change feed while at least one stream is open. The SDK keeps
 * each stream's filter and delivers an update only to the streams that asked for its URI. A bus
 * made for a key held to campaigns (`reach`) publishes only what that key may hear of
 * (urisOfChanges): its drafts queue changes only with one of its campaigns' drafts.
 */
export class LiveBus implements ServerEventBus {
  private readonly inner: InMemoryServerEventBus;
  private listeners = 0;
  private stop: (() => void) | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly reach: Reach | null = null,
  ) {
    this.inner = new InMemoryServerEventBus((err) => ctx.log.debug({ err }, 'resource update not delivered'));
  }

  publish(event: ServerEvent): void {
    this.inner.publish(event);
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    const off = this.inner.subscribe(listener);
    if (this.listeners++ === 0) {
      this.stop = listenToChanges(this.ctx, (batch) => {
        for (const uri of urisOfChanges(this.ctx, batch, this.reach)) this.inner.publish({ kind: 'resource_updated', uri });
      });
    }
    let live = true;
    return () => {
      if (!live) return;
      live = false;
      off();
      if (--this.listeners === 0) {
        this.stop?.();
        this.stop = undefined;
      }
    };
  }
}
