import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deliveryHeaders,
  signingSecretProblem,
  standardSignature,
  USER_AGENT,
  verifyStandardWebhook,
  verifyStaticSignature,
} from '../../src/core/webhooks/sign.js';

/** Written from the Standard Webhooks spec, independent of src/core/webhooks/sign.ts. */
function referenceSignature(secret: string, id: string, ts: number, body: string): string {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret);
  return `v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
}

const body = JSON.stringify({ type: 'lead.tagged', data: { accountId: 'acc_1', leadId: 'lead_ada1' } });
const whsec = `whsec_${randomBytes(24).toString('base64')}`;

describe('deliveryHeaders', () => {
  it('sends both static headers holding exactly the secret, plus Standard Webhooks headers', () => {
    const h = deliveryHeaders({ eventId: 'evt_1', timestampSeconds: 1795262400, body, secret: 'any shared string' });
    expect(h).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Service-Signature': 'any shared string',
      'X-Webhook-Signature': 'any shared string',
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1795262400',
      'webhook-signature': referenceSignature('any shared string', 'evt_1', 1795262400, body),
    });
  });

  it('uses the base64-decoded key for whsec_ secrets', () => {
    const h = deliveryHeaders({ eventId: 'evt_2', timestampSeconds: 1795262400, body, secret: whsec });
    expect(h['webhook-signature']).toBe(referenceSignature(whsec, 'evt_2', 1795262400, body));
    // The raw-string key would give a different digest: the prefix really switches the key.
    const asUtf8 = `v1,${createHmac('sha256', whsec).update(`evt_2.1795262400.${body}`).digest('base64')}`;
    expect(h['webhook-signature']).not.toBe(asUtf8);
    expect(h['X-Webhook-Signature']).toBe(whsec);
  });

  it('without a secret sends id and timestamp but no signature', () => {
    for (const secret of [null, '']) {
      const h = deliveryHeaders({ eventId: 'evt_3', timestampSeconds: 1, body, secret });
      expect(Object.keys(h).sort()).toEqual(['Content-Type', 'User-Agent', 'webhook-id', 'webhook-timestamp']);
    }
  });

  it('the id is stable and the signature follows the timestamp across retries', () => {
    const a = deliveryHeaders({ eventId: 'evt_4', timestampSeconds: 100, body, secret: 's3cret' });
    const b = deliveryHeaders({ eventId: 'evt_4', timestampSeconds: 105, body, secret: 's3cret' });
    expect(a['webhook-id']).toBe(b['webhook-id']);
    expect(a['webhook-signature']).not.toBe(b['webhook-signature']);
  });
});

describe('signingSecretProblem', () => {
  it.each([
    ['any shared string', null],
    [whsec, null],
    ['whsec_', 'base64'],
    ['whsec_not base64!', 'base64'],
    [' padded', 'printable'],
    ['line\nbreak', 'printable'],
    ['', 'printable'],
    ['naïve', 'printable'],
  ])('%j', (secret, problem) => {
    const got = signingSecretProblem(secret);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toContain(problem);
  });

  it('deliveryHeaders refuses an unusable secret instead of signing with a guessed key', () => {
    expect(() => deliveryHeaders({ eventId: 'e', timestampSeconds: 1, body, secret: 'whsec_%%%' })).toThrow(TypeError);
  });
});

describe('verifyStandardWebhook', () => {
  const now = 1795262400;
  const headersFor = (secret: string, ts = now) => deliveryHeaders({ eventId: 'evt_9', timestampSeconds: ts, body, secret });

  it('accepts our own signature for both secret kinds', () => {
    for (const secret of ['plain-secret', whsec]) {
      expect(verifyStandardWebhook({ secret, headers: headersFor(secret), body, nowSeconds: now })).toEqual({ ok: true });
    }
  });

  it('accepts any of several signatures (rotation) and matches headers case-insensitively', () => {
    const h = headersFor('new-secret');
    const headers = { 'Webhook-Id': h['webhook-id'], 'WEBHOOK-TIMESTAMP': h['webhook-timestamp'], 'webhook-signature': `v1,AAAA ${h['webhook-signature']}` };
    expect(verifyStandardWebhook({ secret: 'new-secret', headers, body, nowSeconds: now }).ok).toBe(true);
  });

  it.each([
    ['tampered body', { body: `${body} ` }, 'no_matching_signature'],
    ['wrong secret', { secret: 'other' }, 'no_matching_signature'],
    ['stale timestamp', { nowSeconds: now + 301 }, 'timestamp_out_of_tolerance'],
    ['future timestamp', { nowSeconds: now - 301 }, 'timestamp_out_of_tolerance'],
  ])('rejects %s', (_name, change, reason) => {
    const input = { secret: 'plain-secret', headers: headersFor('plain-secret'), body, nowSeconds: now, ...change };
    expect(verifyStandardWebhook(input)).toEqual({ ok: false, reason });
  });

  it('rejects missing headers and malformed timestamps', () => {
    expect(verifyStandardWebhook({ secret: 's', headers: {}, body, nowSeconds: now })).toEqual({ ok: false, reason: 'missing_headers' });
    const h = { ...headersFor('s'), 'webhook-timestamp': '17e8' };
    expect(verifyStandardWebhook({ secret: 's', headers: h, body, nowSeconds: now })).toEqual({ ok: false, reason: 'bad_timestamp' });
  });

  it('standardSignature equals the reference implementation', () => {
    expect(standardSignature(whsec, 'msg_1', 42, '{}')).toBe(referenceSignature(whsec, 'msg_1', 42, '{}'));
  });
});

describe('verifyStaticSignature', () => {
  it('compares the whole string', () => {
    expect(verifyStaticSignature('any shared string', 'any shared string')).toBe(true);
    expect(verifyStaticSignature('any shared strin', 'any shared string')).toBe(false);
    expect(verifyStaticSignature(undefined, 'any shared string')).toBe(false);
  });
});
