import type { Ctx } from '../core/context.js';
import { ApiError, toApiError } from '../core/errors.js';
import { authenticateKey, type KeyIdentity } from '../core/auth/keys.js';
import { authenticateAccessToken } from '../core/auth/oauth.js';
import { zodToApiError } from '../core/validation.js';
import { BLOCKED_PLANS, getWorkspace } from '../core/workspace/get.js';
import { IdempotencyKey, Reply, type Caller, type Tool } from './define.js';

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
  requestId: string;
}

export type Outcome =
  | { ok: true; status: number; body: unknown; headers: Record<string, string> }
  | { ok: false; error: ApiError; headers: Record<string, string> };

/**
 * Resolves a credential to a caller: the key must exist, be unrevoked and of this
 * environment; the workspace's plan must allow API use.
 */
export function resolveCaller(ctx: Ctx, credential: Credential, requestId: string): Caller {
  const { keyId } = authenticate(ctx, credential);
  const workspace = getWorkspace(ctx);
  if (!workspace) throw new ApiError('unauthorized', 'This server holds no workspace yet. Run `npx outreach seed` or `npm start` first.');
  if (BLOCKED_PLANS.has(workspace.plan)) {
    throw new ApiError('plan_required', `The ${workspace.plan} plan cannot use the API. A paid plan is required.`);
  }
  return { keyId, workspace, requestId };
}

/**
 * The single call pipeline behind REST and MCP: auth, plan gate, input validation, handler.
 * Both transports call it, so the two can never drift apart.
 */
export async function invokeTool(ctx: Ctx, tool: Tool, inv: Invocation): Promise<Outcome> {
  const headers: Record<string, string> = {};
  try {
    const caller = resolveCaller(ctx, inv.credential, inv.requestId);
    if (inv.inputError) throw inv.inputError;
    const parsed = tool.input.safeParse(inv.input);
    if (!parsed.success) throw zodToApiError(parsed.error);
    if (inv.idempotencyKey !== undefined) {
      const field = inv.idempotencyKeyField ?? 'idempotencyKey';
      const key = IdempotencyKey.safeParse(inv.idempotencyKey);
      if (!key.success) throw zodToApiError(key.error, () => field);
    }
    const result = await tool.handler(ctx, parsed.data, caller);
    if (result instanceof Reply) return { ok: true, status: result.status, body: result.body, headers };
    return { ok: true, status: 200, body: result, headers };
  } catch (err) {
    const error = toApiError(err);
    if (!(err instanceof ApiError)) ctx.log.error({ err, tool: tool.name, requestId: inv.requestId }, 'tool failed');
    if (error.details.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.details.retryAfterSeconds);
    return { ok: false, error, headers };
  }
}
