import { z } from 'zod';
import type { Ctx } from '../core/context.js';
import type { RateClass } from '../core/ratelimit/config.js';
import type { RateLimitReport } from '../core/ratelimit/report.js';
import type { ApiError, ErrorCode } from '../core/errors.js';
import type { Workspace } from '../core/workspace/get.js';
import type { ProgressReporter } from '../core/progress.js';
import type { MemberRef } from '../core/members/members.js';
import type { Reach, ToolReachFacts } from '../core/auth/scope.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

/** Optional groups of MCP tools beyond the default listing. */
export const TOOLSETS = ['manage', 'drafts', 'triage', 'audit'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/**
 * The toolsets each name lists: `manage` runs a workspace, reviewing its drafts included.
 * `triage` (reading threads, suggesting tags) and `audit` (the trail of who changed what) stand
 * alone: their tools read message text or compliance records, and the manage listing keeps its
 * token budget.
 */
export const TOOLSET_INCLUDES: Readonly<Record<Toolset, readonly Toolset[]>> = {
  manage: ['manage', 'drafts'],
  drafts: ['drafts'],
  triage: ['triage'],
  audit: ['audit'],
};

/** Who is calling, as the pipeline resolved it. */
export interface Caller {
  keyId: string;
  workspace: Workspace;
  requestId: string;
  /**
   * The rate-limit policies that applied to this call, rendered into the RateLimit headers.
   * Handlers pass it to per-account checks (admitProfileLookup, admitPeopleSearch) so those show too.
   */
  rateLimits: RateLimitReport;
  /**
   * The operator (dashboard session or CLI), not an API key: reaches operator tools, and is not
   * rate limited like a key. `keyId` is then OPERATOR_KEY_ID, which scopes its idempotency keys.
   */
  operator?: boolean;
  /** Where a long handler says how far it got, when the face can pass it on (an MCP call with a progressToken). */
  progress?: ProgressReporter | undefined;
  /** The member behind an operator call: the dashboard's signed-in member, the owner for the CLI. */
  member?: MemberRef;
  /** The OAuth client whose access token stands for the key (MCP over OAuth). */
  oauthClientId?: string;
  /** What the caller's key may reach (core/auth/scope.ts); null or absent: everything. */
  reach?: Reach | null;
}

/** The idempotency scope and limiter id of the operator; no API key id has this form. */
export const OPERATOR_KEY_ID = 'operator';

/** A non-200 success (e.g. 202 for an ambiguous Lookalike enqueue). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** A handler's result as it goes on the wire: the status, the body, and its exact JSON text. */
export interface Settled {
  status: number;
  body: unknown;
  json: string;
}

/** Serialises a handler result once, so REST, MCP and a stored replay all carry the same bytes. */
export function settle(result: unknown): Settled {
  const status = result instanceof Reply ? result.status : 200;
  const body = result instanceof Reply ? result.body : result;
  return { status, body, json: JSON.stringify(body) };
}

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodType> {
  name: string;
  title: string;
  /** One or two sentences for a model: when to use it, what it costs. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** The REST route under /public/v1; `:name` segments are path parameters of `input`. */
  http: { method: HttpMethod; path: string };
  /** Accepts `Idempotency-Key` (REST) / `idempotencyKey` (MCP). */
  idempotent?: boolean;
  /**
   * The MCP toolset the tool belongs to. Tools without one are the default listing (the
   * spec's 19); a toolset's tools are listed only when a client or the config asks for it.
   * REST serves every route either way.
   */
  toolset?: Toolset;
  /** The per-key rate class of the route (spec, Limits), on top of the global limit every call has. */
  rateLimit?: RateClass;
  /**
   * The route's retention rule: whether a success keeps its idempotency key for replay (true)
   * or releases it so a retry runs again. Without it every success keeps its key; errors
   * always release it.
   */
  keepKey?(result: z.input<O> | Reply): boolean;
  /**
   * Error codes this route can give beyond those of every route (unauthorized, plan_required,
   * validation_error, rate_limited, upstream_unavailable; not_found when it has path
   * parameters). The OpenAPI document lists them per operation.
   */
  errors?: readonly ErrorCode[];
  /**
   * A plan gate of this route beyond the workspace-wide one (Lookalike's). It runs where that
   * one does, before rate limits and input validation; a refusal charges nothing.
   */
  planGate?(ctx: Ctx, workspace: Workspace): ApiError | null;
  /** When the route may answer 202 with the same body shape: what that means (OpenAPI). */
  accepted?: string;
  /**
   * `operator`: only the operator may call it (dashboard, CLI). Such tools are never in the REST
   * or MCP registry, and the pipeline refuses them to a key caller as unknown.
   */
  audience?: 'operator';
  /** The tool makes a new campaign: a key held to campaigns may not call it (it could not reach the result). */
  createsCampaign?: boolean;
  /**
   * What to ask the person before the call acts, for a tool that sends to a real person or
   * destroys data: one question naming what will happen ("Send this message from Sales to Ada
   * Lovelace?"), or null when this call needs no question. Asked through an MCP client that
   * declares it can ask (src/mcp); every other caller (REST, the dashboard, clients that cannot
   * ask) is trusted as before. It runs after input validation and before the idempotency key
   * is taken, so a refusal spends nothing.
   */
  confirm?(ctx: Ctx, input: z.output<I>, caller: Caller): string | null;
  /**
   * The call may outlast a client's timeout, so an MCP client with the Tasks extension gets a
   * task to poll instead of waiting (src/mcp/tasks.ts). `follow` is for work that goes on after
   * the handler has answered (a Lookalike build): it reads that work's state from the handler's
   * body each time the client polls.
   */
  task?: TaskSupport;
  /**
   * The argument holding a batch's items, each answered with a status of its own: words the
   * input guard would refuse (a NUL, a lone surrogate) in an item are that item's
   * validation_error, found by the tool's per-item rules, not the whole request's.
   */
  batchItems?: keyof z.input<I> & string;
  /**
   * Arguments this tool shares with a sibling (an update tool's with its create tool's, a
   * batch's items with the single tool's arguments): where a listing offers both, these are
   * listed by type, with "As in <tool>." (or, for a batch's list, its own description naming
   * the sibling), since the sibling's entry in the same listing describes them in full.
   * Validation is unchanged.
   */
  sameArgumentsAs?: { tool: string; fields: readonly (keyof z.input<I> & string)[] };
  handler(ctx: Ctx, input: z.output<I>, caller: Caller): z.input<O> | Reply | Promise<z.input<O> | Reply>;
}

/**
 * Where a task's work stands, for work that continues after the handler (see ToolSpec.task).
 * `step` is how far it got in the work's own units, for a face that reports progress; the
 * finished work's `message` says how it ended.
 */
export type FollowedWork = ({ done: false; message: string } | { done: true; body: unknown; message?: string }) & {
  step?: { done: number; total: number };
};

export interface TaskSupport {
  follow?(ctx: Ctx, body: unknown): FollowedWork;
}

export interface Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> extends ToolSpec<I, O> {
  idempotent: boolean;
  /** Names of the path parameters, in route order. */
  pathParams: string[];
}

const reachFacts = new WeakMap<Tool, ToolReachFacts>();

/** What a key's scope is checked against: the tool's scope toolset, whether it writes, whether it makes a campaign. */
export function toolReach(tool: Tool): ToolReachFacts {
  let facts = reachFacts.get(tool);
  if (!facts) {
    facts = { name: tool.name, toolset: tool.toolset ?? 'standard', readOnly: tool.annotations.readOnlyHint, createsCampaign: tool.createsCampaign === true };
    reachFacts.set(tool, facts);
  }
  return facts;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodType>(spec: ToolSpec<I, O>): Tool<I, O> {
  const pathParams = [...spec.http.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string);
  return { ...spec, idempotent: spec.idempotent ?? false, pathParams };
}

/**
 * An operator tool: no REST route and no MCP listing; reached through the dashboard's call
 * endpoint with an operator caller. Its `http` is a pseudo-route under /app that only names the
 * tool in idempotency fingerprints; nothing is mounted there.
 */
export function defineOperatorTool<I extends z.ZodObject, O extends z.ZodType>(
  spec: Omit<ToolSpec<I, O>, 'http' | 'audience' | 'planGate' | 'accepted' | 'rateLimit'>,
): Tool<I, O> {
  return defineTool({ ...spec, audience: 'operator', http: { method: 'POST', path: `/app/tools/${spec.name}` } });
}

/** `idempotencyKey` as tools take it; REST takes the same value from the Idempotency-Key header. */
export const IdempotencyKey = z.string().min(1).max(128).describe('Retry key: a repeat within 24 h replays the first result.');
