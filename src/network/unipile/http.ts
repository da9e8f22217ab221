import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Dispatcher, FormData } from 'undici';
import type { Clock } from '../../core/clock.js';
import { networkError } from '../../core/network/provider.js';
import { slugOf, UnipileHttpError, type CallContext } from './errors.js';

export interface UnipileHttpOptions {
  /** `https://{DSN}/api/v1` */
  baseUrl: string;
  apiKey: string;
  /** An undici dispatcher (connection pool); the global one when absent. */
  dispatcher?: Dispatcher | undefined;
  /** Whole-call budget per attempt, connect to last body byte. */
  timeoutMs: number;
  /** Extra attempts for a call that may be repeated. */
  maxRetries: number;
  /** A Retry-After longer than this is not waited for: the caller gets the error at once. */
  maxRetryDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Wall time, for HTTP-date Retry-After values. */
  wallClock: Clock;
  log: Logger;
}

export interface CallSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** Below the base, with path segments already encoded: `/users/invite`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  /** multipart/form-data fields, in order; a repeated name is an array (`attendees_ids`). */
  form?: readonly (readonly [string, string])[];
  /**
   * Whether repeating the call is harmless (reads and searches). Only such calls are retried
   * after a 5xx, 429 or timeout; a send is retried only when the connection was never made.
   */
  idempotent: boolean;
  ctx: CallContext;
}

/** Connection failures that prove the request never reached Unipile. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'TimeoutError', 'AbortError']);
const BASE_BACKOFF_MS = 300;

type Attempt = { kind: 'response'; status: number; body: unknown; retryAfterMs: number | null } | { kind: 'transport'; notSent: boolean; timedOut: boolean };

/**
 * The one way to Unipile: `X-API-KEY` auth, a timeout per attempt, bounded retries with
 * exponential backoff that honour `Retry-After`, and errors as `UnipileHttpError` (an answer)
 * or `upstream_unavailable` (no answer). It logs method, path, status and timing; never the
 * key, bodies or query strings.
 */
export class UnipileHttp {
  constructor(private readonly opts: UnipileHttpOptions) {}

  /** The parsed JSON body of a 2xx answer (null when empty). */
  async call(spec: CallSpec): Promise<unknown> {
    const attempts = 1 + Math.max(0, this.opts.maxRetries);
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const result = await this.attempt(spec);
      const last = attempt >= attempts;
      if (result.kind === 'response') {
        this.opts.log.debug(
          { method: spec.method, path: spec.path, status: result.status, attempt, ms: Math.round(performance.now() - started) },
          'unipile call',
        );
        if (result.status >= 200 && result.status < 300) return result.body;
        const error = new UnipileHttpError(result.status, slugOf(result.body), result.retryAfterMs);
        const retryable = spec.idempotent && (result.status >= 500 || result.status === 429);
        const delay = this.delay(attempt, result.retryAfterMs);
        if (!retryable || last || delay > this.opts.maxRetryDelayMs) {
          if (result.status >= 500 || result.status === 429)
            this.opts.log.warn({ method: spec.method, path: spec.path, status: result.status, type: error.slug }, 'unipile call failed');
          throw error;
        }
        await this.opts.sleep(delay);
        continue;
      }
      this.opts.log.warn({ method: spec.method, path: spec.path, attempt, timedOut: result.timedOut, notSent: result.notSent }, 'unipile unreachable');
      const retryable = result.notSent || spec.idempotent;
      if (!retryable || last) throw this.unreachable(spec, result);
      await this.opts.sleep(this.delay(attempt, null));
    }
  }

  private async attempt(spec: CallSpec): Promise<Attempt> {
    // Loaded on the first call, not at start: undici is over a hundred modules, and a development server never calls Unipile.
    const { FormData, request } = await import('undici');
    const url = new URL(this.opts.baseUrl + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'x-api-key': this.opts.apiKey, accept: 'application/json' };
    let body: string | FormData | undefined;
    if (spec.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.json);
    } else if (spec.form !== undefined) {
      // undici writes the multipart Content-Type with its boundary itself.
      const form = new FormData();
      for (const [name, value] of spec.form) form.append(name, value);
      body = form;
    }
    try {
      const res = await request(url, {
        method: spec.method,
        headers,
        body,
        dispatcher: this.opts.dispatcher,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
      });
      const text = await res.body.text();
      let parsed: unknown = null;
      if (text.trim() !== '') {
        try {
          parsed = JSON.parse(text) as unknown;
        } catch {
          // A non-JSON body (a proxy's HTML page) says nothing more than its status.
          parsed = null;
        }
      }
      const retryAfter = res.headers['retry-after'];
      return {
        kind: 'response',
        status: res.statusCode,
        body: parsed,
        retryAfterMs: this.retryAfterMs(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
      };
    } catch (err) {
      const code = errorCode(err);
      return { kind: 'transport', notSent: NOT_SENT.has(code), timedOut: TIMEOUTS.has(code) };
    }
  }

  private unreachable(spec: CallSpec, result: Extract<Attempt, { kind: 'transport' }>) {
    if (spec.ctx.kind === 'send' && !result.notSent) {
      return networkError(
        'upstream_unavailable',
        'The network did not confirm the send in time, so it may or may not have been delivered. Check the conversation before sending again.',
        { ambiguous: true },
      );
    }
    return networkError('upstream_unavailable', result.timedOut ? 'The network did not answer in time. Nothing was changed; retry shortly.' : undefined);
  }

  private delay(attempt: number, retryAfterMs: number | null): number {
    if (retryAfterMs !== null) return retryAfterMs;
    return BASE_BACKOFF_MS * 2 ** (attempt - 1) + Math.floor(Math.random() * 100);
  }

  /** Seconds, or an HTTP date, as milliseconds from now; null when absent or unreadable. */
  private retryAfterMs(value: string | undefined): number | null {
    if (value === undefined) return null;
    const text = value.trim();
    if (/^\d+$/.test(text)) return Number(text) * 1000;
    const at = Date.parse(text);
    return Number.isNaN(at) ? null : Math.max(0, at - this.opts.wallClock.now());
  }
}

function errorCode(err: unknown): string {
  if (err === null || typeof err !== 'object') return '';
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  if (typeof e.code === 'string') return e.code;
  if (e.cause && typeof e.cause.code === 'string') return e.cause.code;
  return typeof e.name === 'string' ? e.name : '';
}
