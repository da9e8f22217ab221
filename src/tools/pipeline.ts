import type { Ctx } from '../core/context.js';
import { ApiError, toApiError } from '../core/errors.js';
import { authenticateKey } from '../core/auth/keys.js';
import { zodToApiError } from '../core/validation.js';
import { BLOCKED_PLANS, getWorkspace } from '../core/workspace/get.js';
import { IdempotencyKey, settle, type Caller, type Tool } from './define.js';
import { runIdempotent } from './idempotency.js';

/** How the caller proved who it is: an API key, or (MCP over OAuth) a bearer token. */
export interface Credential {
  apiKey?: string | null | undefined;
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
  requestId: string;
}

export type Outcome =
  | { ok: true; status: number; body: unknown; json: string; headers: Record<string, string> }
  | { ok: false; error: ApiError; headers: Record<string, string> };

/**
 * Resolves a credential to a caller: the key must exist, be unrevoked and of this
 * environment; the workspace's plan must allow API use.
 */
export function resolveCaller(ctx: Ctx, credential: Credential, requestId: string): Caller {
  const { keyId } = authenticateKey(ctx, credential.apiKey);
  const workspace = getWorkspace(ctx);
  if (!workspace) throw new ApiError('unauthorized', 'This server holds no workspace yet. Run `npx outreach seed` or `npm start` first.');
  if (BLOCKED_PLANS.has(workspace.plan)) {
    throw new ApiError('plan_required', `The ${workspace.plan} plan cannot use the API. A paid plan is required.`);
  }
  return { keyId, workspace, requestId };
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
 * The single call pipeline behind REST and MCP: auth, plan gate, input validation,
 * idempotency, handler. Both transports call it, so the two can never drift apart.
 */
export async function invokeTool(ctx: Ctx, tool: Tool, inv: Invocation): Promise<Outcome> {
  const headers: Record<string, string> = {};
  try {
    const caller = resolveCaller(ctx, inv.credential, inv.requestId);
    if (inv.inputError) throw inv.inputError;
    const parsed = tool.input.safeParse(inv.input);
    if (!parsed.success) throw zodToApiError(parsed.error);
    const key = idempotencyKeyOf(inv);
    const handle = async () => tool.handler(ctx, parsed.data, caller);
    if (key === undefined) return { ok: true, ...settle(await handle()), headers };
    const keyField = inv.idempotencyKeyField ?? 'idempotencyKey';
    const { replayed, ...settled } = await runIdempotent(ctx, tool, caller, { key, keyField, input: inv.input }, handle);
    if (replayed) headers['Idempotent-Replayed'] = 'true';
    return { ok: true, ...settled, headers };
  } catch (err) {
    const error = toApiError(err);
    if (!(err instanceof ApiError)) ctx.log.error({ err, tool: tool.name, requestId: inv.requestId }, 'tool failed');
    if (error.details.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.details.retryAfterSeconds);
    return { ok: false, error, headers };
  }
}
