import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts } from '../../../src/db/schema.js';
import { alreadyConnectedId, alreadyInvitedId } from '../../../src/network/unipile/index.js';
import { rejection } from '../helpers.js';
import { ada, nav, profileUrl, useSetup } from './helpers.js';

const t = useSetup();

const jane = () =>
  t.server.addPerson({
    provider_id: 'ACoAAJane01',
    public_identifier: 'jane-doe',
    first_name: 'Jane',
    last_name: 'Doe',
    headline: 'CTO at Acme | Speaker',
    location: 'Berlin, Germany',
    summary: 'Builds things.',
    websites: ['https://acme.example'],
    profile_picture_url: 'https://media.example/jane.jpg',
    work_experience: [
      { position: 'Engineer', company: 'Initech', company_id: '77', start: '3/2015', end: '12/2018', skills: [] },
      { position: 'CTO', company: 'Acme', company_id: '1234', start: '2021-03', end: null, current: true, skills: [] },
      { position: 'Lead', company: 'Globex', start: { year: 2019, month: 1 }, end: '2021-02-28T00:00:00.000Z', skills: [] },
    ],
  });

describe('lookupProfile', () => {
  it('reads GET /users/{slug} with the account and maps the basic profile', async () => {
    jane();
    const p = await t.provider.lookupProfile({ account: ada, networkUrl: 'https://uk.linkedin.com/in/Jane-Doe/?trk=x', depth: 'basic' });
    expect(p).toEqual({
      fullName: 'Jane Doe',
      firstName: 'Jane',
      lastName: 'Doe',
      headline: 'CTO at Acme | Speaker',
      jobTitle: 'CTO',
      companyName: 'Acme',
      companyNetwork: 'https://www.linkedin.com/company/1234',
      website: 'https://acme.example',
      location: 'Berlin, Germany',
      networkUrl: profileUrl('jane-doe'),
      providerId: 'ACoAAJane01',
      profilePictureUrl: 'https://media.example/jane.jpg',
    });
    const [req] = t.server.requests;
    expect(req?.path).toBe('/api/v1/users/jane-doe');
    expect(Object.fromEntries(req!.query)).toEqual({ account_id: 'UNI_ADA', linkedin_sections: 'experience' });
    expect(req?.headers['x-api-key']).toBe(t.server.apiKey);
  });

  it('at depth full adds about and the experience newest first as YYYY-MM', async () => {
    jane();
    const p = await t.provider.lookupProfile({ account: nav, networkUrl: profileUrl('jane-doe'), depth: 'full' });
    expect(p.about).toBe('Builds things.');
    expect(p.experience).toEqual([
      { company: 'Acme', position: 'CTO', location: null, description: null, start: '2021-03', end: null },
      { company: 'Globex', position: 'Lead', location: null, description: null, start: '2019-01', end: '2021-02' },
      { company: 'Initech', position: 'Engineer', location: null, description: null, start: '2015-03', end: '2018-12' },
    ]);
    expect(Object.fromEntries(t.server.requests[0]!.query)).toEqual({ account_id: 'UNI_NAV', linkedin_sections: '*' });
  });

  it('reads a Sales Navigator member id through Sales Navigator, keeping its case; an account without it reads the classic profile', async () => {
    t.server.addPerson({ provider_id: 'ACoAABNora1', public_identifier: 'nav-nora', first_name: 'Nora', sales_nav_id: 'ACwAABxYz12' });
    const p = await t.provider.lookupProfile({ account: nav, networkUrl: 'https://www.linkedin.com/in/ACwAABxYz12', depth: 'basic' });
    expect(p).toMatchObject({ networkUrl: profileUrl('nav-nora'), providerId: 'ACwAABxYz12' });
    expect(t.server.requests[0]?.path).toBe('/api/v1/users/ACwAABxYz12');
    expect(t.server.requests[0]?.query.get('linkedin_api')).toBe('sales_navigator');
    // Without Sales Navigator, the classic API converts the id: the classic profile comes back.
    const classic = await t.provider.lookupProfile({ account: ada, networkUrl: 'https://www.linkedin.com/in/ACwAABxYz12', depth: 'basic' });
    expect(classic).toMatchObject({ networkUrl: profileUrl('nav-nora'), providerId: 'ACoAABNora1', firstName: 'Nora' });
    expect(t.server.requests[1]?.path).toBe('/api/v1/users/ACwAABxYz12');
    expect(t.server.requests[1]?.query.get('linkedin_api')).toBeNull();
  });

  it('keeps at most 10 experience entries', async () => {
    t.server.addPerson({
      provider_id: 'ACoLong',
      public_identifier: 'long-career',
      work_experience: Array.from({ length: 14 }, (_, i) => ({ position: `Role ${i}`, company: 'Co', start: `${2000 + i}`, end: `${2001 + i}`, skills: [] })),
    });
    const p = await t.provider.lookupProfile({ account: ada, networkUrl: profileUrl('long-career'), depth: 'full' });
    expect(p.experience).toHaveLength(10);
    expect(p.experience[0]).toMatchObject({ position: 'Role 13', start: '2013-01', end: '2014-01' });
  });

  it('refuses a URL that is not a personal profile without calling Unipile', async () => {
    const err = await rejection(t.provider.lookupProfile({ account: ada, networkUrl: 'https://www.linkedin.com/company/acme', depth: 'basic' }));
    expect(err.code).toBe('validation_error');
    expect(err.details.fields).toEqual(['networkUrl']);
    expect(t.server.requests).toHaveLength(0);
  });

  it('is not_found for a profile Unipile does not know', async () => {
    const err = await rejection(t.provider.lookupProfile({ account: ada, networkUrl: profileUrl('nobody-here'), depth: 'basic' }));
    expect(err.code).toBe('not_found');
    expect(err.details.providerError).toBe('errors/resource_not_found');
  });

  it('is account_disconnected for an account not linked to Unipile, without calling it', async () => {
    t.ctx.db.update(accounts).set({ providerAccountId: null }).where(eq(accounts.id, 'acc_ada')).run();
    const err = await rejection(t.provider.lookupProfile({ account: ada, networkUrl: profileUrl('jane-doe'), depth: 'basic' }));
    expect(err.code).toBe('account_disconnected');
    expect(t.server.requests).toHaveLength(0);
  });
});

describe('searchPeople', () => {
  const crowd = (n: number) => {
    for (let i = 0; i < n; i++) {
      t.server.addPerson({
        provider_id: `ACoEng${i}`,
        public_identifier: `eng-${i}`,
        first_name: 'Eng',
        last_name: `N${i}`,
        headline: `Software Engineer at Co${i}`,
        location: 'Paris',
      });
    }
  };

  it('posts a classic people search, clamps the page to 50 and follows the cursor to the end', async () => {
    crowd(120);
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const page = await t.provider.searchPeople({ account: ada, type: 'classic', query: 'engineer', limit: 80, cursor });
      sizes.push(page.results.length);
      seen.push(...page.results.map((r) => r.providerId));
      cursor = page.cursor;
    } while (cursor !== null);
    expect(sizes).toEqual([50, 50, 20]);
    expect(new Set(seen).size).toBe(120);
    const [first] = t.server.requestsTo('POST', /\/linkedin\/search$/);
    expect(first?.json).toEqual({ api: 'classic', category: 'people', keywords: 'engineer' });
    expect(Object.fromEntries(first!.query)).toEqual({ account_id: 'UNI_ADA', limit: '50' });
  });

  it('maps results with title and company from the headline', async () => {
    crowd(1);
    const page = await t.provider.searchPeople({ account: ada, type: 'classic', query: 'engineer', limit: 10 });
    expect(page).toEqual({
      results: [
        {
          fullName: 'Eng N0',
          headline: 'Software Engineer at Co0',
          jobTitle: 'Software Engineer',
          companyName: 'Co0',
          location: 'Paris',
          networkUrl: profileUrl('eng-0'),
          providerId: 'ACoEng0',
          profilePictureUrl: '',
        },
      ],
      cursor: null,
    });
  });

  it('refuses a cursor from another query or a forged one', async () => {
    crowd(30);
    const page = await t.provider.searchPeople({ account: ada, type: 'classic', query: 'engineer', limit: 10 });
    const calls = t.server.requests.length;
    for (const cursor of [page.cursor, 'not-a-cursor']) {
      const err = await rejection(t.provider.searchPeople({ account: ada, type: 'classic', query: 'paris', limit: 10, cursor }));
      expect(err.code).toBe('validation_error');
      expect(err.details.fields).toEqual(['cursor']);
    }
    expect(t.server.requests).toHaveLength(calls);
  });

  it('uses Sales Navigator with pages up to 100, and refuses it for an account without', async () => {
    crowd(150);
    const page = await t.provider.searchPeople({ account: nav, type: 'sales_nav', query: 'engineer', limit: 100 });
    expect(page.results).toHaveLength(100);
    expect(t.server.requests[0]?.json).toMatchObject({ api: 'sales_navigator', category: 'people' });
    const err = await rejection(t.provider.searchPeople({ account: ada, type: 'sales_nav', query: 'engineer', limit: 10 }));
    expect(err.code).toBe('sales_nav_required');
    expect(t.server.requests).toHaveLength(1);
  });

  it('maps Unipile refusing Sales Navigator to sales_nav_required', async () => {
    t.server.accounts.find((a) => a.id === 'UNI_NAV').connection_params.im.premiumFeatures = [];
    const err = await rejection(t.provider.searchPeople({ account: nav, type: 'sales_nav', query: 'engineer', limit: 10 }));
    expect(err.code).toBe('sales_nav_required');
    expect(err.details.providerError).toBe('errors/feature_not_subscribed');
  });

  it('searches by URL, and needs exactly one of query and url', async () => {
    crowd(3);
    const url = 'https://www.linkedin.com/search/results/people/?keywords=engineer';
    const page = await t.provider.searchPeople({ account: ada, type: 'classic', url, limit: 10 });
    expect(page.results).toHaveLength(3);
    expect(t.server.requests[0]?.json).toEqual({ url });
    for (const bad of [{}, { query: 'a', url }]) {
      const err = await rejection(t.provider.searchPeople({ account: ada, type: 'classic', limit: 10, ...bad }));
      expect(err.details.fields).toEqual(['query', 'url']);
    }
  });
});

describe('sendConnectionRequest', () => {
  it('resolves the provider id once, then posts JSON to /users/invite', async () => {
    jane();
    const first = await t.provider.sendConnectionRequest({ account: ada, networkUrl: profileUrl('jane-doe'), note: 'Hi Jane' });
    expect(first.invitationId).toMatch(/^7\d+$/);
    expect(t.server.requestsTo('GET', /\/users\/jane-doe$/)).toHaveLength(1);
    const [invite] = t.server.requestsTo('POST', /\/users\/invite$/);
    expect(invite?.headers['content-type']).toBe('application/json');
    expect(invite?.json).toEqual({ account_id: 'UNI_ADA', provider_id: 'ACoAAJane01', message: 'Hi Jane' });
    // The provider id is remembered: another account's invite needs no second profile view.
    await t.provider.sendConnectionRequest({ account: nav, networkUrl: profileUrl('jane-doe'), note: null });
    expect(t.server.requestsTo('GET', /\/users\/jane-doe$/)).toHaveLength(1);
    expect(t.server.requestsTo('POST', /\/users\/invite$/)[1]?.json).toEqual({ account_id: 'UNI_NAV', provider_id: 'ACoAAJane01' });
  });

  it('sends straight to a provider id, and refuses a note over 300 characters', async () => {
    jane();
    await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoAAJane01', note: 'é'.repeat(300) });
    expect(t.server.requests.map((r) => r.path)).toEqual(['/api/v1/users/invite']);
    const err = await rejection(t.provider.sendConnectionRequest({ account: nav, providerId: 'ACoAAJane01', note: 'x'.repeat(301) }));
    expect(err.code).toBe('validation_error');
    expect(err.details.fields).toEqual(['note']);
    expect(t.server.requests).toHaveLength(1);
  });

  it('treats already_connected as done and queues the acceptance once', async () => {
    jane();
    t.server.connected.add('UNI_ADA:ACoAAJane01');
    const res = await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoAAJane01', networkUrl: profileUrl('jane-doe'), note: null });
    expect(res.invitationId).toBe(alreadyConnectedId('ACoAAJane01'));
    await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoAAJane01', networkUrl: profileUrl('jane-doe'), note: null });
    const events = await t.provider.drainInbound(t.ctx.clock.now());
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^unipile_accept_/),
        type: 'invitation_accepted',
        accountId: 'acc_ada',
        networkUrl: profileUrl('jane-doe'),
        providerId: 'ACoAAJane01',
        at: t.ctx.clock.now(),
      },
    ]);
  });

  it('treats an invitation already pending as sent', async () => {
    jane();
    t.server.invited.add('UNI_ADA:ACoAAJane01');
    const res = await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoAAJane01', note: null });
    expect(res.invitationId).toBe(alreadyInvitedId('ACoAAJane01'));
    expect(t.provider.store.pendingInvitations('acc_ada', 0).has('ACoAAJane01')).toBe(true);
  });

  it('maps cannot_resend_yet to the daily quota, retrying after the next UTC midnight', async () => {
    jane();
    t.server.failNext({ method: 'POST', path: /\/users\/invite$/ }, { status: 422, type: 'cannot_resend_yet' });
    const err = await rejection(t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoAAJane01', note: null }));
    expect(err.code).toBe('network_daily_quota');
    expect(err.details.retryAfterSeconds).toBe(12 * 3600); // the fake clock is at 12:00 UTC
  });

  it('is not_found for a profile URL Unipile cannot resolve', async () => {
    const err = await rejection(t.provider.sendConnectionRequest({ account: ada, networkUrl: profileUrl('ghost'), note: null }));
    expect(err.code).toBe('not_found');
    expect(t.server.requestsTo('POST', /invite/)).toHaveLength(0);
  });
});

describe('sendMessage', () => {
  it('starts a chat with a multipart body and replies in it by chat id', async () => {
    jane();
    const text = 'Hello Jane,\nthanks for connecting — “quotes” & ünïcode';
    const started = await t.provider.sendMessage({ account: ada, recipient: { providerId: 'ACoAAJane01' }, text });
    expect(started.chatId).toMatch(/^chat/);
    const [post] = t.server.requestsTo('POST', /\/chats$/);
    expect(post?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(post?.form?.map(([k, v]) => [k, v.replace(/\r\n/g, '\n')])).toEqual([
      ['account_id', 'UNI_ADA'],
      ['text', text],
      ['attendees_ids', 'ACoAAJane01'],
    ]);
    const reply = await t.provider.sendMessage({ account: ada, recipient: { providerId: 'ACoAAJane01' }, chatId: started.chatId, text: 'Follow-up' });
    expect(reply.chatId).toBe(started.chatId);
    expect(reply.messageId).not.toBe(started.messageId);
    const [again] = t.server.requestsTo('POST', /\/chats\/[^/]+\/messages$/);
    expect(again?.form).toEqual([
      ['account_id', 'UNI_ADA'],
      ['text', 'Follow-up'],
    ]);
    expect(t.server.chats.get(started.chatId)?.texts).toHaveLength(2);
  });

  it('opens a new chat when the stored chat no longer exists', async () => {
    jane();
    const res = await t.provider.sendMessage({ account: ada, recipient: { networkUrl: profileUrl('jane-doe') }, chatId: 'gone-chat', text: 'Hi' });
    expect(res.chatId).toMatch(/^chat/);
    expect(t.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v1/chats/gone-chat/messages',
      'GET /api/v1/users/jane-doe',
      'POST /api/v1/chats',
    ]);
  });

  it('refuses an empty text, and maps a refused recipient to send_failed', async () => {
    jane();
    const empty = await rejection(t.provider.sendMessage({ account: ada, recipient: { providerId: 'ACoAAJane01' }, text: '  ' }));
    expect(empty.details.fields).toEqual(['text']);
    t.server.failNext({ method: 'POST', path: /\/chats$/ }, { status: 422, type: 'no_connection_with_recipient' });
    const err = await rejection(t.provider.sendMessage({ account: ada, recipient: { providerId: 'ACoAAJane01' }, text: 'Hi' }));
    expect(err.code).toBe('send_failed');
  });
});

describe('accountHealth', () => {
  it('reads the account status and Sales Navigator from Unipile', async () => {
    expect(await t.provider.accountHealth(ada)).toEqual({ status: 'connected', hasSalesNavigator: false });
    expect(await t.provider.accountHealth({ id: 'acc_ada', hasSalesNavigator: true })).toEqual({ status: 'connected', hasSalesNavigator: false });
    expect(await t.provider.accountHealth(nav)).toEqual({ status: 'connected', hasSalesNavigator: true });
    expect(await t.provider.accountHealth({ id: 'acc_off', hasSalesNavigator: false })).toEqual({ status: 'disconnected', hasSalesNavigator: false });
    expect(t.server.requests.map((r) => r.path)).toEqual([
      '/api/v1/accounts/UNI_ADA',
      '/api/v1/accounts/UNI_ADA',
      '/api/v1/accounts/UNI_NAV',
      '/api/v1/accounts/UNI_OFF',
    ]);
  });

  it('is disconnected for an account Unipile deleted or one never linked', async () => {
    t.server.accounts = t.server.accounts.filter((a) => a.id !== 'UNI_ADA');
    expect((await t.provider.accountHealth(ada)).status).toBe('disconnected');
    expect((await t.provider.accountHealth({ id: 'acc_nobody', hasSalesNavigator: false })).status).toBe('disconnected');
  });
});

describe('withdrawInvitation', () => {
  it('cancels the invitation it sent with DELETE /users/invite/sent/{id}?account_id=, and forgets it', async () => {
    jane();
    const { invitationId } = await t.provider.sendConnectionRequest({ account: ada, networkUrl: profileUrl('jane-doe'), note: null });
    await t.provider.withdrawInvitation({ account: ada, networkUrl: profileUrl('jane-doe') });
    const [cancel] = t.server.requestsTo('DELETE', /\/users\/invite\/sent\//);
    expect(cancel?.path).toBe(`/api/v1/users/invite/sent/${invitationId}`);
    expect(t.server.violations).toEqual([]);
    expect(t.server.invited.has('UNI_ADA:ACoAAJane01')).toBe(false);
    // The relations poll no longer looks for its acceptance, and a second withdrawal has nothing to cancel.
    expect(t.provider.store.pendingInvitations('acc_ada', 0).has('ACoAAJane01')).toBe(false);
    const err = await rejection(t.provider.withdrawInvitation({ account: ada, networkUrl: profileUrl('jane-doe') }));
    expect(err.code).toBe('not_found');
    expect(t.server.requestsTo('DELETE', /\/users\/invite\/sent\//)).toHaveLength(1);
  });

  it('is not_found when Unipile no longer has the invitation (accepted or expired there)', async () => {
    jane();
    const { invitationId } = await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoAAJane01', note: null });
    t.server.invitations.delete(invitationId);
    const err = await rejection(t.provider.withdrawInvitation({ account: ada, providerId: 'ACoAAJane01' }));
    expect(err.code).toBe('not_found');
  });

  it('cannot withdraw an invitation it never sent (already pending before), and calls nothing', async () => {
    jane();
    t.server.invited.add('UNI_ADA:ACoAAJane01');
    await t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoAAJane01', note: null });
    const err = await rejection(t.provider.withdrawInvitation({ account: ada, providerId: 'ACoAAJane01' }));
    expect(err.code).toBe('not_found');
    expect(t.server.requestsTo('DELETE', /./)).toHaveLength(0);
  });
});
