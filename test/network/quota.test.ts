import { afterEach, describe, expect, it } from 'vitest';
import { fixture, startTestServer, type TestServer } from '../helpers.js';

/** The lookup and search tools go through the per-account spacing and the daily quotas. */
describe('network tools under per-account limits', () => {
  let server: TestServer;
  afterEach(() => server.close());

  const lookup = (accountId = 'acc_ada') =>
    server.rest('/network/profiles/lookup', { method: 'POST', body: JSON.stringify({ accountId, networkUrl: 'https://www.linkedin.com/in/ada-lovelace' }) });
  const search = (limit: number) => server.rest('/network/search', { method: 'POST', body: JSON.stringify({ accountId: 'acc_ada', query: 'cto', limit }) });

  it('spaces lookups 20 s apart per account, with Retry-After', async () => {
    server = await startTestServer();
    expect((await lookup()).status).toBe(200);
    const refused = await lookup();
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.headers.get('retry-after')).toBe('20');
    expect(refused.body.error.details.retryAfterSeconds).toBe(20);
    // Another account is not held back.
    expect((await lookup('acc_nav')).status).toBe(200);
    server.ctx.clock.advance(20_000);
    expect((await lookup()).status).toBe(200);
  });

  it('stops lookups at the daily quota until the next UTC midnight', async () => {
    const ws = fixture();
    ws.accounts![0]!.today!.profileLookups = 80;
    server = await startTestServer({ workspace: ws });
    const refused = await lookup();
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('network_daily_quota');
    const now = server.ctx.clock.now();
    const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1);
    expect(refused.body.error.details.retryAfterSeconds).toBe(Math.ceil((midnight - now) / 1000));
  });

  it('counts search results toward the daily quota and shortens the last page', async () => {
    const ws = fixture();
    ws.accounts![0]!.today!.searchResults = 997;
    server = await startTestServer({ workspace: ws });
    const page = await search(10);
    expect(page.status).toBe(200);
    expect(page.body.results).toHaveLength(3);
    server.ctx.clock.advance(15_000);
    const refused = await search(10);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('network_daily_quota');
  });
});
