import { describe, expect, it } from 'vitest';
import { rejection } from '../helpers.js';
import { ada, nav, profileUrl, useSetup } from './helpers.js';

/** The provider calls a sequence's visit, like_post and inmail steps make, against the contract server. */
const t = useSetup();

const jane = (extra: Parameters<typeof t.server.addPerson>[0] | object = {}) =>
  t.server.addPerson({
    provider_id: 'ACoAAJane01',
    public_identifier: 'jane-doe',
    first_name: 'Jane',
    last_name: 'Doe',
    headline: 'CTO at Acme',
    location: 'Berlin, Germany',
    sales_nav_id: 'ACwAAJaneSN1',
    ...extra,
  });

describe('visitProfile', () => {
  it('reads the profile with notify=true, so the person is told of the visit', async () => {
    jane();
    const p = await t.provider.visitProfile({ account: ada, networkUrl: 'https://www.linkedin.com/in/Jane-Doe/' });
    expect(p).toMatchObject({ fullName: 'Jane Doe', providerId: 'ACoAAJane01', networkUrl: profileUrl('jane-doe') });
    const [req] = t.server.requestsTo('GET', /^\/api\/v1\/users\/jane-doe$/);
    expect(Object.fromEntries(req!.query)).toEqual({ account_id: 'UNI_ADA', notify: 'true' });
    expect(t.server.visits).toEqual(['UNI_ADA:jane-doe']);
  });

  it('visits by provider id, and remembers it for the next send', async () => {
    jane();
    await t.provider.visitProfile({ account: ada, providerId: 'ACoAAJane01' });
    expect(t.server.visits).toEqual(['UNI_ADA:ACoAAJane01']);
    await t.provider.sendConnectionRequest({ account: ada, networkUrl: profileUrl('jane-doe'), note: null });
    // The invitation needed no second profile read: the visit taught the adapter the provider id.
    expect(t.server.requestsTo('GET', /\/users\//)).toHaveLength(1);
  });

  it('is not_found for a profile Unipile does not know, and refuses a company URL without calling', async () => {
    expect((await rejection(t.provider.visitProfile({ account: ada, networkUrl: profileUrl('nobody') }))).code).toBe('not_found');
    const err = await rejection(t.provider.visitProfile({ account: ada, networkUrl: 'https://www.linkedin.com/company/acme' }));
    expect(err.code).toBe('validation_error');
    expect(t.server.requests).toHaveLength(1);
  });
});

describe('likeLatestPost', () => {
  it('lists the posts by provider id and likes the newest own one by its social_id', async () => {
    jane({
      posts: [
        t.server.post('urn:li:activity:7000000000000000003', { repost: true, at: '2026-03-05T10:00:00.000Z' }),
        t.server.post('urn:li:activity:7000000000000000002', { at: '2026-03-04T10:00:00.000Z' }),
        t.server.post('urn:li:activity:7000000000000000001', { at: '2026-03-01T10:00:00.000Z' }),
      ],
    });
    const r = await t.provider.likeLatestPost({ account: ada, networkUrl: profileUrl('jane-doe') });
    expect(r).toEqual({ outcome: 'liked', postId: 'urn:li:activity:7000000000000000002' });
    const [list] = t.server.requestsTo('GET', /\/posts$/);
    expect(list?.path).toBe('/api/v1/users/ACoAAJane01/posts');
    expect(Object.fromEntries(list!.query)).toEqual({ account_id: 'UNI_ADA', limit: '10' });
    const [react] = t.server.requestsTo('POST', /\/posts\/reaction$/);
    expect(react?.json).toEqual({ account_id: 'UNI_ADA', post_id: 'urn:li:activity:7000000000000000002', reaction_type: 'like' });
    expect(t.server.reactions).toEqual(['UNI_ADA:urn:li:activity:7000000000000000002']);
  });

  it('answers no_posts for a person with none of their own (reposts and locked posts do not count)', async () => {
    jane({ posts: [t.server.post('urn:li:activity:71', { repost: true }), t.server.post('urn:li:activity:72', { canReact: false })] });
    expect(await t.provider.likeLatestPost({ account: ada, providerId: 'ACoAAJane01' })).toEqual({ outcome: 'no_posts' });
    expect(t.server.requestsTo('POST', /\/posts\/reaction$/)).toHaveLength(0);
  });

  it('does not like a post twice: one the account already reacted to counts as liked', async () => {
    jane({ posts: [t.server.post('urn:li:activity:73', { reacted: 'LIKE' })] });
    expect(await t.provider.likeLatestPost({ account: ada, providerId: 'ACoAAJane01' })).toEqual({ outcome: 'liked', postId: 'urn:li:activity:73' });
    expect(t.server.requestsTo('POST', /\/posts\/reaction$/)).toHaveLength(0);
  });

  it("reads Unipile's boolean user_reacted: true counts as liked, false is liked now", async () => {
    jane({ posts: [t.server.post('urn:li:activity:75', { reacted: true })] });
    expect(await t.provider.likeLatestPost({ account: ada, providerId: 'ACoAAJane01' })).toEqual({ outcome: 'liked', postId: 'urn:li:activity:75' });
    expect(t.server.requestsTo('POST', /\/posts\/reaction$/)).toHaveLength(0);
  });

  it('maps a refused reaction like any send', async () => {
    jane({ posts: [t.server.post('urn:li:activity:74')] });
    t.server.failNext({ method: 'POST', path: /\/posts\/reaction$/ }, { status: 422, type: 'invalid_post' });
    const err = await rejection(t.provider.likeLatestPost({ account: ada, providerId: 'ACoAAJane01' }));
    expect(err.code).toBe('send_failed');
    expect(err.details.providerError).toBe('errors/invalid_post');
  });
});

describe('sendInMail', () => {
  it('addresses the person by their Sales Navigator id and starts a Sales Navigator chat with the subject', async () => {
    jane();
    const r = await t.provider.sendInMail({ account: nav, recipient: { networkUrl: profileUrl('jane-doe') }, subject: 'Quick idea', text: 'Hi Jane' });
    expect(r).toMatchObject({ outcome: 'sent' });
    const [lookup] = t.server.requestsTo('GET', /\/users\/jane-doe$/);
    expect(Object.fromEntries(lookup!.query)).toEqual({ account_id: 'UNI_NAV', linkedin_api: 'sales_navigator' });
    const [chat] = t.server.requestsTo('POST', /\/chats$/);
    expect(chat?.form).toEqual([
      ['account_id', 'UNI_NAV'],
      ['text', 'Hi Jane'],
      ['subject', 'Quick idea'],
      ['attendees_ids', 'ACwAAJaneSN1'],
      ['linkedin[api]', 'sales_navigator'],
    ]);
    expect(r.outcome === 'sent' && t.server.chats.get(r.chatId)).toMatchObject({ subject: 'Quick idea', api: 'sales_navigator', texts: ['Hi Jane'] });
  });

  it('sends straight to a Sales Navigator id without a lookup', async () => {
    jane();
    await t.provider.sendInMail({ account: nav, recipient: { providerId: 'ACwAAJaneSN1' }, subject: 'S', text: 'T' });
    expect(t.server.requestsTo('GET', /./)).toHaveLength(0);
  });

  it('refuses an account without Sales Navigator, and bad subjects and texts, without calling', async () => {
    jane();
    expect((await rejection(t.provider.sendInMail({ account: ada, recipient: { providerId: 'ACoAAJane01' }, subject: 'S', text: 'T' }))).code).toBe(
      'sales_nav_required',
    );
    const noSubject = await rejection(t.provider.sendInMail({ account: nav, recipient: { providerId: 'ACoAAJane01' }, subject: ' ', text: 'T' }));
    expect(noSubject.details.fields).toEqual(['subject']);
    const long = await rejection(t.provider.sendInMail({ account: nav, recipient: { providerId: 'ACoAAJane01' }, subject: 'x'.repeat(201), text: 'T' }));
    expect(long.details.fields).toEqual(['subject']);
    const empty = await rejection(t.provider.sendInMail({ account: nav, recipient: { providerId: 'ACoAAJane01' }, subject: 'S', text: '' }));
    expect(empty.details.fields).toEqual(['text']);
    expect(t.server.requests).toHaveLength(0);
  });

  it('answers unreachable for a person who takes no InMail, and no_credits for an account without credits', async () => {
    jane({ noInMail: true });
    t.server.addPerson({ provider_id: 'ACoAABob', public_identifier: 'bob', sales_nav_id: 'ACwAABobSN' });
    expect(await t.provider.sendInMail({ account: nav, recipient: { providerId: 'ACoAAJane01' }, subject: 'S', text: 'T' })).toEqual({
      outcome: 'unreachable',
    });
    t.server.inmailCredits.set('UNI_NAV', 0);
    expect(await t.provider.sendInMail({ account: nav, recipient: { providerId: 'ACoAABob' }, subject: 'S', text: 'T' })).toEqual({ outcome: 'no_credits' });
  });

  it('maps a Sales Navigator seat that stopped working to sales_nav_required', async () => {
    jane();
    t.server.failNext({ method: 'POST', path: /\/chats$/ }, { status: 403, type: 'feature_not_subscribed' });
    const err = await rejection(t.provider.sendInMail({ account: nav, recipient: { providerId: 'ACwAAJaneSN1' }, subject: 'S', text: 'T' }));
    expect(err.code).toBe('sales_nav_required');
  });

  it('is not_found for a person without a Sales Navigator profile', async () => {
    t.server.addPerson({ provider_id: 'ACoAANoSn', public_identifier: 'no-sn' });
    const err = await rejection(t.provider.sendInMail({ account: nav, recipient: { networkUrl: profileUrl('no-sn') }, subject: 'S', text: 'T' }));
    expect(err.code).toBe('not_found');
    expect(t.server.requestsTo('POST', /\/chats$/)).toHaveLength(0);
  });
});

describe('endorseSkill', () => {
  const skills = [
    { name: 'Leadership', endorsement_id: 101, endorsed: true },
    { name: 'Sales', endorsement_id: 102, endorsed: false },
    { name: 'Strategy', endorsement_id: 103 },
    { name: 'Chess', endorsement_id: null },
  ];

  it('reads the skills by provider id and endorses the named one by its endorsement_id', async () => {
    jane({ skills });
    const r = await t.provider.endorseSkill({ account: ada, networkUrl: profileUrl('jane-doe'), skill: 'strategy' });
    expect(r).toEqual({ outcome: 'endorsed', skill: 'Strategy' });
    const reads = t.server.requestsTo('GET', /^\/api\/v1\/users\/ACoAAJane01$/);
    expect(Object.fromEntries(reads.at(-1)!.query)).toEqual({ account_id: 'UNI_ADA', linkedin_sections: 'skills' });
    const [endorse] = t.server.requestsTo('POST', /\/linkedin\/profile\/endorse$/);
    expect(endorse?.json).toEqual({ account_id: 'UNI_ADA', profile_id: 'ACoAAJane01', skill_endorsement_id: 103 });
    expect(t.server.endorsements).toEqual(['UNI_ADA:ACoAAJane01:103']);
  });

  it('without a name, endorses the first skill not endorsed yet; one endorsed already costs no second call', async () => {
    jane({ skills });
    expect(await t.provider.endorseSkill({ account: ada, providerId: 'ACoAAJane01', skill: null })).toEqual({ outcome: 'endorsed', skill: 'Sales' });
    expect(t.server.endorsements).toEqual(['UNI_ADA:ACoAAJane01:102']);
    expect(await t.provider.endorseSkill({ account: ada, providerId: 'ACoAAJane01', skill: 'Leadership' })).toEqual({
      outcome: 'endorsed',
      skill: 'Leadership',
    });
    expect(t.server.endorsements).toHaveLength(1);
  });

  it('answers no_skill for a skill the person does not list, or one LinkedIn offers no endorsement for', async () => {
    jane({ skills });
    expect(await t.provider.endorseSkill({ account: ada, providerId: 'ACoAAJane01', skill: 'Juggling' })).toEqual({ outcome: 'no_skill' });
    expect(await t.provider.endorseSkill({ account: ada, providerId: 'ACoAAJane01', skill: 'Chess' })).toEqual({ outcome: 'no_skill' });
    expect(t.server.requestsTo('POST', /\/linkedin\/profile\/endorse$/)).toHaveLength(0);
  });

  it('answers no_skill when Unipile says the endorsement was not taken (endorsed: false)', async () => {
    jane({ skills, refusesEndorsements: true });
    expect(await t.provider.endorseSkill({ account: ada, providerId: 'ACoAAJane01', skill: 'Strategy' })).toEqual({ outcome: 'no_skill' });
    expect(t.server.requestsTo('POST', /\/linkedin\/profile\/endorse$/)).toHaveLength(1);
    expect(t.server.endorsements).toEqual([]);
  });
});
