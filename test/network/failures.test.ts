import { describe, expect, it } from 'vitest';
import type { NetworkErrorCode } from '../../src/core/network/provider.js';
import { NETWORK_ERROR_CODES } from '../../src/core/network/provider.js';
import { MARKERS } from '../../src/network/sim/index.js';
import { account, makeNetwork, rejection, url } from './helpers.js';

type Op = 'lookup' | 'search' | 'connect' | 'message' | 'lookalike';

/** Each marker and the code it forces per operation; null means the operation succeeds. */
const TABLE: [string, Record<Op, NetworkErrorCode | null>][] = [
  [
    MARKERS.outage,
    {
      lookup: 'upstream_unavailable',
      search: 'upstream_unavailable',
      connect: 'upstream_unavailable',
      message: 'upstream_unavailable',
      lookalike: 'upstream_unavailable',
    },
  ],
  [
    MARKERS.disconnected,
    {
      lookup: 'account_disconnected',
      search: 'account_disconnected',
      connect: 'account_disconnected',
      message: 'account_disconnected',
      lookalike: 'account_disconnected',
    },
  ],
  [
    MARKERS.quota,
    {
      lookup: 'network_daily_quota',
      search: 'network_daily_quota',
      connect: 'network_daily_quota',
      message: 'network_daily_quota',
      lookalike: 'network_daily_quota',
    },
  ],
  [MARKERS.salesNavFail, { lookup: 'sales_nav_required', search: 'sales_nav_required', connect: null, message: null, lookalike: null }],
  [MARKERS.notFound, { lookup: 'not_found', search: null, connect: 'not_found', message: 'not_found', lookalike: 'not_found' }],
  [MARKERS.sendFail, { lookup: null, search: null, connect: 'send_failed', message: 'send_failed', lookalike: null }],
];

function run(op: Op, slug: string) {
  const { net } = makeNetwork();
  switch (op) {
    case 'lookup':
      return net.lookupProfile({ account, networkUrl: url(slug), depth: 'basic' });
    case 'search':
      return net.searchPeople({ account, type: 'classic', query: `cto ${slug}`, limit: 5 });
    case 'connect':
      return net.sendConnectionRequest({ account, networkUrl: url(slug), note: 'Hi' });
    case 'message':
      return net.sendMessage({ account, recipient: { networkUrl: url(slug) }, text: 'Hello' });
    case 'lookalike':
      return net.lookalikeCandidates({ seed: url(slug), jobTitleKeywords: [], countries: [], cursor: null, limit: 5 });
  }
}

describe('failure markers', () => {
  for (const [marker, expected] of TABLE) {
    for (const [op, code] of Object.entries(expected) as [Op, NetworkErrorCode | null][]) {
      it(`${marker} on ${op} → ${code ?? 'success'}`, async () => {
        const slug = `jane-${marker}`;
        if (code === null) {
          await expect(run(op, slug)).resolves.toBeDefined();
          return;
        }
        const err = await rejection(run(op, slug));
        expect(err.code).toBe(code);
        expect(err.message).not.toBe('');
      });
    }
  }

  it('reaches every network error code', () => {
    const reached = new Set<string>(TABLE.flatMap(([, byOp]) => Object.values(byOp)).filter((c) => c !== null));
    reached.add('validation_error');
    expect([...reached].sort()).toEqual([...NETWORK_ERROR_CODES].sort());
  });

  it('finds markers anywhere in the slug, URL-encoded or upper-case', async () => {
    const { net } = makeNetwork();
    for (const networkUrl of ['https://www.linkedin.com/in/SIM-OUTAGE-bob', 'https://uk.linkedin.com/in/bob%2Dsim-outage%2D7/']) {
      expect((await rejection(net.lookupProfile({ account, networkUrl, depth: 'basic' }))).code).toBe('upstream_unavailable');
    }
  });

  it('gives quota failures a Retry-After until the next UTC midnight', async () => {
    const { net } = makeNetwork('2026-11-21T23:00:00Z');
    const err = await rejection(net.lookupProfile({ account, networkUrl: url('bob-sim-quota'), depth: 'basic' }));
    expect(err.details.retryAfterSeconds).toBe(3600);
  });

  it('checks the search URL as well as the query', async () => {
    const { net } = makeNetwork();
    const err = await rejection(
      net.searchPeople({ account, type: 'classic', url: 'https://www.linkedin.com/search/results/people/?keywords=sim-outage', limit: 5 }),
    );
    expect(err.code).toBe('upstream_unavailable');
  });

  it('reports and enforces account status from markers in the account id', async () => {
    const { net } = makeNetwork();
    const cases = [
      ['acc_sim-disconnected', 'disconnected'],
      ['acc_sim-connecting', 'connecting'],
      ['acc_sim-failed', 'failed'],
      ['acc_ok', 'connected'],
    ] as const;
    for (const [id, status] of cases) {
      const acc = { id, hasSalesNavigator: true };
      expect(await net.accountHealth(acc)).toEqual({ status, hasSalesNavigator: true });
      const lookup = net.lookupProfile({ account: acc, networkUrl: url('ada-lovelace'), depth: 'basic' });
      if (status === 'connected') await expect(lookup).resolves.toBeDefined();
      else expect((await rejection(lookup)).code).toBe('account_disconnected');
    }
  });

  it('validates send inputs and unknown provider ids', async () => {
    const { net } = makeNetwork();
    const longNote = await rejection(net.sendConnectionRequest({ account, networkUrl: url('ada-lovelace'), note: 'x'.repeat(301) }));
    expect(longNote).toMatchObject({ code: 'validation_error', details: { fields: ['note'] } });
    const empty = await rejection(net.sendMessage({ account, recipient: { networkUrl: url('ada-lovelace') }, text: '  ' }));
    expect(empty).toMatchObject({ code: 'validation_error', details: { fields: ['text'] } });
    const badUrl = await rejection(net.sendMessage({ account, recipient: { networkUrl: 'https://example.com' }, text: 'hi' }));
    expect(badUrl).toMatchObject({ code: 'validation_error', details: { fields: ['recipient.networkUrl'] } });
    const unknown = await rejection(net.sendConnectionRequest({ account, providerId: 'ACoAAforged', note: null }));
    expect(unknown.code).toBe('not_found');
  });
});
