import { CrmError } from '../../../core/network/crm.js';

/** What the adapter was doing when a call failed, for the message the sync log shows. */
export type HubSpotCall = string;

/**
 * The parts of `ApiException` (the error every generated HubSpot API throws for a non-2xx answer)
 * the adapter reads: the status, the parsed body and the response headers, all public fields.
 */
interface ApiExceptionLike {
  code: number;
  body: unknown;
  headers: Record<string, string>;
}

const isApiException = (e: unknown): e is ApiExceptionLike =>
  typeof e === 'object' &&
  e !== null &&
  typeof (e as { code?: unknown }).code === 'number' &&
  'body' in e &&
  typeof (e as { headers?: unknown }).headers === 'object';

/** The HubSpot error body's `message` (`{ status: "error", message, correlationId, category }`). */
export function hubspotMessage(body: unknown): string | null {
  if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') return (body as { message: string }).message;
  return null;
}

/** Retry-After is seconds (or an HTTP date); HubSpot sends seconds. Null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Removes every occurrence of the token from a text that is about to leave the adapter. */
export function redact(text: string, token: string | null): string {
  if (!token) return text;
  return text.split(token).join('[redacted]');
}

/** A non-2xx answer that the adapter raises itself when an answer is not what HubSpot documents. */
export function unexpected(call: HubSpotCall, what: string): CrmError {
  return new CrmError(`HubSpot ${call}: ${what}`, true, null);
}

/**
 * Maps whatever a client call threw to a CrmError:
 * - 429: retryable, with the Retry-After HubSpot sent;
 * - 5xx, a dropped or refused connection, a timeout: retryable;
 * - 401, 403 (token refused, scope missing), 400 and other 4xx: not retryable as such, a person
 *   must act; the outbox still retries a 401 or 403 on its schedule (core/crm/outbox.ts), so a
 *   token fixed in time loses nothing.
 * The message never carries the token: the response headers are not quoted, and any text that
 * did carry it is redacted.
 */
export function toCrmError(call: HubSpotCall, error: unknown, token: string | null): CrmError {
  if (error instanceof CrmError) return new CrmError(redact(error.message, token), error.retryable, error.status, error.retryAfterMs);
  if (isApiException(error)) {
    const status = error.code;
    const said = hubspotMessage(error.body);
    const detail = said ? `: ${said}` : '';
    let message: string;
    let retryable: boolean;
    let wait: number | null = null;
    if (status === 429) {
      wait = retryAfterMs(error.headers['retry-after']);
      message = `HubSpot rate limit on ${call}${detail}`;
      retryable = true;
    } else if (status >= 500) {
      message = `HubSpot answered ${status} on ${call}${detail}`;
      retryable = true;
    } else if (status === 401) {
      message = `HubSpot refused the token on ${call} (401)${detail}`;
      retryable = false;
    } else if (status === 403) {
      message = `HubSpot refused ${call} (403): the private app lacks a scope${detail}`;
      retryable = false;
    } else {
      message = `HubSpot refused ${call} (${status})${detail}`;
      retryable = false;
    }
    return new CrmError(redact(message, token), retryable, status, wait);
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new CrmError(redact(`HubSpot unreachable on ${call}: ${reason}`, token), true, null);
}
