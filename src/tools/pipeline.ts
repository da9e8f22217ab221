import type { Ctx } from '../core/context.js';
import { ApiError, httpStatus, toApiError } from '../core/errors.js';
import { authenticateKey, type KeyIdentity } from '../core/auth/keys.js';
import { authenticateAccessToken } from '../core/auth/oauth.js';
import { toolRefusal, withReach, type Reach } from '../core/auth/scope.js';
import type { Admission } from '../core/ratelimit/limiter.js';
import { rateLimitHeaders, RateLimitReport } from '../core/ratelimit/report.js';
import { STEPS_NESTING } from '../core/agents/steps.js';
import { inputShapeProblem, zodToApiError } from '../core/validation.js';
import { getWorkspace, planBlocksApi, type Workspace } from '../core/workspace/get.js';
import type { z } from 'zod';
import { findOwner, type MemberRef } from '../core/members/members.js';
import { roleAllows } from '../core/members/roles.js';
import { targetsOf, withAudit, type AuditedCall } from '../core/audit/scope.js';
import { IdempotencyKey, OPERATOR_KEY_ID, settle, toolReach, type Caller, type Tool } from './define.js';
import { runIdempotent } from './idempotency.js';
import type { ProgressReporter } from '../core/progress.js';

/** How the caller proved who it is: an API key, or (MCP over OAuth) a bearer token. */
export interface Credential {
  apiKey?: string | null | undefined;
  /** An OAuth access token; it stands for the API key given on the consent page. */
  bearerToken?: string | null | undefined;
}

/**
 * The stages of the one pipeline, in the order every entry runs them. Each entry runs a
 * prefix of this list and stops at the first refusal:
 * - every transport authenticates first, through `authenticate` (auth_guard, key, workspace_plan);
 * - `invokeTool` admits the call (tool_plan, rate_limit) and runs the rest;
 * - an unknown REST route admits with no tool (`admitRoute`: the global bucket only);
 * - REST's edge (rest/edge.ts) runs the admission stages with `peek`, charging nothing, and
 *   answers only when the refusal comes from rate_limit.
 */
export const PIPELINE = [
  'auth_guard',
  'key',
  'workspace_plan',
  'tool_plan',
  'role',
  'scope',
  'rate_limit',
  'input',
  'confirm',
  'idempotency',
  'handler',
] as const;
export type StageName = (typeof PIPELINE)[number];

/** `charge`: a real call (counts failed keys, takes a token). `peek`: the same answers, nothing counted. */
export type Mode = 'charge' | 'peek';

/** What the admission stages read and fill in, in order. */
interface Admitting {
  credential: Credential;
  clientAddress: string | undefined;
  /** The route's tool; undefined for a route that does not exist. */
  tool: Tool | undefined;
  report: RateLimitReport;
  guard?: Admission;
  keyId?: string;
  oauthClientId?: string;
  /** The key's scope, as the key stage found it (an expired one is refused there, 401 key_expired). */
  reach?: Reach | null;
  workspace?: Workspace;
  /** The dashboard's member (the CLI's owner), held to its role's tools. */
  member?: MemberRef;
  /** The operator (dashboard), not a key: reaches operator tools, no per-key rate limits. */
  operator?: boolean;
}

interface Stage {
  name: StageName;
  /** Returns the refusal, or null to go on. */
  run(ctx: Ctx, call: Admitting, mode: Mode): ApiError | null;
}

/**
 * The key behind a credential. An API key wins over a bearer token; either way the caller
 * is the key, so rate limits and idempotency (keyed by key id) are shared.
 */
function identify(ctx: Ctx, credential: Credential): KeyIdentity & { clientId?: string } {
  if (!credential.apiKey && credential.bearerToken) return authenticateAccessToken(ctx, credential.bearerToken);
  return authenticateKey(ctx, credential.apiKey);
}

/** Checked before the key, so a blocked address learns nothing, not even from a correct guess. */
const authGuard: Stage = {
  name: 'auth_guard',
  run(ctx, call) {
    if (call.clientAddress === undefined) return null;
    const guard = ctx.limits.authGuard(call.clientAddress);
    call.guard = guard;
    if (guard.ok) return null;
    call.report.add(...guard.states);
    return ctx.limits.refusal(guard);
  },
};

const key: Stage = {
  name: 'key',
  run(ctx, call, mode) {
    try {
      const who = identify(ctx, call.credential);
      call.keyId = who.keyId;
      call.reach = who.reach;
      if (who.clientId !== undefined) call.oauthClientId = who.clientId;
      return null;
    } catch (err) {
      if (call.clientAddress !== undefined && call.guard) {
        // A missing key is a client not yet configured, not a guess: it is not counted.
        const guessed = (call.credential.apiKey || call.credential.bearerToken) && err instanceof ApiError && err.code === 'unauthorized';
        if (guessed && mode === 'charge') call.report.add(ctx.limits.recordAuthFailure(call.clientAddress));
        else call.report.add(...call.guard.states);
      }
      if (err instanceof ApiError) return err;
      throw err;
    }
  },
};

const workspacePlan: Stage = {
  name: 'workspace_plan',
  run(ctx, call) {
    const workspace = getWorkspace(ctx);
    if (!workspace) return new ApiError('unauthorized', 'This server holds no workspace yet. Run `npx outreach seed` or `npm start` first.');
    call.workspace = workspace;
    if (!planBlocksApi(workspace.plan)) return null;
    call.report.add(ctx.limits.peekGlobal(call.keyId!));
    return new ApiError('plan_required', `The ${workspace.plan} plan cannot use the API. A paid plan is required.`);
  },
};

/**
 * The key's scope (core/auth/scope.ts decides): a tool outside its toolsets, a write by a
 * read-only key, a new campaign by a key held to campaigns are 403 forbidden, charging nothing
 * but the global bucket's peek. Which campaigns a call sees is applied by the stores, through
 * the call's context (`withReach`).
 */
const scope: Stage = {
  name: 'scope',
  run(ctx, call) {
    if (!call.reach || !call.tool) return null;
    const refusal = toolRefusal(call.reach, toolReach(call.tool));
    if (refusal) call.report.add(ctx.limits.peekGlobal(call.keyId!));
    return refusal;
  },
};

/** A route's own plan gate (Lookalike's): before rate limits, so a refusal charges nothing. */
const toolPlan: Stage = {
  name: 'tool_plan',
  run(ctx, call) {
    // An operator tool does not exist for a key: the same answer as an unknown tool.
    if (call.tool?.audience === 'operator' && !call.operator) return new ApiError('not_found', `Unknown tool "${call.tool.name}".`);
    const refusal = call.tool?.planGate?.(ctx, call.workspace!) ?? null;
    if (refusal && !call.operator) call.report.add(ctx.limits.peekGlobal(call.keyId!));
    return refusal;
  },
};

/** A member's role (core/members/roles.ts): a tool outside it is 403 forbidden, whatever the page showed. */
const role: Stage = {
  name: 'role',
  run(_ctx, call) {
    const member = call.member;
    if (!member || !call.tool) return null;
    if (roleAllows(member.role, { name: call.tool.name, readOnly: call.tool.annotations.readOnlyHint })) return null;
    return new ApiError('forbidden', `Your role (${member.role}) may not use ${call.tool.name}. Ask the workspace's owner for another role.`, {
      role: member.role,
      tool: call.tool.name,
    });
  },
};

/** The key's global bucket and the route's class bucket, one pair for every transport. */
const rateLimit: Stage = {
  name: 'rate_limit',
  run(ctx, call, mode) {
    // The operator owns the server: per-key limits guard it from keys, not from its owner.
    if (call.operator) return null;
    const rateClass = call.tool?.rateLimit;
    const admission = mode === 'charge' ? ctx.limits.admitCall(call.keyId!, rateClass) : ctx.limits.peekCall(call.keyId!, rateClass);
    call.report.add(...admission.states);
    return admission.ok ? null : ctx.limits.refusal(admission);
  },
};

const STAGES: readonly Stage[] = [authGuard, key, workspacePlan, toolPlan, role, scope, rateLimit];
const AUTHENTICATION = STAGES.slice(0, 3);
const ADMISSION = STAGES.slice(3);

/** A refusal: the error, its response headers, and the stage that gave it. */
export interface Refusal {
  ok: false;
  error: ApiError;
  headers: Record<string, string>;
  stage: StageName;
}

function runStages(ctx: Ctx, stages: readonly Stage[], call: Admitting, mode: Mode): Refusal | null {
  for (const stage of stages) {
    let error: ApiError | null;
    try {
      error = stage.run(ctx, call, mode);
    } catch (err) {
      error = toApiError(err);
      ctx.log.error({ err, stage: stage.name }, 'pipeline stage failed');
    }
    if (error) return { ok: false, error, headers: errorHeaders(error, call.report), stage: stage.name };
  }
  return null;
}

export interface AuthOptions {
  requestId: string;
  /**
   * The client's network address. When given, failed authentications from it are counted and,
   * past the limit, refused with 429 before the key is even looked at, so guessing keys is slow.
   */
  clientAddress?: string | undefined;
}

export type Authenticated = { ok: true; caller: Caller } | Refusal;

/**
 * The first stages of every entry: the failed-authentication guard, the key (or the bearer
 * token standing for one), and the workspace's plan. Every transport calls this once per
 * request (stdio once per call) and hands the caller to `invokeTool`.
 */
export function authenticate(ctx: Ctx, credential: Credential, opts: AuthOptions): Authenticated {
  const call: Admitting = { credential, clientAddress: opts.clientAddress, tool: undefined, report: new RateLimitReport() };
  const refused = runStages(ctx, AUTHENTICATION, call, 'charge');
  if (refused) return refused;
  const caller: Caller = { keyId: call.keyId!, reach: call.reach ?? null, workspace: call.workspace!, requestId: opts.requestId, rateLimits: call.report };
  if (call.oauthClientId !== undefined) caller.oauthClientId = call.oauthClientId;
  return { ok: true, caller };
}

const admitting = (caller: Caller, tool: Tool | undefined): Admitting => ({
  credential: {},
  clientAddress: undefined,
  tool,
  report: caller.rateLimits,
  keyId: caller.keyId,
  reach: caller.reach ?? null,
  workspace: caller.workspace,
  operator: caller.operator === true,
  ...(caller.member ? { member: caller.member } : {}),
});

/**
 * The operator as a caller: the dashboard (after its session check, for its member) and the
 * CLI (the owner, who holds the server's console) build one, in place of `authenticate`. The
 * workspace's API plan gate does not apply (it governs API use, and the operator must still
 * reach keys and settings); tool plan gates (Lookalike's) and the member's role do.
 */
export function operatorCaller(ctx: Ctx, requestId: string, member?: MemberRef): Authenticated {
  const workspace = getWorkspace(ctx);
  if (!workspace) {
    const error = new ApiError('unauthorized', 'This server holds no workspace yet. Run `npx outreach seed` or `npm start` first.');
    return { ok: false, error, headers: {}, stage: 'workspace_plan' };
  }
  // The CLI's owner is read, not made: a workspace without members gets its owner at its first
  // write (the audit trail's actor), so a refused call writes nothing.
  const who = member ?? findOwner(ctx);
  return {
    ok: true,
    caller: { keyId: OPERATOR_KEY_ID, workspace, requestId, rateLimits: new RateLimitReport(), operator: true, ...(who ? { member: who } : {}) },
  };
}

/**
 * The admission of a request to a route that does not exist: the key's global bucket, since
 * every request counts against it, a wrong path too. Null when admitted.
 */
export function admitRoute(ctx: Ctx, caller: Caller): Refusal | null {
  return runStages(ctx, ADMISSION, admitting(caller, undefined), 'charge');
}

/**
 * Every admission stage run without charging anything: what the pipeline would refuse now for
 * this credential and route (`tool` undefined for a route that does not exist), or null. A
 * refusal charges nothing in the pipeline either, so a refusal found here is the pipeline's own
 * answer, with the same headers.
 */
export function peekRefusal(ctx: Ctx, credential: Credential, clientAddress: string | undefined, tool: Tool | undefined): Refusal | null {
  const call: Admitting = { credential, clientAddress, tool, report: new RateLimitReport() };
  return runStages(ctx, STAGES, call, 'peek');
}

export interface Invocation {
  /** The caller, as `authenticate` resolved it. */
  caller: Caller;
  /** Arguments as the transport decoded them (path, query and body merged on REST). */
  input: unknown;
  /** A decoding failure found by the transport (bad JSON), raised after admission. */
  inputError?: ApiError | undefined;
  /** The `idempotencyKey`, however the transport carried it (REST: the Idempotency-Key header). */
  idempotencyKey?: unknown;
  /**
   * The confirm stage, for a tool with `confirm`: `ask` when the face can put the question to
   * the person and has no answer yet; the answer once it has one. Absent, the caller is
   * trusted (REST, the dashboard, an MCP client that cannot ask).
   */
  confirmation?: Confirmation | undefined;
  /** Where the handler may report how far it got (see Caller.progress). */
  progress?: ProgressReporter | undefined;
}

export type Confirmation = 'ask' | 'accepted' | 'declined';

export type Outcome = { ok: true; status: number; body: unknown; json: string; headers: Record<string, string> } | Refusal;

/** The call stopped at the confirm stage: the face asks `question` and comes back with the answer. */
export interface Asking {
  ok: 'ask';
  question: string;
  /** What input validation made of the arguments, for the face to bind the answer to this call. */
  input: unknown;
}

/** The `declined` refusal: nothing was written and no idempotency key was taken. */
export function declined(question: string): ApiError {
  return new ApiError('declined', `The user declined: "${question}" Nothing was done.`, { question });
}

/** The field name the pipeline gives the idempotency key in its errors; a transport may rename it. */
export const IDEMPOTENCY_KEY_FIELD = 'idempotencyKey';

/** The headers of a failed request: its RateLimit fields, and Retry-After for a 429. */
export function errorHeaders(error: ApiError, report: RateLimitReport): Record<string, string> {
  const headers = rateLimitHeaders(report.states);
  if (error.details.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.details.retryAfterSeconds);
  return headers;
}

/**
 * The single call pipeline behind every transport, after `authenticate`: the admission stages,
 * input validation, idempotency, handler. A failure names the stage that gave it.
 */
export function invokeTool(ctx: Ctx, tool: Tool, inv: Invocation & { confirmation: 'ask' }): Promise<Outcome | Asking>;
export function invokeTool(ctx: Ctx, tool: Tool, inv: Invocation & { confirmation?: Exclude<Confirmation, 'ask'> | undefined }): Promise<Outcome>;
export async function invokeTool(outer: Ctx, tool: Tool, inv: Invocation): Promise<Outcome | Asking> {
  const refused = runStages(outer, ADMISSION, admitting(inv.caller, tool), 'charge');
  if (refused) return refused;
  // A key held to campaigns: the call's context carries them, and every store reads it.
  const ctx = withReach(outer, inv.caller.reach ?? null);
  const report = inv.caller.rateLimits;
  let stage: StageName = 'input';
  try {
    if (inv.inputError) throw inv.inputError;
    const shape = toolInputProblem(tool, inv.input);
    if (shape) throw shape;
    const parsed = tool.input.safeParse(inv.input);
    if (!parsed.success) throw zodToApiError(parsed.error);
    stage = 'confirm';
    const question = inv.confirmation && tool.confirm ? tool.confirm(ctx, parsed.data, inv.caller) : null;
    if (question !== null) {
      if (inv.confirmation === 'ask') return { ok: 'ask', question, input: parsed.data };
      if (inv.confirmation === 'declined') throw declined(question);
    }
    stage = 'idempotency';
    const key = idempotencyKeyOf(inv);
    const handle = async (onFirstWrite?: () => void) => {
      stage = 'handler';
      const caller = inv.progress ? { ...inv.caller, progress: inv.progress } : inv.caller;
      if (tool.annotations.readOnlyHint) return tool.handler(ctx, parsed.data, caller);
      // A write: the audit trail records it in the first transaction that changes a row (core/audit),
      // and an idempotency key is marked begun in that transaction.
      return withAudit(ctx, auditedCall(tool, parsed.data, inv.caller), () => tool.handler(ctx, parsed.data, caller), onFirstWrite);
    };
    const headers = rateLimitHeaders(report.states);
    if (key === undefined) return { ok: true, ...settle(await handle()), headers };
    const { replayed, ...settled } = await runIdempotent(ctx, tool, inv.caller, { key, keyField: IDEMPOTENCY_KEY_FIELD, input: inv.input }, handle);
    if (replayed) headers['Idempotent-Replayed'] = 'true';
    return { ok: true, ...settled, headers };
  } catch (err) {
    const error = toApiError(err);
    if (!(err instanceof ApiError)) ctx.log.error({ err, tool: tool.name, requestId: inv.caller.requestId }, 'tool failed');
    // Refused with 429 after admission (an account's spacing or daily quota): a refused request
    // consumes no token, so the key's buckets get back what the rate_limit stage took.
    if (httpStatus(error) === 429 && !inv.caller.operator) report.add(...outer.limits.releaseCall(inv.caller.keyId, tool.rateLimit));
    return { ok: false, error, headers: errorHeaders(error, report), stage };
  }
}

/**
 * A write call as the audit trail records it: the caller (the dashboard's member, the CLI's
 * owner, an OAuth client, or a key), the tool, the ids its arguments name, and its title with
 * a batch's size. No other argument is copied: no text, no secret.
 */
function auditedCall(tool: Tool, input: unknown, caller: Caller): AuditedCall {
  const actor = caller.member
    ? { type: 'member' as const, id: caller.member.id, name: caller.member.name }
    : caller.operator
      ? { type: 'owner' as const }
      : caller.oauthClientId !== undefined
        ? { type: 'oauth_client' as const, id: caller.oauthClientId }
        : { type: 'key' as const, id: caller.keyId };
  const items = tool.batchItems ? (input as Record<string, unknown>)[tool.batchItems] : undefined;
  const summary = Array.isArray(items) ? `${tool.title}: ${items.length} item${items.length === 1 ? '' : 's'}` : tool.title;
  return { actor, action: tool.name, targets: targetsOf(input), summary };
}

/**
 * The input guard of a call's arguments (core/validation.ts): their size, their depth, the depth
 * of an agent's steps, and the words of every string (but a batch's items, which the tool
 * answers one by one). The input stage runs it before zod; a face that must read the arguments
 * before the pipeline does (MCP's confirmation digest) runs it first too. Null when they pass.
 */
export function toolInputProblem(tool: Tool, input: unknown): ApiError | null {
  return inputShapeProblem(input, { nesting: INPUT_NESTING, itemsAnsweredApart: tool.batchItems });
}
const INPUT_NESTING = [STEPS_NESTING];

/** The idempotency key, validated; undefined when the caller sent none. */
function idempotencyKeyOf(inv: Invocation): string | undefined {
  if (inv.idempotencyKey === undefined) return undefined;
  const key = IdempotencyKey.safeParse(inv.idempotencyKey);
  if (!key.success) throw zodToApiError(key.error, () => IDEMPOTENCY_KEY_FIELD);
  return key.data;
}

/**
 * Who a call is for, as a face knows it: a credential, authenticated on the way in (REST, MCP
 * over stdio); a caller its request has already authenticated (MCP over HTTP checks the key
 * before any protocol work, for its plain 401); or the operator (the dashboard, the CLI).
 */
export type Entrant =
  | { credential: Credential; requestId: string; clientAddress?: string | undefined }
  | { caller: Caller }
  | { operator: true; requestId: string; member?: MemberRef | undefined };

/**
 * The authentication stages for an entrant. An already authenticated caller gets a fresh
 * rate-limit report, so each call shows its own policies, as if it had authenticated itself.
 */
export function admit(ctx: Ctx, entrant: Entrant): Authenticated {
  if ('caller' in entrant) return { ok: true, caller: { ...entrant.caller, rateLimits: new RateLimitReport() } };
  if ('operator' in entrant) return operatorCaller(ctx, entrant.requestId, entrant.member);
  return authenticate(ctx, entrant.credential, { requestId: entrant.requestId, clientAddress: entrant.clientAddress });
}

/** A call as a face decodes it: everything invokeTool takes but the caller. */
export type Call = Omit<Invocation, 'caller'>;

/**
 * The one way into the pipeline: the authentication stages (admit), then every stage of
 * invokeTool. Every face enters here (REST, MCP, the dashboard, the CLI); a call that outlives
 * its request (an MCP task) enters through startTool, the same stages.
 */
export function callTool(ctx: Ctx, tool: Tool, entrant: Entrant, call: Call & { confirmation?: Exclude<Confirmation, 'ask'> | undefined }): Promise<Outcome>;
export function callTool(ctx: Ctx, tool: Tool, entrant: Entrant, call: Call): Promise<Outcome | Asking>;
export async function callTool(ctx: Ctx, tool: Tool, entrant: Entrant, call: Call): Promise<Outcome | Asking> {
  const who = admit(ctx, entrant);
  if (!who.ok) return who;
  return invokeTool(ctx, tool, { ...call, caller: who.caller } as Invocation & { confirmation: 'ask' });
}

/**
 * The arguments a tool takes where they arrive as one JSON object (MCP, the dashboard): its
 * input, plus `idempotencyKey` where REST takes the Idempotency-Key header.
 */
export const mcpInput = (tool: Tool): z.ZodObject => (tool.idempotent ? tool.input.extend({ idempotencyKey: IdempotencyKey.optional() }) : tool.input);

/**
 * Splits such an argument object into the tool's input and its idempotency key. A tool that
 * takes no key keeps `idempotencyKey` in its input, where its strict schema refuses it by name.
 */
export function toolArguments(tool: Tool, args: Record<string, unknown>): { input: unknown; idempotencyKey: unknown } {
  if (!tool.idempotent) return { input: args, idempotencyKey: undefined };
  const { idempotencyKey, ...input } = args;
  return { input, idempotencyKey };
}

/** A call admitted and under way: who it is for, and its outcome to come. */
export interface Started {
  ok: true;
  caller: Caller;
  outcome: Promise<Outcome>;
}

/**
 * callTool for a call whose outcome is reported later (an MCP task): the authentication stages
 * answer now, so a refused caller gets no task and the task belongs to the key that asked; the
 * other stages run on as callTool's do.
 */
export function startTool(ctx: Ctx, tool: Tool, entrant: Entrant, call: Call & { confirmation?: Exclude<Confirmation, 'ask'> | undefined }): Started | Refusal {
  const who = admit(ctx, entrant);
  if (!who.ok) return who;
  return { ok: true, caller: who.caller, outcome: invokeTool(ctx, tool, { ...call, caller: who.caller }) };
}
