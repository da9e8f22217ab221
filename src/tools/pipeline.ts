import type { Ctx } from '../core/context.js';
import { ApiError, toApiError } from '../core/errors.js';
import { authenticateKey, type KeyIdentity } from '../core/auth/keys.js';
import { authenticateAccessToken } from '../core/auth/oauth.js';
import type { RateClass } from '../core/ratelimit/config.js';
import { rateLimitHeaders, RateLimitReport } from '../core/ratelimit/report.js';
import { zodToApiError } from '../core/validation.js';
import { BLOCKED_PLANS, getWorkspace } from '../core/workspace/get.js';
import { IdempotencyKey, OPERATOR_KEY_ID, settle, type Caller, type Tool } from './define.js';
import { runIdempotent } from './idempotency.js';

/** How the caller proved who it is: an API key, or (MCP over OAuth) a bearer token. */
export interface Credential {
  apiKey?: string | null | undefined;
  /** An OAuth access token; it stands for the API key given on the consent page. */
  bearerToken?: string | null | undefined;
  /** A bearer token sent where only X-API-Key counts (REST), so the 401 can say so. */
  misplacedBearer?: boolean;
}

/**
 * The key behind a credential. An API key wins over a bearer token; either way the caller
 * is the key, so rate limits and idempotency (keyed by key id) are shared.
 */
function authenticate(ctx: Ctx, credential: Credential): KeyIdentity {
  if (credential.apiKey) return authenticateKey(ctx, credential.apiKey);
  if (credential.bearerToken) return authenticateAccessToken(ctx, credential.bearerToken);
  if (credential.misplacedBearer) {
    throw new ApiError('unauthorized', 'REST takes the API key in the X-API-Key header; OAuth bearer tokens work on the MCP endpoint only.');
  }
  return authenticateKey(ctx, credential.apiKey);
}

export interface Invocation {
  /** Arguments as the transport decoded them (path, query and body merged on REST). */
  input: unknown;
  /** A decoding failure found by the transport (bad JSON), raised after auth. */
  inputError?: ApiError | undefined;
  idempotencyKey?: unknown;
  /** What the idempotency key is called on this transport, for error messages. */
  idempotencyKeyField?: string;
  credential: Credential;
  /**
   * The caller, when the transport has already resolved the credential (the MCP HTTP endpoint
   * does, for its plain-HTTP 401); the credential is then not checked a second time.
   */
  caller?: Caller | undefined;
  requestId: string;
  /** The client's network address (HTTP transports), for the failed-authentication guard. */
  clientAddress?: string | undefined;
}

export type Outcome =
  | { ok: true; status: number; body: unknown; json: string; headers: Record<string, string> }
  | { ok: false; error: ApiError; headers: Record<string, string> };

export interface AuthOptions {
  /**
   * The client's network address. When given, failed authentications from it are counted and,
   * past the limit, refused with 429 before the key is even looked at, so guessing keys is slow.
   */
  clientAddress?: string | undefined;
  /** Collects the rate-limit policies that applied, for the response headers. */
  report?: RateLimitReport;
}

/**
 * Resolves a credential to a caller: the key must exist, be unrevoked and of this
 * environment; the workspace's plan must allow API use.
 */
export function resolveCaller(ctx: Ctx, credential: Credential, requestId: string, opts: AuthOptions = {}): Caller {
  const report = opts.report ?? new RateLimitReport();
  const keyId = guardedAuthentication(ctx, credential, opts.clientAddress, report);
  const workspace = getWorkspace(ctx);
  if (!workspace) throw new ApiError('unauthorized', 'This server holds no workspace yet. Run `npx outreach seed` or `npm start` first.');
  if (BLOCKED_PLANS.has(workspace.plan)) {
    report.add(ctx.limits.peekGlobal(keyId));
    throw new ApiError('plan_required', `The ${workspace.plan} plan cannot use the API. A paid plan is required.`);
  }
  return { keyId, workspace, requestId, rateLimits: report };
}

/**
 * The operator as a caller: the dashboard (after its session check) and nothing else builds
 * one. The workspace's API plan gate does not apply (it governs API use, and the operator must
 * still reach keys and settings); tool plan gates (Lookalike's) do.
 */
export function operatorCaller(ctx: Ctx, requestId: string): Caller {
  const workspace = getWorkspace(ctx);
  if (!workspace) throw new ApiError('unauthorized', 'This server holds no workspace yet. Run `npx outreach seed` or `npm start` first.');
  return { keyId: OPERATOR_KEY_ID, workspace, requestId, rateLimits: new RateLimitReport(), operator: true };
}

function guardedAuthentication(ctx: Ctx, credential: Credential, address: string | undefined, report: RateLimitReport): string {
  if (address === undefined) return authenticate(ctx, credential).keyId;
  // Checked before the key, so a blocked address learns nothing, not even from a correct guess.
  const guard = ctx.limits.authGuard(address);
  if (!guard.ok) {
    report.add(...guard.states);
    throw ctx.limits.refusal(guard);
  }
  try {
    return authenticate(ctx, credential).keyId;
  } catch (err) {
    // A missing key is a client not yet configured, not a guess: it is not counted.
    if ((credential.apiKey || credential.bearerToken) && err instanceof ApiError && err.code === 'unauthorized') report.add(ctx.limits.recordAuthFailure(address));
    else report.add(...guard.states);
    throw err;
  }
}

/** The idempotency key, validated; undefined when the caller sent none. */
function idempotencyKeyOf(inv: Invocation): string | undefined {
  if (inv.idempotencyKey === undefined) return undefined;
  const field = inv.idempotencyKeyField ?? 'idempotencyKey';
  const key = IdempotencyKey.safeParse(inv.idempotencyKey);
  if (!key.success) throw zodToApiError(key.error, () => field);
  return key.data;
}

/**
 * The rate-limit stage: the key's global bucket and the tool's class bucket, one pair for REST
 * and MCP alike. A refused call charges nothing and goes no further.
 */
export function enforceRateLimits(ctx: Ctx, caller: Caller, rateClass: RateClass | undefined): void {
  const admission = ctx.limits.admitCall(caller.keyId, rateClass);
  caller.rateLimits.add(...admission.states);
  if (!admission.ok) throw ctx.limits.refusal(admission);
}

/** The headers of a failed request: its RateLimit fields, and Retry-After for a 429. */
export function errorHeaders(error: ApiError, report: RateLimitReport): Record<string, string> {
  const headers = rateLimitHeaders(report.states);
  if (error.details.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.details.retryAfterSeconds);
  return headers;
}

/**
 * The single call pipeline behind REST and MCP: auth, plan gates, rate limit, input
 * validation, idempotency, handler. Both transports call it, so the two can never drift apart.
 */
export async function invokeTool(ctx: Ctx, tool: Tool, inv: Invocation): Promise<Outcome> {
  const report = inv.caller?.rateLimits ?? new RateLimitReport();
  try {
    const caller = inv.caller ?? resolveCaller(ctx, inv.credential, inv.requestId, { clientAddress: inv.clientAddress, report });
    // An operator tool does not exist for a key: the same answer as an unknown tool.
    if (tool.audience === 'operator' && !caller.operator) throw new ApiError('not_found', `Unknown tool "${tool.name}".`);
    const refusal = tool.planGate?.(ctx, caller.workspace) ?? null;
    if (refusal) {
      if (!caller.operator) report.add(ctx.limits.peekGlobal(caller.keyId));
      throw refusal;
    }
    if (!caller.operator) enforceRateLimits(ctx, caller, tool.rateLimit);
    if (inv.inputError) throw inv.inputError;
    const parsed = tool.input.safeParse(inv.input);
    if (!parsed.success) throw zodToApiError(parsed.error);
    const key = idempotencyKeyOf(inv);
    const handle = async () => tool.handler(ctx, parsed.data, caller);
    const headers = rateLimitHeaders(report.states);
    if (key === undefined) return { ok: true, ...settle(await handle()), headers };
    const keyField = inv.idempotencyKeyField ?? 'idempotencyKey';
    const { replayed, ...settled } = await runIdempotent(ctx, tool, caller, { key, keyField, input: inv.input }, handle);
    if (replayed) headers['Idempotent-Replayed'] = 'true';
    return { ok: true, ...settled, headers };
  } catch (err) {
    const error = toApiError(err);
    if (!(err instanceof ApiError)) ctx.log.error({ err, tool: tool.name, requestId: inv.requestId }, 'tool failed');
    return { ok: false, error, headers: errorHeaders(error, report) };
  }
}
