import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { authenticateKey, insertApiKey } from '../../src/core/auth/keys.js';
import { IDEMPOTENCY_TTL_MS, KEY_STALE_MS, requestFingerprint } from '../../src/core/idempotency/store.js';
import { creditBalance, creditLedger, idempotencyRecords, leads, messages } from '../../src/db/schema.js';
import { fixture, TEST_KEY } from '../helpers.js';
import { call, openSession, TRANSPORTS, type Session } from '../leads/call.js';

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;
const OTHER_KEY = 'sk_test_second_key_0000000000000000000009';

describe.each(TRANSPORTS)('idempotency over %s', (transport) => {
  let s: Session;
  afterEach(() => s?.close());
  const db = () => s.server.ctx.db;
  const leadsWith = (networkUrl: string) => db().select().from(leads).where(eq(leads.networkUrl, networkUrl)).all();
  const charges = () => db().select().from(creditLedger).where(eq(creditLedger.reason, 'lead_created')).all();
  const records = () => db().select().from(idempotencyRecords).all();
  const keyField = transport === 'rest' ? 'Idempotency-Key' : 'idempotencyKey';
  const add = (slug: string, key: string, campaignId = 'cmp_q4') => s.call('add_lead', { campaignId, networkUrl: url(slug) }, { idempotencyKey: key });

  it('replays the stored status and body byte for byte, performing the add once', async () => {
    s = await openSession(transport);
    const first = await add('p1', 'key-1');
    expect(first.body.status).toBe('created');
    s.server.ctx.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    const again = await add('p1', 'key-1');
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.body.status).toBe('created');
    if (transport === 'rest') {
      expect(first.headers!.get('idempotent-replayed')).toBeNull();
      expect(again.headers!.get('idempotent-replayed')).toBe('true');
    }
    expect(leadsWith(url('p1'))).toHaveLength(1);
    expect(charges()).toHaveLength(1);
    expect(records()).toEqual([expect.objectContaining({ state: 'done', status: 200, body: first.text })]);
  });

  it('answers 409 conflict for the same key with another body, route or campaign, and keeps the stored result', async () => {
    s = await openSession(transport);
    const first = await add('p1', 'key-1');
    const otherBody = await add('p2', 'key-1');
    const otherCampaign = await add('p1', 'key-1', 'cmp_running');
    const otherRoute = await s.call('add_leads_batch', { campaignId: 'cmp_q4', leads: [{ networkUrl: url('p1') }] }, { idempotencyKey: 'key-1' });
    const extraField = await s.call('add_lead', { campaignId: 'cmp_q4', networkUrl: url('p1'), firstName: 'P' }, { idempotencyKey: 'key-1' });
    for (const r of [otherBody, otherCampaign, otherRoute, extraField]) {
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('conflict');
      expect(r.body.error.details.fields).toEqual([keyField]);
    }
    expect(leadsWith(url('p2'))).toEqual([]);
    expect(charges()).toHaveLength(1);
    expect((await add('p1', 'key-1')).text).toBe(first.text);
  });

  it('treats a re-ordered batch as another request: array order is part of the fingerprint', async () => {
    s = await openSession(transport);
    const items = [{ networkUrl: url('p1') }, { networkUrl: url('p2') }];
    const first = await s.call('add_leads_batch', { campaignId: 'cmp_q4', leads: items }, { idempotencyKey: 'k' });
    expect(first.body.summary.created).toBe(2);
    const reordered = await s.call('add_leads_batch', { campaignId: 'cmp_q4', leads: [...items].reverse() }, { idempotencyKey: 'k' });
    expect(reordered.status).toBe(409);
    // Key order inside objects is not: the same JSON with keys in another order replays.
    const sameFields = await s.call('add_leads_batch', { leads: items, campaignId: 'cmp_q4' }, { idempotencyKey: 'k' });
    expect(sameFields.text).toBe(first.text);
  });

  it('scopes keys per API key', async () => {
    s = await openSession(transport);
    insertApiKey(s.server.ctx, OTHER_KEY, 'second');
    const mine = await add('p1', 'shared');
    const theirs = await s.call('add_lead', { campaignId: 'cmp_q4', networkUrl: url('p2') }, { idempotencyKey: 'shared', key: OTHER_KEY });
    expect(mine.body.status).toBe('created');
    expect(theirs.body.status).toBe('created');
    expect(charges()).toHaveLength(2);
  });

  it('takes a 128-character key and refuses 129 characters or an empty key with 400, performing nothing', async () => {
    s = await openSession(transport);
    expect((await add('p1', 'k'.repeat(128))).body.status).toBe('created');
    for (const key of ['k'.repeat(129), '']) {
      const r = await add('p2', key);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details.fields).toEqual([keyField]);
    }
    expect(leadsWith(url('p2'))).toEqual([]);
  });

  it('answers 409 while the first request is in flight, and lets a retry take over an abandoned reservation', async () => {
    s = await openSession(transport);
    const apiKeyId = authenticateKey(s.server.ctx, TEST_KEY).keyId;
    const fingerprint = requestFingerprint({
      method: 'POST',
      route: '/campaigns/:campaignId/leads',
      params: { campaignId: 'cmp_q4' },
      body: { networkUrl: url('p1') },
    });
    const now = s.server.ctx.clock.now();
    db()
      .insert(idempotencyRecords)
      .values({ apiKeyId, key: 'busy', fingerprint, state: 'in_flight', createdAt: now, expiresAt: now + IDEMPOTENCY_TTL_MS })
      .run();

    const busy = await add('p1', 'busy');
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('conflict');
    expect(busy.body.error.message).toMatch(/in progress/);
    expect(leadsWith(url('p1'))).toEqual([]);
    expect(records()).toEqual([expect.objectContaining({ state: 'in_flight', createdAt: now })]);

    s.server.ctx.clock.advance(KEY_STALE_MS);
    const taken = await add('p1', 'busy');
    expect(taken.body.status).toBe('created');
    expect(records()).toEqual([expect.objectContaining({ state: 'done' })]);
  });

  it('never runs again a request that was interrupted after it began its work: the message goes out once', async () => {
    s = await openSession(transport);
    const sent = () => db().select().from(messages).where(eq(messages.text, 'Hello once')).all();
    const send = () => s.call('send_message', { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hello once' }, { idempotencyKey: 'm1' });
    // The server stops after the message was sent and recorded, before the key's result is stored.
    s.server.ctx.faults = {
      hit: (point) => {
        if (point === 'idempotency.finalize') throw new Error('the process stopped here');
      },
    };
    expect((await send()).status).toBe(200);
    delete s.server.ctx.faults;
    expect(sent()).toHaveLength(1);
    // The key was marked in the transaction of the request's first write.
    expect(records()).toEqual([expect.objectContaining({ key: 'm1', state: 'begun', body: null })]);

    const early = await send();
    expect(early.status).toBe(409);
    expect(early.body.error.message).toMatch(/in progress/);

    s.server.ctx.clock.advance(KEY_STALE_MS);
    const late = await send();
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'conflict', details: { fields: [keyField] } });
    expect(late.body.error.message).toMatch(/interrupted .* not run again under this key/);
    expect(sent()).toHaveLength(1);
    // Another body under the key is still "a different request".
    const other = await s.call('send_message', { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hello twice' }, { idempotencyKey: 'm1' });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toMatch(/different request/);
    // A new key sends.
    expect((await s.call('send_message', { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hello once' }, { idempotencyKey: 'm2' })).status).toBe(200);
    expect(sent()).toHaveLength(2);
  });

  it('a batch interrupted after its leads were stored is not run again: its leads and charges stand once', async () => {
    s = await openSession(transport);
    const batch = () =>
      s.call('add_leads_batch', { campaignId: 'cmp_q4', leads: [{ networkUrl: url('cut1') }, { networkUrl: url('cut2') }] }, { idempotencyKey: 'b1' });
    s.server.ctx.faults = {
      hit: (point) => {
        if (point === 'idempotency.finalize') throw new Error('the process stopped here');
      },
    };
    expect((await batch()).body.summary).toMatchObject({ created: 2 });
    delete s.server.ctx.faults;
    const charged = charges().length;
    s.server.ctx.clock.advance(KEY_STALE_MS);
    const retry = await batch();
    expect(retry.status).toBe(409);
    expect(retry.body.error.message).toMatch(/interrupted/);
    expect(leadsWith(url('cut1'))).toHaveLength(1);
    expect(charges()).toHaveLength(charged);
    // After the 24-hour window the key is free again: the same request runs (and finds duplicates).
    s.server.ctx.clock.advance(IDEMPOTENCY_TTL_MS);
    expect((await batch()).body.summary).toMatchObject({ duplicate: 2, created: 0 });
  });

  it('forgets a key after 24 hours: the same key then runs a new request', async () => {
    s = await openSession(transport);
    await add('p1', 'old');
    s.server.ctx.clock.advance(IDEMPOTENCY_TTL_MS);
    const reused = await add('p2', 'old');
    expect(reused.body.status).toBe('created');
    expect(records()).toHaveLength(1);
  });

  it('answers 503 upstream_unavailable and performs nothing when the key cannot be recorded', async () => {
    s = await openSession(transport);
    s.server.ctx.faults = {
      hit: (point) => {
        if (point === 'idempotency.reserve') throw new Error('disk full');
      },
    };
    const r = await add('p1', 'k1');
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('upstream_unavailable');
    expect(r.body.error.message).toMatch(/nothing was performed/);
    const batch = await s.call('add_leads_batch', { campaignId: 'cmp_q4', leads: [{ networkUrl: url('p2') }] }, { idempotencyKey: 'k2' });
    expect(batch.status).toBe(503);
    const del = await s.call('delete_leads_batch', { campaignId: 'cmp_q4', leadIds: ['lead_ada1'] }, { idempotencyKey: 'k3' });
    expect(del.status).toBe(503);
    expect(leadsWith(url('p1'))).toEqual([]);
    expect(leadsWith(url('p2'))).toEqual([]);
    expect(leadsWith(url('ada-lovelace'))).toHaveLength(1);
    expect(charges()).toEqual([]);

    // Retrying the same key once the store is back is safe and performs the add once.
    delete s.server.ctx.faults;
    expect((await add('p1', 'k1')).body.status).toBe('created');
    expect(charges()).toHaveLength(1);
  });

  it('answers 503 when SQLite itself refuses the record', async () => {
    s = await openSession(transport);
    db().$client.exec(`CREATE TRIGGER refuse_keys BEFORE INSERT ON idempotency_records BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    const r = await add('p1', 'k1');
    expect(r.status).toBe(503);
    expect(leadsWith(url('p1'))).toEqual([]);
    // Without a key the write does not depend on the store.
    expect((await s.call('add_lead', { campaignId: 'cmp_q4', networkUrl: url('p1') })).body.status).toBe('created');
  });

  describe('retention rules', () => {
    const setCredits = (credits: number) => db().update(creditBalance).set({ credits, topUpCredits: 0 }).run();

    it('single add: an error releases the key, so the retry performs the add', async () => {
      s = await openSession(transport);
      setCredits(0);
      const refused = await add('p1', 'k');
      expect(refused.status).toBe(403);
      expect(records()).toEqual([]);
      setCredits(1);
      const retried = await add('p1', 'k');
      expect(retried.body.status).toBe('created');
      const missing = await add('p2', 'k2', 'cmp_nope');
      expect(missing.status).toBe(404);
      expect(records()).toHaveLength(1);
    });

    it.each(['duplicate', 'excluded'] as const)('single add: a %s answer keeps the key', async (status) => {
      s = await openSession(transport);
      const slug = status === 'duplicate' ? 'ada-lovelace' : 'do-not-contact';
      const first = await add(slug, 'k');
      expect(first.body.status).toBe(status);
      expect(records()).toEqual([expect.objectContaining({ state: 'done' })]);
      expect((await add('p9', 'k')).status).toBe(409);
    });

    it('batch add: all-insufficient, all-invalid and all-failed batches release the key; one duplicate keeps it', async () => {
      s = await openSession(transport);
      const batch = (items: unknown[], key: string) => s.call('add_leads_batch', { campaignId: 'cmp_q4', leads: items }, { idempotencyKey: key });
      setCredits(0);
      expect((await batch([{ networkUrl: url('p1') }, { networkUrl: url('p2') }], 'poor')).body.summary.insufficient_credits).toBe(2);
      expect((await batch([{ networkUrl: 'nope' }, {}], 'invalid')).body.summary.validation_error).toBe(2);
      s.server.ctx.faults = {
        hit: (point) => {
          if (point === 'leads.add.item') throw new Error('disk I/O error');
        },
      };
      setCredits(5);
      expect((await batch([{ networkUrl: url('p3') }], 'broken')).body.summary.failed).toBe(1);
      delete s.server.ctx.faults;
      expect(records()).toEqual([]);

      const retried = await batch([{ networkUrl: url('p1') }, { networkUrl: url('p2') }], 'poor');
      expect(retried.body.summary.created).toBe(2);

      setCredits(0);
      const mixed = await batch([{ networkUrl: url('ada-lovelace') }, { networkUrl: url('p8') }], 'mixed');
      expect(mixed.body.results.map((r: any) => r.status)).toEqual(['duplicate', 'insufficient_credits']);
      setCredits(5);
      const replay = await batch([{ networkUrl: url('ada-lovelace') }, { networkUrl: url('p8') }], 'mixed');
      expect(replay.text).toBe(mixed.text);
      expect(leadsWith(url('p8'))).toEqual([]);
    });

    it('batch update: keeps the key only when something was updated', async () => {
      s = await openSession(transport);
      const update = (updates: unknown[], key: string) => s.call('update_leads_batch', { campaignId: 'cmp_q4', updates }, { idempotencyKey: key });
      expect((await update([{ leadId: 'lead_missing', tag: 'Interested' }], 'u')).body.summary.updated).toBe(0);
      expect(records()).toEqual([]);
      const first = await update([{ leadId: 'lead_ada1', tag: 'Interested' }], 'u');
      expect(first.body.summary.updated).toBe(1);
      await s.call('update_lead', { campaignId: 'cmp_q4', leadId: 'lead_ada1', tag: 'Meeting request' });
      const replay = await update([{ leadId: 'lead_ada1', tag: 'Interested' }], 'u');
      expect(replay.text).toBe(first.text);
      expect(db().select().from(leads).where(eq(leads.id, 'lead_ada1')).get()!.tag).toBe('Meeting request');
    });

    it('batch delete: keeps the key only when something was deleted, and replays the first answer', async () => {
      s = await openSession(transport);
      const del = (leadIds: string[], key: string) => s.call('delete_leads_batch', { campaignId: 'cmp_q4', leadIds }, { idempotencyKey: key });
      expect((await del(['lead_missing'], 'd')).body.summary.deleted).toBe(0);
      expect(records()).toEqual([]);
      const first = await del(['lead_ada1'], 'd');
      expect(first.body.results[0].status).toBe('deleted');
      const replay = await del(['lead_ada1'], 'd');
      expect(replay.text).toBe(first.text);
      const fresh = await del(['lead_ada1'], 'd2');
      expect(fresh.body.results[0].status).toBe('not_found');
    });

    it('batch delete: a 409 for an importing campaign releases the key', async () => {
      s = await openSession(transport);
      const r = await s.call('delete_leads_batch', { campaignId: 'cmp_import', leadIds: ['lead_x'] }, { idempotencyKey: 'imp' });
      expect(r.status).toBe(409);
      expect(records()).toEqual([]);
    });
  });
});

describe('idempotency across transports', () => {
  let s: Session;
  afterEach(() => s?.close());

  it('shares one store: a REST write replays over MCP with the same JSON, and the other way round', async () => {
    s = await openSession('rest');
    const mcp = await s.server.mcp();
    const args = { campaignId: 'cmp_q4', networkUrl: url('p1') };
    const rest = await call(s.server, 'rest', 'add_lead', args, { idempotencyKey: 'x1' });
    const viaMcp = await call(s.server, 'mcp', 'add_lead', args, { idempotencyKey: 'x1', mcp });
    expect(viaMcp.text).toBe(rest.text);

    const batchArgs = { campaignId: 'cmp_q4', leads: [{ networkUrl: url('p2') }] };
    const first = await call(s.server, 'mcp', 'add_leads_batch', batchArgs, { idempotencyKey: 'x2', mcp });
    const second = await call(s.server, 'rest', 'add_leads_batch', batchArgs, { idempotencyKey: 'x2' });
    expect(second.text).toBe(first.text);
    expect(s.server.ctx.db.select().from(creditLedger).where(eq(creditLedger.reason, 'lead_created')).all()).toHaveLength(2);
  });
});

describe.each(TRANSPORTS)('50 concurrent requests with one key over %s', (transport) => {
  let s: Session;
  afterEach(() => s?.close());

  it.each([
    ['add_lead', { campaignId: 'cmp_q4', networkUrl: url('racer') }],
    ['add_leads_batch', { campaignId: 'cmp_q4', leads: [{ networkUrl: url('racer') }, { networkUrl: url('racer-2') }] }],
  ] as const)('%s: exactly one side effect; the others replay it or get 409', async (name, args) => {
    const w = fixture();
    w.credits = { credits: 1000, topUpCredits: 0, lookalikeCredits: 0, lookalikeTopUpCredits: 0 };
    s = await openSession(transport, { workspace: w });
    const mcp = transport === 'mcp' ? await s.server.mcp() : undefined;
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(s.server, transport, name, args, { idempotencyKey: 'same-key', ...(mcp ? { mcp } : {}) })),
    );
    const ok = results.filter((r) => r.status === 200);
    const conflicts = results.filter((r) => r.status === 409);
    expect(ok.length + conflicts.length).toBe(50);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.text)).size).toBe(1);
    for (const r of conflicts) expect(r.body.error.code).toBe('conflict');

    const db = s.server.ctx.db;
    const created = db
      .select()
      .from(leads)
      .all()
      .filter((l) => l.networkUrl?.startsWith(url('racer')));
    const expected = name === 'add_lead' ? 1 : 2;
    expect(created).toHaveLength(expected);
    expect(db.select().from(creditLedger).where(eq(creditLedger.reason, 'lead_created')).all()).toHaveLength(expected);
    expect(db.select().from(creditBalance).get()!.credits).toBe(1000 - expected);
  });
});
