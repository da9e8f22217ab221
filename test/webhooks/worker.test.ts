import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/config.js';
import type { Ctx } from '../../src/core/context.js';
import { ApiError } from '../../src/core/errors.js';
import { claimDue, INTERRUPTED, listDeliveries, redeliver } from '../../src/core/webhooks/deliveries.js';
import { addEndpoint, enableEndpoint, listEndpoints, removeEndpoint, rotateSigningSecret } from '../../src/core/webhooks/endpoints.js';
import { recordLeadEvent } from '../../src/core/webhooks/outbox.js';
import { LeadRepliedEvent, LeadTaggedEvent } from '../../src/core/webhooks/payloads.js';
import { leads, webhookAttempts, webhookDeliveries, webhookEvents } from '../../src/db/schema.js';
import { countRows, transaction } from '../../src/db/tx.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/core/webhooks/schedule.js';
import { verifyStandardWebhook, verifyStaticSignature } from '../../src/core/webhooks/sign.js';
import { webhookPolicy } from '../../src/core/webhooks/ssrf.js';
import { WebhookWorker, type WebhookWorkerOptions } from '../../src/workers/webhooks/worker.js';
import { testCtx } from '../helpers.js';
import { SECRET, tagLead, waitFor, webhookWorkspace } from './helpers.js';
import { startReceiver, type Received, type Receiver } from './receiver.js';

const receivers: Receiver[] = [];
const workers: WebhookWorker[] = [];
const tempDirs: string[] = [];

async function receiver(handler?: (req: Received, res: ServerResponse) => void): Promise<Receiver> {
  const r = await startReceiver(handler);
  receivers.push(r);
  return r;
}
const answer =
  (status: number, headers: Record<string, string> = {}) =>
  (_req: Received, res: ServerResponse) =>
    res.writeHead(status, headers).end(`status ${status}`);

/** A worker in development mode with no jitter (rng 0.5 scales every delay by exactly 1). */
function worker(ctx: Ctx, opts: Partial<WebhookWorkerOptions> = {}): WebhookWorker {
  const w = new WebhookWorker(ctx, { policy: { mode: 'development', allowHosts: [] }, rng: () => 0.5, stopGraceMs: 100, ...opts });
  workers.push(w);
  return w;
}

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const seconds = (ctx: Ctx) => Math.floor(ctx.clock.now() / 1000);
const leadRow = (ctx: Ctx, id: string) => ctx.db.select().from(leads).where(eq(leads.id, id)).get()!;

describe('webhook worker', () => {
  it('delivers the stored payload with both signature schemes and logs the attempt', async () => {
    const r = await receiver(answer(204));
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    const eventId = tagLead(ctx, 'lead_ada1', 'Interested');
    expect(await worker(ctx).drain()).toBe(1);

    const req = r.requests[0]!;
    expect(r.requests).toHaveLength(1);
    expect(req.body).toBe(ctx.db.select().from(webhookEvents).where(eq(webhookEvents.id, eventId)).get()!.payload);
    expect(req.headers['webhook-id']).toBe(eventId);
    expect(req.headers['webhook-timestamp']).toBe(String(seconds(ctx)));
    expect(verifyStandardWebhook({ secret: SECRET, headers: req.headers, body: req.body, nowSeconds: seconds(ctx) })).toEqual({ ok: true });
    expect(verifyStaticSignature(req.headers['x-webhook-signature'] as string, SECRET)).toBe(true);
    expect(verifyStaticSignature(req.headers['x-service-signature'] as string, SECRET)).toBe(true);
    expect(LeadTaggedEvent.parse(JSON.parse(req.body)).data).toMatchObject({ tag: 'Interested', previousTag: null, accountId: 'acc_ada' });

    const [delivery] = listDeliveries(ctx);
    expect(delivery).toMatchObject({ eventId, eventType: 'lead.tagged', url: r.url, state: 'succeeded', attempts: 1, nextAttemptAt: null, lastStatus: 204 });
    expect(delivery?.log).toEqual([
      { attempt: 1, at: '2026-11-21T12:00:00.000Z', status: 204, durationMs: expect.any(Number), error: null, response: '', finished: true },
    ]);
  });

  it('fans out only to active endpoints subscribed to the type, and only events from after they were added', async () => {
    const tagged = await receiver();
    const replied = await receiver();
    const late = await receiver();
    const ctx = testCtx({
      workspace: webhookWorkspace([
        { url: tagged.url, events: ['lead.tagged'] },
        { url: replied.url, events: ['lead.replied'] },
      ]),
    });
    tagLead(ctx, 'lead_ada1', 'Interested');
    const w = worker(ctx);
    await w.drain();
    expect([tagged.requests.length, replied.requests.length]).toEqual([1, 0]);

    addEndpoint(ctx, { url: late.url, events: ['lead.replied', 'lead.tagged'] });
    transaction(ctx.db, () =>
      recordLeadEvent(ctx, 'lead.replied', leadRow(ctx, 'lead_ada1'), { message: { text: 'Sounds good, call me', receivedAt: '2026-11-21T11:59:00.000Z' } }),
    );
    await w.drain();
    expect([tagged.requests.length, replied.requests.length, late.requests.length]).toEqual([1, 1, 1]);
    expect(LeadRepliedEvent.parse(JSON.parse(replied.requests[0]!.body)).data.message.text).toBe('Sounds good, call me');
  });

  it('retries a failing endpoint on the published schedule, with the same event id, then gives up', async () => {
    const r = await receiver(answer(500));
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    const eventId = tagLead(ctx, 'lead_ada1', 'Interested');
    const w = worker(ctx);
    const started = ctx.clock.now();
    expect(await w.drain()).toBe(1);
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      ctx.clock.advance(delay - 1);
      expect(await w.drain(), `attempt ${i + 2} is not due yet`).toBe(0);
      ctx.clock.advance(1);
      expect(await w.drain(), `attempt ${i + 2} is due`).toBe(1);
    }
    ctx.clock.advance(30 * 24 * 3_600_000);
    expect(await w.drain()).toBe(0);

    expect(r.requests).toHaveLength(MAX_ATTEMPTS);
    expect(new Set(r.requests.map((q) => q.headers['webhook-id']))).toEqual(new Set([eventId]));
    let at = started;
    const expectedTimes = [started, ...RETRY_DELAYS_MS.map((d) => (at += d))];
    expect(r.requests.map((q) => Number(q.headers['webhook-timestamp']))).toEqual(expectedTimes.map((t) => Math.floor(t / 1000)));
    const [delivery] = listDeliveries(ctx);
    expect(delivery).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS, nextAttemptAt: null, lastStatus: 500, lastError: 'HTTP 500' });
    expect(delivery?.log.map((a) => [a.attempt, a.status, a.error])).toEqual(expectedTimes.map((_, i) => [i + 1, 500, 'HTTP 500']));
  });

  it('applies jitter from its random source', async () => {
    const r = await receiver(answer(503));
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    tagLead(ctx, 'lead_ada1', 'Interested');
    const w = worker(ctx, { rng: () => 0 });
    await w.drain();
    ctx.clock.advance(4_499); // 5 s scaled by 0.9
    expect(await w.drain()).toBe(0);
    ctx.clock.advance(1);
    expect(await w.drain()).toBe(1);
  });

  it('honours Retry-After when it asks for longer than the schedule', async () => {
    let calls = 0;
    const r = await receiver((req, res) => (++calls === 1 ? answer(429, { 'retry-after': '3600' })(req, res) : answer(200)(req, res)));
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    tagLead(ctx, 'lead_ada1', 'Interested');
    const w = worker(ctx);
    await w.drain();
    expect(listDeliveries(ctx)[0]?.nextAttemptAt).toBe('2026-11-21T13:00:00.000Z');
    ctx.clock.advance(3_599_999);
    expect(await w.drain()).toBe(0);
    ctx.clock.advance(1);
    expect(await w.drain()).toBe(1);
    expect(listDeliveries(ctx)[0]).toMatchObject({ state: 'succeeded', attempts: 2 });
  });

  it('treats a redirect as a failure and never contacts its target', async () => {
    const target = await receiver();
    const r = await receiver(answer(302, { location: target.url }));
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    tagLead(ctx, 'lead_ada1', 'Interested');
    await worker(ctx).drain();
    expect(target.connections).toBe(0);
    expect(listDeliveries(ctx)[0]).toMatchObject({
      state: 'pending',
      lastStatus: 302,
      lastError: 'redirect not followed (302)',
      nextAttemptAt: '2026-11-21T12:00:05.000Z',
    });
  });

  it('gives up on a receiver that does not answer in time, and retries later', async () => {
    const r = await receiver(() => {});
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    tagLead(ctx, 'lead_ada1', 'Interested');
    await worker(ctx, { timeoutMs: 300 }).drain();
    const [delivery] = listDeliveries(ctx);
    expect(delivery).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null, lastError: 'timeout', nextAttemptAt: '2026-11-21T12:00:05.000Z' });
    expect(delivery?.log[0]).toMatchObject({ status: null, error: 'timeout', finished: true });
  });

  it('410 Gone disables the endpoint and ends its pending deliveries; enable and redeliver bring it back', async () => {
    let gone = true;
    const r = await receiver((req, res) => answer(gone ? 410 : 200)(req, res));
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }], { extraLeads: 3 }) });
    const events = [0, 1, 2].map((i) => tagLead(ctx, `lead_bulk${i}`, 'Interested'));
    const w = worker(ctx, { concurrencyPerEndpoint: 1 });
    expect(await w.drain()).toBe(1);
    const [endpoint] = listEndpoints(ctx);
    expect(endpoint).toMatchObject({ status: 'disabled', disabledReason: 'HTTP 410 Gone at 2026-11-21T12:00:00.000Z', pendingDeliveries: 0 });
    const byEvent = new Map(listDeliveries(ctx).map((d) => [d.eventId, d]));
    expect(byEvent.get(events[0]!)).toMatchObject({ state: 'failed', attempts: 1, lastStatus: 410 });
    for (const id of events.slice(1))
      expect(byEvent.get(id)).toMatchObject({ state: 'failed', attempts: 0, lastError: 'endpoint disabled: HTTP 410 Gone at 2026-11-21T12:00:00.000Z' });

    const later = tagLead(ctx, 'lead_ada1', 'Interested');
    ctx.clock.advance(24 * 3_600_000);
    expect(await w.drain()).toBe(0);
    expect(r.requests).toHaveLength(1);
    expect(() => redeliver(ctx, later)).toThrow(/no active endpoint subscribes to lead.tagged/);

    gone = false;
    enableEndpoint(ctx, endpoint!.id);
    expect(redeliver(ctx, events[1]!)).toEqual([expect.objectContaining({ endpointId: endpoint!.id, action: 'created' })]);
    expect(await w.drain()).toBe(1);
    expect(r.requests.at(-1)?.headers['webhook-id']).toBe(events[1]);
    expect(listDeliveries(ctx, { eventId: later })).toEqual([]);
  });

  it('redeliver resends with the same event id: a new delivery after success, at once when still pending', async () => {
    let status = 200;
    const r = await receiver((req, res) => answer(status)(req, res));
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    const eventId = tagLead(ctx, 'lead_ada1', 'Interested');
    const w = worker(ctx);
    await w.drain();
    expect(redeliver(ctx, eventId)[0]?.action).toBe('created');
    await w.drain();
    expect(r.requests.map((q) => q.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect(listDeliveries(ctx, { eventId }).map((d) => d.state)).toEqual(['succeeded', 'succeeded']);

    status = 500;
    const second = tagLead(ctx, 'lead_ada1', 'Meeting request');
    await w.drain();
    expect(await w.drain()).toBe(0);
    expect(redeliver(ctx, second)[0]?.action).toBe('rescheduled');
    expect(await w.drain()).toBe(1);
    expect(listDeliveries(ctx, { eventId: second })).toHaveLength(1);
  });

  it('redeliver of an event not fanned out yet does not deliver it twice', async () => {
    const r = await receiver();
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    const eventId = tagLead(ctx, 'lead_ada1', 'Interested');
    redeliver(ctx, eventId);
    await worker(ctx).drain();
    expect(r.requests).toHaveLength(1);
  });

  it('redeliver names what is wrong', () => {
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: 'http://127.0.0.1:9/hook' }]) });
    const eventId = tagLead(ctx, 'lead_ada1', 'Interested');
    const fields = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err instanceof ApiError ? [err.code, err.details.fields] : err;
      }
      return 'no error';
    };
    expect(fields(() => redeliver(ctx, 'evt_nope'))).toEqual(['not_found', ['eventId']]);
    expect(fields(() => redeliver(ctx, eventId, 'whe_nope'))).toEqual(['not_found', ['endpointId']]);
    expect(fields(() => listDeliveries(ctx, { limit: 0 }))).toEqual(['validation_error', ['limit']]);
    expect(fields(() => listDeliveries(ctx, { endpointId: 'whe_nope' }))).toEqual(['not_found', ['endpointId']]);
  });

  it('removing an endpoint ends its pending deliveries and keeps the log', async () => {
    const r = await receiver(answer(500));
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    tagLead(ctx, 'lead_ada1', 'Interested');
    const w = worker(ctx);
    await w.drain();
    const endpointId = listEndpoints(ctx)[0]!.id;
    removeEndpoint(ctx, endpointId);
    ctx.clock.advance(3_600_000);
    expect(await w.drain()).toBe(0);
    expect(listDeliveries(ctx, { endpointId })).toEqual([expect.objectContaining({ url: null, state: 'failed', lastError: 'endpoint removed', attempts: 1 })]);
    expect(() => removeEndpoint(ctx, endpointId)).toThrow(ApiError);
  });

  it('signs every attempt with the current secret, so a rotation applies to retries', async () => {
    let calls = 0;
    const r = await receiver((req, res) => answer(++calls === 1 ? 500 : 200)(req, res));
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }]) });
    tagLead(ctx, 'lead_ada1', 'Interested');
    const w = worker(ctx);
    await w.drain();
    const rotated = rotateSigningSecret(ctx);
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(rotated.slice(6), 'base64')).toHaveLength(32);
    ctx.clock.advance(5_000);
    await w.drain();
    const [first, second] = r.requests;
    const check = (req: Received, secret: string) => verifyStandardWebhook({ secret, headers: req.headers, body: req.body, nowSeconds: seconds(ctx) }).ok;
    expect([check(first!, SECRET), check(second!, rotated), check(second!, SECRET)]).toEqual([true, true, false]);
    expect(second!.headers['x-webhook-signature']).toBe(rotated);
  });

  it('delivers 100 tag changes from one batch as 100 deliveries, at most N at once per endpoint', async () => {
    let active = 0;
    let maxActive = 0;
    const r = await receiver((_req, res) => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      setTimeout(() => {
        active -= 1;
        res.writeHead(200).end();
      }, 5);
    });
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: r.url }], { extraLeads: 100 }) });
    const ids = transaction(ctx.db, () => Array.from({ length: 100 }, (_, i) => tagLead(ctx, `lead_bulk${i}`, 'Interested')));
    expect(await worker(ctx, { concurrencyPerEndpoint: 4 }).drain()).toBe(100);

    expect(r.requests).toHaveLength(100);
    expect(new Set(r.requests.map((q) => q.headers['webhook-id']))).toEqual(new Set(ids));
    for (const q of r.requests) expect(LeadTaggedEvent.parse(JSON.parse(q.body)).data.tag).toBe('Interested');
    expect(countRows(ctx.db, webhookDeliveries, eq(webhookDeliveries.state, 'succeeded'))).toBe(100);
    expect(maxActive).toBeLessThanOrEqual(4);
    expect(maxActive).toBeGreaterThan(1);
  });

  it('a slow endpoint does not hold up another one; stop() leaves its attempts to the lease', async () => {
    let hang = true;
    const slow = await receiver((req, res) => {
      if (!hang) answer(200)(req, res);
    });
    const fast = await receiver();
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: slow.url }, { url: fast.url }], { extraLeads: 6 }) });
    for (let i = 0; i < 6; i++) tagLead(ctx, `lead_bulk${i}`, 'Interested');
    const w = worker(ctx, { concurrencyPerEndpoint: 2, pollIntervalMs: 50 });
    w.start();
    await waitFor(() => fast.requests.length === 6 && slow.requests.length === 2, 'the fast endpoint to get all six');
    await w.stop();
    expect(slow.requests).toHaveLength(2);
    const unfinished = ctx.db
      .select()
      .from(webhookAttempts)
      .all()
      .filter((a) => a.finishedAt === null);
    expect(unfinished).toHaveLength(2);

    // After the lease runs out, a new worker (as after a restart) closes them as interrupted and resends.
    hang = false;
    ctx.clock.advance(30_000);
    await worker(ctx).drain();
    expect(slow.requests).toHaveLength(8);
    const slowLog = listDeliveries(ctx, { endpointId: listEndpoints(ctx).find((e) => e.url === slow.url)!.id });
    expect(slowLog.every((d) => d.state === 'succeeded')).toBe(true);
    expect(slowLog.filter((d) => d.log[0]?.error === INTERRUPTED)).toHaveLength(2);
  });

  it('a delivery interrupted on every attempt ends as failed instead of looping', () => {
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: 'http://127.0.0.1:9/hook' }]) });
    tagLead(ctx, 'lead_ada1', 'Interested');
    const w = worker(ctx);
    w.tick();
    const endpointId = listEndpoints(ctx)[0]!.id;
    for (let i = 1; i < MAX_ATTEMPTS; i++) {
      ctx.clock.advance(60_000);
      expect(claimDue(ctx, endpointId, 10, 30_000)).toHaveLength(1);
    }
    ctx.clock.advance(60_000);
    expect(claimDue(ctx, endpointId, 10, 30_000)).toEqual([]);
    expect(listDeliveries(ctx)[0]).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS, lastError: INTERRUPTED });
    expect(countRows(ctx.db, webhookAttempts, and(eq(webhookAttempts.error, INTERRUPTED)))).toBe(MAX_ATTEMPTS);
  });
});

describe('SSRF guard from the config file', () => {
  function configFile(json: unknown): string {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-config-'));
    tempDirs.push(dir);
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(json));
    return file;
  }

  it('production refuses a loopback receiver at connect time unless webhooks.allowHosts names it', async () => {
    const r = await receiver();
    const refused = testCtx({ env: 'production', workspace: webhookWorkspace([{ url: r.url }]) });
    tagLead(refused, 'lead_ada1', 'Interested');
    const strict = resolveSettings({ env: 'production', config: configFile({ webhooks: { allowHosts: [] } }) }, {});
    await worker(refused, { policy: webhookPolicy(strict) }).drain();
    expect(r.connections).toBe(0);
    expect(listDeliveries(refused)[0]).toMatchObject({ state: 'pending', lastStatus: null, lastError: 'refused by SSRF guard: loopback address' });

    const allowed = testCtx({ env: 'production', workspace: webhookWorkspace([{ url: r.url }]) });
    tagLead(allowed, 'lead_ada1', 'Interested');
    const open = resolveSettings({ env: 'production', config: configFile({ webhooks: { allowHosts: ['127.0.0.1'] } }) }, {});
    expect(webhookPolicy(open)).toEqual({ mode: 'production', allowHosts: ['127.0.0.1'] });
    await worker(allowed, { policy: webhookPolicy(open) }).drain();
    expect(r.requests).toHaveLength(1);
    expect(listDeliveries(allowed)[0]?.state).toBe('succeeded');
  });

  it('development delivers to loopback with no config', () => {
    expect(webhookPolicy(resolveSettings({}, {}))).toEqual({ mode: 'development', allowHosts: [] });
  });

  it('the webhooks config section is strict', () => {
    expect(() => resolveSettings({ config: configFile({ webhooks: { allowHost: ['x'] } }) }, {})).toThrow(/webhooks\.allowHost: unknown field/);
    expect(() => resolveSettings({ config: configFile({ webhooks: { allowHosts: [''] } }) }, {})).toThrow(/webhooks\.allowHosts\[0\]/);
  });
});
