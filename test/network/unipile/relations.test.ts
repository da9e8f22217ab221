import { describe, expect, it } from 'vitest';
import { ada, profileUrl, useSetup } from './helpers.js';

const t = useSetup({ relationsPoll: { maxPages: 5 } });

const HOUR = 3600_000;

/** `count` people, each with an older relation than the last, starting an hour before now. */
function crowd(count: number, prefix = 'old') {
  const now = t.ctx.clock.now();
  return Array.from({ length: count }, (_, i) => {
    const p = t.server.addPerson({ provider_id: `ACo${prefix}${i}`, public_identifier: `${prefix}-${i}` });
    t.server.addRelation('UNI_ADA', p, now - HOUR - i * HOUR);
    return p;
  });
}

describe('relations polling', () => {
  it('costs no call while nothing is pending', async () => {
    crowd(5);
    expect(await t.provider.pollRelations()).toEqual({ polled: [], accepted: 0, failed: [] });
    expect(t.server.requests).toHaveLength(0);
  });

  it('finds an acceptance the webhook never delivered, on a later page, and reports it once', async () => {
    crowd(150);
    const invitee = t.server.addPerson({ provider_id: 'ACoLate', public_identifier: 'late-larry' });
    t.ctx.clock.advance(-200 * HOUR);
    await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoLate', networkUrl: profileUrl('late-larry'), note: null });
    t.ctx.clock.advance(200 * HOUR);
    // Accepted long ago: it sits behind 150 newer relations, on the second page.
    t.server.addRelation('UNI_ADA', invitee, t.ctx.clock.now() - 151.5 * HOUR);

    const first = await t.provider.pollRelations();
    expect(first).toEqual({ polled: ['acc_ada'], accepted: 1, failed: [] });
    const relationCalls = t.server.requestsTo('GET', /\/users\/relations$/);
    expect(relationCalls.map((r) => Object.fromEntries(r.query))).toEqual([
      { account_id: 'UNI_ADA', limit: '100' },
      { account_id: 'UNI_ADA', limit: '100', cursor: expect.any(String) },
    ]);
    const events = await t.provider.drainInbound(t.ctx.clock.now());
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^unipile_accept_/),
        type: 'invitation_accepted',
        accountId: 'acc_ada',
        networkUrl: profileUrl('late-larry'),
        providerId: 'ACoLate',
        at: t.ctx.clock.now() - 151.5 * HOUR,
      },
    ]);

    // The late webhook arrives after all: same event id, nothing new.
    const outcome = t.provider.handleWebhook({
      event: 'new_relation',
      account_id: 'UNI_ADA',
      user_provider_id: 'ACoLate',
      user_public_identifier: 'late-larry',
    });
    expect(outcome).toEqual({ status: 'duplicate', eventId: events[0]!.id });
    // And the next poll has nothing left to look for.
    const calls = t.server.requests.length;
    expect((await t.provider.pollRelations()).polled).toEqual([]);
    expect(t.server.requests).toHaveLength(calls);
  });

  it('does not report again an acceptance the webhook already delivered', async () => {
    const p = t.server.addPerson({ provider_id: 'ACoQuick', public_identifier: 'quick-quinn' });
    await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoQuick', note: null });
    t.provider.handleWebhook({ event: 'new_relation', account_id: 'UNI_ADA', user_provider_id: 'ACoQuick', user_public_identifier: 'quick-quinn' });
    t.server.addRelation('UNI_ADA', p, t.ctx.clock.now());
    expect((await t.provider.pollRelations()).accepted).toBe(0);
    expect(await t.provider.drainInbound(t.ctx.clock.now())).toHaveLength(1);
  });

  it('stops at relations older than the oldest pending invitation', async () => {
    crowd(400);
    t.server.addPerson({ provider_id: 'ACoPending', public_identifier: 'still-pending' });
    t.ctx.clock.advance(-2 * HOUR);
    await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoPending', note: null });
    t.ctx.clock.advance(2 * HOUR);
    const result = await t.provider.pollRelations();
    expect(result.accepted).toBe(0);
    // Page one already reaches relations from before the invitation (less an hour of slack).
    expect(t.server.requestsTo('GET', /\/users\/relations$/)).toHaveLength(1);
  });

  it('reads at most maxPages pages, and keeps going for other accounts when one fails', async () => {
    crowd(1000);
    t.server.addPerson({ provider_id: 'ACoNever', public_identifier: 'never-accepts' });
    // Older than every relation on the first pages (but inside the 60-day lookback), so only the page cap stops the poll.
    t.ctx.clock.advance(-1200 * HOUR);
    await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoNever', note: null });
    await t.provider.sendConnectionRequest({ account: { id: 'acc_nav', hasSalesNavigator: true }, providerId: 'ACoNever', note: null });
    t.ctx.clock.advance(1200 * HOUR);
    t.server.failNext({ method: 'GET', path: /\/users\/relations$/ }, { status: 401, type: 'disconnected_account' });
    const result = await t.provider.pollRelations();
    expect(result.failed).toEqual(['acc_ada']);
    expect(result.polled).toEqual(['acc_ada', 'acc_nav']);
    t.server.requests.length = 0;
    await t.provider.pollRelations();
    expect(t.server.requestsTo('GET', /\/users\/relations$/).filter((r) => r.query.get('account_id') === 'UNI_ADA')).toHaveLength(5);
  });

  it('runs from drainInbound when due, in the background', async () => {
    const p = t.server.addPerson({ provider_id: 'ACoBg', public_identifier: 'bg-bea' });
    await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoBg', note: null });
    t.server.addRelation('UNI_ADA', p, t.ctx.clock.now());
    expect(await t.provider.drainInbound(t.ctx.clock.now())).toEqual([]);
    await t.provider.idle();
    expect((await t.provider.drainInbound(t.ctx.clock.now())).map((e) => e.providerId)).toEqual(['ACoBg']);
    // Not due again for three hours: another drain makes no relations call.
    const calls = t.server.requestsTo('GET', /\/users\/relations$/).length;
    await t.provider.drainInbound(t.ctx.clock.now());
    await t.provider.idle();
    expect(t.server.requestsTo('GET', /\/users\/relations$/)).toHaveLength(calls);
  });
});
