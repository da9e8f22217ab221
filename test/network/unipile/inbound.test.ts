import { SqliteUnipileStore } from '../../../src/core/network/unipile-store.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { mountProviderWebhook } from '../../../src/http/webhooks.js';
import { createUnipileProvider, secretMatches, UNIPILE_SECRET_HEADER, UNIPILE_WEBHOOK_PATH } from '../../../src/network/unipile/index.js';
import { ada, profileUrl, SECRET, useSetup } from './helpers.js';

const t = useSetup();
let http: Server;
let endpoint: string;

beforeEach(async () => {
  const app = express();
  mountProviderWebhook(app, t.provider.webhook(UNIPILE_WEBHOOK_PATH));
  http = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  endpoint = `http://127.0.0.1:${(http.address() as AddressInfo).port}/webhooks/unipile`;
});
afterEach(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

const post = async (body: unknown, headers: Record<string, string> = { [UNIPILE_SECRET_HEADER]: SECRET }) => {
  const res = await fetch(endpoint, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

const message = (over: Record<string, unknown> = {}) => ({
  account_id: 'UNI_ADA',
  account_type: 'LINKEDIN',
  account_info: { type: 'LINKEDIN', user_id: 'ACoSELFUNI_ADA' },
  event: 'message_received',
  chat_id: 'R8J-xM9WX7eoHLp6gSVtWQ',
  timestamp: '2026-11-21T11:59:00.000Z',
  webhook_name: 'messages',
  message_id: 'ykmhfXlRW0W_cqReJYrfBw',
  message: 'Sounds good, let us talk',
  sender: {
    attendee_id: 'C8zaRZTlVcmfnke_Vai4Gg',
    attendee_name: 'Kim Unipile',
    attendee_provider_id: 'ACoAAAcDMMQBODyLwZrRcgYhrkCafURGqva0U4E',
    attendee_profile_url: 'https://www.linkedin.com/in/ACoAAAcDMMQBODyLwZrRcgYhrkCafURGqva0U4E/',
  },
  attendees: [],
  ...over,
});

const relation = (over: Record<string, unknown> = {}) => ({
  event: 'new_relation',
  account_id: 'UNI_ADA',
  account_type: 'LINKEDIN',
  webhook_name: 'relations',
  user_full_name: 'Julien Crépieux',
  user_provider_id: 'ACoAAAh_Ffqss54sqAGQOD8u7sl5of04y9_3AwyM',
  user_public_identifier: 'julien-crepieux',
  user_profile_url: 'https://www.linkedin.com/in/julien-crepieux/',
  ...over,
});

describe('the webhook endpoint', () => {
  it('refuses calls without the secret header, or with a wrong one, and queues nothing', async () => {
    for (const headers of <Record<string, string>[]>[
      {},
      { [UNIPILE_SECRET_HEADER]: 'wrong' },
      { [UNIPILE_SECRET_HEADER]: `${SECRET}x` },
      { 'x-api-key': SECRET },
    ]) {
      const res = await post(message(), headers);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    expect(await t.provider.drainInbound(t.ctx.clock.now())).toEqual([]);
  });

  it('compares secrets without a length shortcut', () => {
    expect(secretMatches(SECRET, SECRET)).toBe(true);
    expect(secretMatches(undefined, SECRET)).toBe(false);
    expect(secretMatches('', SECRET)).toBe(false);
    expect(secretMatches(SECRET.slice(0, -1), SECRET)).toBe(false);
  });

  it('queues a received message once, whatever the content type, and drains it once', async () => {
    const first = await post(message());
    expect(first).toMatchObject({ status: 200, body: { received: true, status: 'queued' } });
    // Unipile retries a webhook it thinks failed: the same message is not queued twice.
    expect((await post(message())).body.status).toBe('duplicate');
    const events = await t.provider.drainInbound(t.ctx.clock.now());
    expect(events).toEqual([
      {
        id: first.body.eventId,
        type: 'message_received',
        accountId: 'acc_ada',
        providerId: 'ACoAAAcDMMQBODyLwZrRcgYhrkCafURGqva0U4E',
        // The payload names the sender by provider id; its case is kept.
        networkUrl: 'https://www.linkedin.com/in/ACoAAAcDMMQBODyLwZrRcgYhrkCafURGqva0U4E',
        chatId: 'R8J-xM9WX7eoHLp6gSVtWQ',
        text: 'Sounds good, let us talk',
        at: Date.parse('2026-11-21T11:59:00.000Z'),
      },
    ]);
    expect(await t.provider.drainInbound(t.ctx.clock.now())).toEqual([]);
  });

  it("drops the account's own messages", async () => {
    const own = message({ sender: { attendee_provider_id: 'ACoSELFUNI_ADA', attendee_profile_url: null } });
    expect((await post(own)).body).toMatchObject({ status: 'ignored', reason: 'own_message' });
    expect(await t.provider.drainInbound(t.ctx.clock.now())).toEqual([]);
  });

  it('names the sender by the profile URL learnt from an earlier lookup', async () => {
    t.server.addPerson({ provider_id: 'ACoAAAcDMMQBODyLwZrRcgYhrkCafURGqva0U4E', public_identifier: 'kim-unipile', first_name: 'Kim' });
    await t.provider.lookupProfile({ account: ada, networkUrl: profileUrl('kim-unipile'), depth: 'basic' });
    await post(message());
    const [event] = await t.provider.drainInbound(t.ctx.clock.now());
    expect(event?.networkUrl).toBe(profileUrl('kim-unipile'));
  });

  it('queues an accepted invitation from new_relation, deduplicated with the relations poll', async () => {
    const res = await post(relation());
    expect(res.body.status).toBe('queued');
    expect(await t.provider.drainInbound(t.ctx.clock.now())).toEqual([
      {
        id: res.body.eventId,
        type: 'invitation_accepted',
        accountId: 'acc_ada',
        networkUrl: profileUrl('julien-crepieux'),
        providerId: 'ACoAAAh_Ffqss54sqAGQOD8u7sl5of04y9_3AwyM',
        at: t.ctx.clock.now(),
      },
    ]);
    expect((await post(relation())).body.status).toBe('duplicate');
  });

  it('acknowledges and ignores events it does not use and accounts it does not know', async () => {
    expect((await post(message({ event: 'message_read' }))).body).toMatchObject({ status: 'ignored', reason: 'event_not_used' });
    expect((await post({ AccountStatus: { account_id: 'UNI_ADA', message: 'CREDENTIALS' } })).body.reason).toBe('event_not_used');
    expect((await post(message({ account_id: 'UNI_STRANGER' }))).body).toMatchObject({ status: 'ignored', reason: 'unknown_account' });
    expect(await t.provider.drainInbound(t.ctx.clock.now())).toEqual([]);
  });

  it('answers 400 to a body that is not JSON or misses what it needs', async () => {
    expect((await post('not json')).status).toBe(400);
    const res = await post(message({ chat_id: undefined }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  it('answers 405 to other methods', async () => {
    const res = await fetch(endpoint, { headers: { [UNIPILE_SECRET_HEADER]: SECRET } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('the inbound queue', () => {
  it('survives a restart: a new provider on the same database drains what the old one received', async () => {
    await post(message());
    const restarted = createUnipileProvider(
      { dsn: t.server.url, apiKey: t.server.apiKey, inboundSecret: SECRET },
      { store: new SqliteUnipileStore(t.ctx.db, t.ctx.simClock), clock: t.ctx.clock, log: silentLogger() },
    );
    const events = await restarted.drainInbound(t.ctx.clock.now());
    await restarted.idle();
    expect(events.map((e) => e.type)).toEqual(['message_received']);
  });

  it('holds events until they are due, and returns them oldest first', async () => {
    await post(message({ message_id: 'm2', timestamp: '2026-11-21T11:50:00.000Z' }));
    await post(message({ message_id: 'm1', timestamp: '2026-11-21T11:40:00.000Z' }));
    expect(await t.provider.drainInbound(Date.parse('2026-11-21T11:30:00.000Z'))).toEqual([]);
    const events = await t.provider.drainInbound(t.ctx.clock.now());
    expect(events.map((e) => e.at)).toEqual([Date.parse('2026-11-21T11:40:00.000Z'), Date.parse('2026-11-21T11:50:00.000Z')]);
  });
});
