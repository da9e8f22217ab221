import type { Dispatcher } from 'undici';
import type { Clock } from '../../core/clock.js';
import { parseRetryAfter } from '../../core/webhooks/schedule.js';
import { validateWebhookUrl } from '../../core/webhooks/ssrf.js';
import type { DeliveryResult } from '../../core/webhooks/deliveries.js';

export type { DeliveryResult };

export const DEFAULT_TIMEOUT_MS = 15_000;
/** Enough of the receiver's answer to debug from the delivery log, small enough to store per attempt. */
export const MAX_LOGGED_RESPONSE_BYTES = 1024;

export interface DeliverOnceInput {
  url: string;
  body: string;
  /** From `deliveryHeaders`. */
  headers: Record<string, string>;
  /** Use the agent from `createGuardedAgent`; it is required so no delivery bypasses the SSRF guard. */
  dispatcher: Dispatcher;
  clock: Clock;
  /** Overall budget for connect, headers and body. */
  timeoutMs?: number;
}

/**
 * One POST of one event to one endpoint. Redirects are not followed (the target was never
 * checked and would receive the signature headers). Never throws: every outcome is a result.
 */
export async function deliverOnce(input: DeliverOnceInput): Promise<DeliveryResult> {
  const started = input.clock.now();
  const finish = (r: Omit<DeliveryResult, 'durationMs'>): DeliveryResult => ({
    ...r,
    durationMs: Math.max(0, input.clock.now() - started),
  });
  const fail = (error: string): DeliveryResult =>
    finish({ ok: false, status: null, error, responseBody: null, retryAfterSeconds: null, disableEndpoint: false });

  const checked = validateWebhookUrl(input.url);
  if (!checked.ok) return fail(checked.error);

  const controller = new AbortController();
  let timedOut = false;
  // A real timer, not the injected clock: the budget protects a real socket.
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, input.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    // Loaded here, not at start: see WebhookWorker's agent().
    const { request } = await import('undici');
    const res = await request(checked.url, {
      method: 'POST',
      headers: input.headers,
      body: input.body,
      dispatcher: input.dispatcher,
      signal: controller.signal,
    });
    const responseBody = await readCapped(res.body, MAX_LOGGED_RESPONSE_BYTES);
    const status = res.statusCode;
    const ok = status >= 200 && status < 300;
    return finish({
      ok,
      status,
      error: ok ? null : statusError(status),
      responseBody,
      retryAfterSeconds: ok ? null : parseRetryAfter(res.headers['retry-after'], input.clock.now()),
      disableEndpoint: status === 410,
    });
  } catch (err) {
    return fail(timedOut ? 'timeout' : describeError(err));
  } finally {
    clearTimeout(timer);
  }
}

function statusError(status: number): string {
  if (status >= 300 && status < 400) return `redirect not followed (${status})`;
  if (status === 410) return 'HTTP 410 Gone';
  return `HTTP ${status}`;
}

/** Stops reading at `max` bytes; leaving the loop destroys the stream, so a huge answer is not downloaded. */
async function readCapped(body: AsyncIterable<Buffer>, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= max) break;
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

const ERROR_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed by receiver',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ETIMEDOUT: 'connect timeout',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'dns lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_INVALID_ARG: 'invalid request',
};

/** Our own words for a transport failure; library messages are not forwarded to the log. */
function describeError(err: unknown): string {
  const found = findCode(err, 0);
  if (found === null) return 'network error';
  if (found.code === 'ERR_SSRF_REFUSED') return found.message;
  const text = ERROR_TEXT[found.code];
  if (text !== undefined) return text;
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(found.code)) return 'tls error';
  return 'network error';
}

/** Connect errors arrive bare, wrapped in `cause`, or inside an AggregateError (happy eyeballs). */
function findCode(err: unknown, depth: number): { code: string; message: string } | null {
  if (depth > 3 || typeof err !== 'object' || err === null) return null;
  const { code, message, cause, errors } = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (code === 'ERR_SSRF_REFUSED' || code in ERROR_TEXT)) return { code, message: String(message) };
  for (const inner of [cause, ...(Array.isArray(errors) ? errors : [])]) {
    const found = findCode(inner, depth + 1);
    if (found !== null) return found;
  }
  return typeof code === 'string' ? { code, message: String(message) } : null;
}
