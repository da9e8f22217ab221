import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const USER_AGENT = 'outreach-mcp-webhooks/1';

const WHSEC_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The static secret travels verbatim in two headers, so it must be a legal, untrimmed header value. */
const HEADER_SAFE = /^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/;

/**
 * Why a configured signing secret is unusable, or null when it is fine. The config loader calls
 * this at startup so that a bad secret fails there, not on every delivery.
 */
export function signingSecretProblem(secret: string): string | null {
  if (!HEADER_SAFE.test(secret)) {
    return 'the signing secret must be printable ASCII without leading or trailing spaces';
  }
  if (secret.startsWith(WHSEC_PREFIX)) {
    const rest = secret.slice(WHSEC_PREFIX.length);
    if (rest.length === 0 || !BASE64.test(rest)) {
      return 'a secret starting with whsec_ must continue with standard base64';
    }
  }
  return null;
}

/** Standard Webhooks convention: `whsec_<base64>` carries raw key bytes; any other secret is used as UTF-8. */
export function hmacKey(secret: string): Buffer {
  const problem = signingSecretProblem(secret);
  if (problem !== null) throw new TypeError(problem);
  return secret.startsWith(WHSEC_PREFIX) ? Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`. */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${hmacDigest(hmacKey(secret), id, timestampSeconds, body).toString('base64')}`;
}

function hmacDigest(key: Buffer, id: string, timestampSeconds: number, body: string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest();
}

export interface DeliveryHeadersInput {
  /** The event id: `webhook-id` must stay the same across retries so receivers can deduplicate. */
  eventId: string;
  /** Unix seconds of this attempt (each attempt is signed afresh). */
  timestampSeconds: number;
  body: string;
  /** null or '' means no secret is configured: no signature headers are sent. */
  secret: string | null;
}

/**
 * Headers for one delivery attempt. `webhook-id` and `webhook-timestamp` are always sent so that
 * receivers can deduplicate even without a secret; the three signature headers only with one.
 * Throws TypeError when the secret fails `signingSecretProblem`.
 */
export function deliveryHeaders(input: DeliveryHeadersInput): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'webhook-id': input.eventId,
    'webhook-timestamp': String(input.timestampSeconds),
  };
  if (input.secret !== null && input.secret !== '') {
    headers['X-Service-Signature'] = input.secret;
    headers['X-Webhook-Signature'] = input.secret;
    headers['webhook-signature'] = standardSignature(input.secret, input.eventId, input.timestampSeconds, input.body);
  }
  return headers;
}

export type IncomingHeaders = Record<string, string | string[] | undefined>;

export interface VerifyStandardWebhookInput {
  secret: string;
  headers: IncomingHeaders;
  /** The raw request body, exactly as received (not re-serialised JSON). */
  body: string;
  nowSeconds: number;
  /** Replay window; Standard Webhooks suggests 5 minutes. */
  toleranceSeconds?: number;
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'timestamp_out_of_tolerance' | 'no_matching_signature' };

/**
 * Receiver-side check of the Standard Webhooks signature. Accepts a space-separated list of
 * signatures (as during secret rotation) and compares digests in constant time.
 */
export function verifyStandardWebhook(input: VerifyStandardWebhookInput): VerifyResult {
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signatures = header(input.headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    return { ok: false, reason: 'missing_headers' };
  }
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const ts = Number(timestamp);
  if (Math.abs(input.nowSeconds - ts) > (input.toleranceSeconds ?? 300)) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }
  const expected = hmacDigest(hmacKey(input.secret), id, ts, input.body);
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || value === undefined) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'no_matching_signature' };
}

/**
 * Receiver-side check of the spec's static `X-Webhook-Signature` / `X-Service-Signature` value.
 * Both sides are hashed first so the comparison is constant-time whatever the lengths.
 */
export function verifyStaticSignature(received: string | undefined, secret: string): boolean {
  if (received === undefined) return false;
  const a = createHash('sha256').update(received).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

function header(headers: IncomingHeaders, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}
