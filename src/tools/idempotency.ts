import type { Ctx } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import {
  finalizeKey,
  heartbeatKey,
  KEY_HEARTBEAT_MS,
  markKeyBegun,
  releaseKey,
  requestFingerprint,
  reserveKey,
  type IdempotencyScope,
} from '../core/idempotency/store.js';
import { settle, type Caller, type Settled, type Tool } from './define.js';

export interface IdempotentRun {
  key: string;
  /** The name the caller gave the key (`Idempotency-Key` on REST), for messages. */
  keyField: string;
  /** The validated arguments as the caller sent them: path parameters plus body. */
  input: unknown;
}

/** The bytes of a replay go out again as stored; `replayed` lets REST flag it in a header. */
export type IdempotentResult = Settled & { replayed: boolean };

const keyNotRecorded = (keyField: string) =>
  new ApiError('upstream_unavailable', `The ${keyField} could not be recorded, so nothing was performed. Retry the same request with the same key.`);

function scopeOf(tool: Tool, caller: Caller, run: IdempotentRun): IdempotencyScope {
  const input = (run.input ?? {}) as Record<string, unknown>;
  const params: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) (tool.pathParams.includes(name) ? params : body)[name] = value;
  const fingerprint = requestFingerprint({ method: tool.http.method, route: tool.http.path, params, body });
  return { apiKeyId: caller.keyId, key: run.key, fingerprint };
}

/**
 * The idempotency stage of the pipeline, between input validation and the handler. It
 * reserves the key before anything is performed, replays a stored success, and afterwards
 * keeps or releases the key by the tool's own `keepKey` rule. Tools opt in with
 * `idempotent: true`; none of them carries idempotency code of its own. `handle` is given the
 * mark to make in the transaction of the handler's first write (the pipeline hands it to the
 * audit scope, which finds that transaction): from then on a crash leaves the key `begun`, and
 * a retry is refused rather than run twice.
 */
export async function runIdempotent(
  ctx: Ctx,
  tool: Tool,
  caller: Caller,
  run: IdempotentRun,
  handle: (onFirstWrite: () => void) => Promise<unknown>,
): Promise<IdempotentResult> {
  const scope = scopeOf(tool, caller, run);
  let reservation;
  try {
    reservation = reserveKey(ctx, scope, run.keyField);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    ctx.log.error({ err, tool: tool.name, requestId: caller.requestId }, 'idempotency key could not be recorded');
    throw keyNotRecorded(run.keyField);
  }
  if (reservation.kind === 'replay') {
    return { status: reservation.status, body: JSON.parse(reservation.body) as unknown, json: reservation.body, replayed: true };
  }

  let result: unknown;
  // While the request runs, its reservation is renewed: a reservation left unrenewed is a
  // request whose process died, and only such a one is taken over or called interrupted.
  const renew = setInterval(() => {
    try {
      heartbeatKey(ctx, scope);
    } catch (err) {
      ctx.log.warn({ err, tool: tool.name, requestId: caller.requestId }, 'idempotency key could not be renewed');
    }
  }, KEY_HEARTBEAT_MS);
  renew.unref();
  try {
    result = await handle(() => markKeyBegun(ctx, scope));
  } catch (err) {
    forget(ctx, tool, caller, scope);
    throw err;
  } finally {
    clearInterval(renew);
  }
  const settled = settle(result);
  if (tool.keepKey?.(result) ?? true) {
    try {
      finalizeKey(ctx, scope, settled.status, settled.json);
    } catch (err) {
      // The work is done and must be reported; the reservation stays as it is, so a retry
      // gets 409 instead of performing the work twice.
      ctx.log.error({ err, tool: tool.name, requestId: caller.requestId }, 'idempotency result could not be stored');
    }
  } else {
    forget(ctx, tool, caller, scope);
  }
  return { ...settled, replayed: false };
}

function forget(ctx: Ctx, tool: Tool, caller: Caller, scope: IdempotencyScope): void {
  try {
    releaseKey(ctx, scope);
  } catch (err) {
    // An unreleased reservation only delays a retry until it goes unrenewed (KEY_STALE_MS).
    ctx.log.error({ err, tool: tool.name, requestId: caller.requestId }, 'idempotency key could not be released');
  }
}
