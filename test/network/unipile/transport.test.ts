import { SqliteUnipileStore } from '../../../src/core/network/unipile-store.js';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { createUnipileProvider } from '../../../src/network/unipile/index.js';
import { rejection } from '../helpers.js';
import { ada, profileUrl, SECRET, setup, type Setup } from './helpers.js';

let t: Setup | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const lookup = (s: Setup) => s.provider.lookupProfile({ account: ada, networkUrl: profileUrl('jane-doe'), depth: 'basic' });
const invite = (s: Setup) => s.provider.sendConnectionRequest({ account: ada, providerId: 'ACoJane', note: null });
const person = (s: Setup) => s.server.addPerson({ provider_id: 'ACoJane', public_identifier: 'jane-doe', first_name: 'Jane' });

describe('retries', () => {
  it('retries a read after 5xx with growing backoff, then succeeds', async () => {
    t = await setup();
    person(t);
    t.server.failNext({ method: 'GET', path: /\/users\// }, { status: 503, type: 'service_unavailable', times: 2 });
    expect((await lookup(t)).firstName).toBe('Jane');
    expect(t.server.requests).toHaveLength(3);
    expect(t.sleeps).toHaveLength(2);
    expect(t.sleeps[1]!).toBeGreaterThan(t.sleeps[0]!);
  });

  it('honours Retry-After on 429 for a read', async () => {
    t = await setup();
    person(t);
    t.server.failNext({ method: 'GET', path: /\/users\// }, { status: 429, type: 'too_many_requests', headers: { 'retry-after': '2' } });
    await lookup(t);
    expect(t.sleeps).toEqual([2000]);
  });

  it('does not wait out a long Retry-After: the quota error carries it', async () => {
    t = await setup();
    t.server.failNext({ method: 'GET', path: /\/users\// }, { status: 429, type: 'too_many_requests', headers: { 'retry-after': '3600' } });
    const err = await rejection(lookup(t));
    expect(err.code).toBe('network_daily_quota');
    expect(err.details.retryAfterSeconds).toBe(3600);
    expect(t.server.requests).toHaveLength(1);
    expect(t.sleeps).toEqual([]);
  });

  it('gives up after the bounded number of attempts', async () => {
    t = await setup();
    t.server.failNext({ method: 'GET', path: /\/users\// }, { status: 500, type: 'provider_error', times: 10 });
    const err = await rejection(lookup(t));
    expect(err.code).toBe('upstream_unavailable');
    expect(t.server.requests).toHaveLength(3);
  });

  it('retries a search (POST, but safe to repeat)', async () => {
    t = await setup();
    t.server.failNext({ method: 'POST', path: /\/linkedin\/search$/ }, { status: 502, times: 1 });
    const page = await t.provider.searchPeople({ account: ada, type: 'classic', query: 'x', limit: 5 });
    expect(page.results).toEqual([]);
    expect(t.server.requests).toHaveLength(2);
  });

  it('never repeats a send that reached Unipile', async () => {
    t = await setup();
    person(t);
    t.server.failNext({ method: 'POST', path: /\/users\/invite$/ }, { status: 503, type: 'network_down', times: 5 });
    const err = await rejection(invite(t));
    expect(err.code).toBe('upstream_unavailable');
    t.server.failNext({ method: 'POST', path: /\/chats$/ }, { status: 429, type: 'too_many_requests', times: 5 });
    const quota = await rejection(t.provider.sendMessage({ account: ada, recipient: { providerId: 'ACoJane' }, text: 'Hi' }));
    expect(quota.code).toBe('network_daily_quota');
    expect(t.server.requests.map((r) => r.path)).toEqual(['/api/v1/users/invite', '/api/v1/chats']);
    expect(t.sleeps).toEqual([]);
  });
});

describe('timeouts and dropped connections', () => {
  it('times out a read on every attempt and reports upstream_unavailable', async () => {
    t = await setup({ timeoutMs: 250, maxRetries: 1 });
    t.server.failNext({ method: 'GET', path: /\/users\// }, { hang: true, times: 2 });
    const err = await rejection(lookup(t));
    expect(err.code).toBe('upstream_unavailable');
    expect(t.server.requests).toHaveLength(2);
  });

  it('does not repeat a send that timed out, and says it may have been delivered', async () => {
    t = await setup({ timeoutMs: 250 });
    person(t);
    t.server.failNext({ method: 'POST', path: /\/users\/invite$/ }, { hang: true });
    const err = await rejection(invite(t));
    expect(err.code).toBe('upstream_unavailable');
    expect(err.details.ambiguous).toBe(true);
    expect(t.server.requests).toHaveLength(1);
  });

  it('retries a read whose connection was dropped', async () => {
    t = await setup();
    person(t);
    t.server.failNext({ method: 'GET', path: /\/users\// }, { destroy: true });
    expect((await lookup(t)).firstName).toBe('Jane');
    expect(t.server.requests).toHaveLength(2);
  });

  it('retries even a send when the connection was refused (nothing was sent)', async () => {
    t = await setup();
    // A port that was just free: connecting to it is refused.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const sleeps: number[] = [];
    const provider = createUnipileProvider(
      { dsn: `http://127.0.0.1:${port}`, apiKey: 'k', inboundSecret: SECRET },
      { store: new SqliteUnipileStore(t.ctx.db, t.ctx.simClock), clock: t.ctx.clock, log: silentLogger(), sleep: async (ms) => void sleeps.push(ms) },
    );
    const err = await rejection(provider.sendConnectionRequest({ account: ada, providerId: 'ACoJane', note: null }));
    expect(err.code).toBe('upstream_unavailable');
    expect(err.details.ambiguous).toBeUndefined();
    expect(sleeps).toHaveLength(2);
  });
});

describe('answers outside the documented shape', () => {
  it('are upstream_unavailable, not a crash', async () => {
    t = await setup();
    t.server.failNext({ method: 'GET', path: /\/users\// }, { status: 200, body: { object: 'UserProfile' } });
    expect((await rejection(lookup(t))).code).toBe('upstream_unavailable');
    t.server.failNext({ method: 'GET', path: /\/users\// }, { status: 404, body: '<html>not json</html>' });
    expect((await rejection(lookup(t))).code).toBe('not_found');
  });
});
