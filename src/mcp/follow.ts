import type { Ctx } from '../core/context.js';
import { listenToChanges } from '../core/live/feed.js';
import type { ProgressReporter } from '../core/progress.js';
import type { Tool } from '../tools/define.js';

/**
 * How long a followed call waits for a change before it reads the work again anyway: the change
 * feed wakes it sooner for every commit (its own process's and another's), so this only bounds
 * what a missed wake-up would cost.
 */
export const FOLLOW_RECHECK_MS = 2_000;

/**
 * How long a followed call stays open at most. Clients time a request out (the SDKs' default is
 * 60 s, and not every client resets it on progress), so past this the call answers with its
 * launch result while the work goes on in its worker; get_campaign and the campaign's live
 * resource keep telling the rest.
 */
export const FOLLOW_MAX_MS = 50_000;

/**
 * Keeps a call that sent a progress token open while the work it started goes on (a Lookalike
 * build, see ToolSpec.task's `follow`), reporting each step the work reaches, until the work
 * ends or the call is cancelled (the client sent notifications/cancelled, went away, or its
 * reporter can no longer send). Progress notifications belong to a request in flight, so the
 * call answers only once it has nothing more to report, or after FOLLOW_MAX_MS: the answer
 * itself is the handler's, unchanged. The work never depends on this: it runs in its worker whether anyone follows it.
 */
export async function followWithProgress(
  ctx: Ctx,
  tool: Tool,
  body: unknown,
  report: ProgressReporter,
  call: { keyId: string; requestId: string | number; signal: AbortSignal },
): Promise<void> {
  const follow = tool.task?.follow;
  if (!follow) return;
  const { signal, release } = cancellable(ctx, call);
  let wake: (() => void) | undefined;
  const stop = listenToChanges(ctx, () => wake?.());
  const aborted = () => wake?.();
  signal.addEventListener('abort', aborted);
  const until = Date.now() + FOLLOW_MAX_MS;
  try {
    for (;;) {
      if (signal.aborted || Date.now() >= until) return;
      const work = follow(ctx, body);
      const message = work.message;
      if (work.step) report(work.step.done, work.step.total, message);
      if (work.done) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, Math.min(FOLLOW_RECHECK_MS, until - Date.now())));
        timer.unref();
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    signal.removeEventListener('abort', aborted);
    stop();
    release();
  }
}

/**
 * The requests held open in flight (a followed call, a waiting read of the changes resource),
 * by key and request id. A 2025-era client over stateless HTTP cancels with a
 * notifications/cancelled POST of its own, which reaches a fresh server instance, not the one
 * holding the request: the HTTP face hands it to `cancelFollowed`.
 */
const followed = new WeakMap<object, Map<string, AbortController>>();

function followedOf(ctx: Ctx): Map<string, AbortController> {
  let calls = followed.get(ctx.db);
  if (!calls) {
    calls = new Map();
    followed.set(ctx.db, calls);
  }
  return calls;
}

const followedId = (keyId: string, requestId: string | number): string => `${keyId}\n${JSON.stringify(requestId)}`;

/**
 * A signal for a request held open: it aborts with the request's own signal, or when the key
 * cancels the request by id (cancelFollowed). `release` forgets it once the request ends.
 */
export function cancellable(ctx: Ctx, call: { keyId: string; requestId: string | number; signal: AbortSignal }): { signal: AbortSignal; release: () => void } {
  const calls = followedOf(ctx);
  const id = followedId(call.keyId, call.requestId);
  const cancelled = new AbortController();
  calls.set(id, cancelled);
  return {
    signal: AbortSignal.any([call.signal, cancelled.signal]),
    release: () => {
      if (calls.get(id) === cancelled) calls.delete(id);
    },
  };
}

/** Ends the request `requestId` of this key held open, if there is one: a followed call answers at once, a waiting read ends. */
export function cancelFollowed(ctx: Ctx, keyId: string, requestId: string | number): void {
  followed.get(ctx.db)?.get(followedId(keyId, requestId))?.abort();
}

/** How many calls this process is following now (each holds its exchange open). */
export const followedCalls = (ctx: Ctx): number => followed.get(ctx.db)?.size ?? 0;
