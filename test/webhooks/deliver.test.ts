import { createHmac, randomBytes } from 'node:crypto';
import type { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { deliverOnce, MAX_LOGGED_RESPONSE_BYTES } from '../../src/workers/webhooks/deliver.js';
import { nextAttemptDelay } from '../../src/core/webhooks/schedule.js';
import { deliveryHeaders } from '../../src/core/webhooks/sign.js';
import { createGuardedAgent } from '../../src/workers/webhooks/guarded-agent.js';
import { startReceiver, type Receiver } from './receiver.js';

const body = JSON.stringify({ id: 'evt_1', type: 'lead.tagged', data: { accountId: 'acc_1', leadId: 'lead_ada1', tag: 'hot' } });

let agent: Agent;
const receivers: Receiver[] = [];
async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

beforeAll(() => {
  agent = createGuardedAgent({ mode: 'development', allowHosts: [] });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => agent.close());

function send(url: string, extra: { timeoutMs?: number; clock?: FakeClock; secret?: string | null; dispatcher?: Agent } = {}) {
  const clock = extra.clock ?? new FakeClock();
  const headers = deliveryHeaders({
    eventId: 'evt_1',
    timestampSeconds: Math.floor(clock.now() / 1000),
    body,
    secret: extra.secret === undefined ? 's3cret' : extra.secret,
  });
  return deliverOnce({ url, body, headers, dispatcher: extra.dispatcher ?? agent, clock, timeoutMs: extra.timeoutMs });
}

describe('deliverOnce', () => {
  it('a receiver verifies both signature schemes with its own code (plain and whsec_ secrets)', async () => {
    const whsec = `whsec_${randomBytes(32).toString('base64')}`;
    for (const secret of ['s3cret', whsec]) {
      // The receiver's check, written as a third party would from the docs.
      let verdict = { staticOk: false, hmacOk: false };
      const r = await receiver((req, res) => {
        const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
        const signed = `${req.headers['webhook-id']}.${req.headers['webhook-timestamp']}.${req.body}`;
        const expected = createHmac('sha256', key).update(signed).digest('base64');
        verdict = {
          staticOk: req.headers['x-webhook-signature'] === secret && req.headers['x-service-signature'] === secret,
          hmacOk: String(req.headers['webhook-signature']).split(' ').includes(`v1,${expected}`),
        };
        res.writeHead(204).end();
      });
      const result = await send(r.url, { secret });
      expect(result).toMatchObject({ ok: true, status: 204, error: null, disableEndpoint: false, retryAfterSeconds: null });
      expect(verdict).toEqual({ staticOk: true, hmacOk: true });
      const req = r.requests[0];
      expect(req?.method).toBe('POST');
      expect(req?.body).toBe(body);
      expect(req?.headers['content-type']).toBe('application/json');
      expect(req?.headers['user-agent']).toBe('outreach-mcp-webhooks/1');
      expect(req?.headers['webhook-id']).toBe('evt_1');
      expect(req?.headers['webhook-timestamp']).toBe(String(Math.floor(new FakeClock().now() / 1000)));
    }
  });

  it('sends no signature headers when no secret is configured', async () => {
    const r = await receiver();
    expect((await send(r.url, { secret: null })).ok).toBe(true);
    const h = r.requests[0]?.headers ?? {};
    expect(h['webhook-id']).toBe('evt_1');
    expect([h['webhook-signature'], h['x-webhook-signature'], h['x-service-signature']]).toEqual([undefined, undefined, undefined]);
  });

  it('any 2xx is success', async () => {
    const r = await receiver((_req, res) => res.writeHead(202).end('queued'));
    expect(await send(r.url)).toMatchObject({ ok: true, status: 202, responseBody: 'queued' });
  });

  it('a 500 is a failure with the response body kept for the log', async () => {
    const r = await receiver((_req, res) => res.writeHead(500).end('boom'));
    expect(await send(r.url)).toMatchObject({ ok: false, status: 500, error: 'HTTP 500', responseBody: 'boom', disableEndpoint: false });
  });

  it('keeps only the first KiB of a large response', async () => {
    const r = await receiver((_req, res) => res.writeHead(400).end('x'.repeat(1024 * 1024)));
    const result = await send(r.url);
    expect(result.status).toBe(400);
    expect(result.responseBody).toHaveLength(MAX_LOGGED_RESPONSE_BYTES);
  });

  it('410 Gone asks for the endpoint to be disabled', async () => {
    const r = await receiver((_req, res) => res.writeHead(410).end());
    expect(await send(r.url)).toMatchObject({ ok: false, status: 410, disableEndpoint: true, error: 'HTTP 410 Gone' });
  });

  it.each([301, 302, 307, 308])('does not follow a %i redirect', async (status) => {
    const target = await receiver();
    const r = await receiver((_req, res) => res.writeHead(status, { location: target.url }).end());
    expect(await send(r.url)).toMatchObject({ ok: false, status, error: `redirect not followed (${status})` });
    expect(target.connections).toBe(0);
  });

  it('gives up after timeoutMs when the receiver never answers', async () => {
    const r = await receiver(() => {});
    const started = performance.now();
    const result = await send(r.url, { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout' });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('the timeout also covers a body that stalls after the headers', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    expect(await send(r.url, { timeoutMs: 300 })).toMatchObject({ ok: false, error: 'timeout' });
  });

  it('reads Retry-After in seconds and as an HTTP date, and the schedule honours it', async () => {
    const clock = new FakeClock(Date.parse('2026-11-21T12:00:00Z'));
    const seconds = await receiver((_req, res) => res.writeHead(429, { 'retry-after': '120' }).end());
    const r1 = await send(seconds.url, { clock });
    expect(r1).toMatchObject({ ok: false, status: 429, retryAfterSeconds: 120 });
    expect(nextAttemptDelay(1, () => 0.5, r1.retryAfterSeconds)).toBe(120_000);

    const date = await receiver((_req, res) => res.writeHead(503, { 'retry-after': 'Sat, 21 Nov 2026 13:00:00 GMT' }).end());
    expect((await send(date.url, { clock })).retryAfterSeconds).toBe(3600);
  });

  it('reports a refused connection', async () => {
    const r = await startReceiver();
    const url = r.url;
    await r.close();
    expect(await send(url)).toMatchObject({ ok: false, status: null, error: 'connection refused' });
  });

  it('in production the guard refuses a loopback receiver, which sees no connection', async () => {
    const r = await receiver();
    const prod = createGuardedAgent({ mode: 'production', allowHosts: [] });
    try {
      const result = await send(r.url, { dispatcher: prod });
      expect(result).toMatchObject({ ok: false, status: null, error: 'refused by SSRF guard: loopback address' });
      const viaName = await send(`http://localhost:${r.port}/hook`, { dispatcher: prod });
      expect(viaName.error).toBe('refused by SSRF guard: loopback address');
      expect(r.connections).toBe(0);
    } finally {
      await prod.close();
    }
  });

  it('rejects a bad url without sending anything', async () => {
    expect(await send('https://u:p@example.com/')).toMatchObject({ ok: false, error: 'credentials in the url are not allowed; use the signing secret' });
    expect((await send('gopher://example.com/')).error).toBe('unsupported url scheme (gopher); use http or https');
  });

  it('measures duration with the injected clock', async () => {
    const r = await receiver();
    let t = 1_000;
    const ticking = Object.assign(new FakeClock(), { now: () => (t += 250) });
    expect((await send(r.url, { clock: ticking })).durationMs).toBe(250);
  });
});
