import { describe, expect, it } from 'vitest';
import { acceptanceDecision, postDecision, replyDecision, simPerson } from '../../src/network/sim/index.js';
import { account, classicOnly, makeNetwork, rejection, url } from './helpers.js';

const HOUR = 3_600_000;

describe('the simulator: profile visits', () => {
  it('return the person, and fail as lookups do on markers', async () => {
    const { net } = makeNetwork();
    const p = await net.visitProfile({ account, networkUrl: url('ada-lovelace') });
    expect(p).toMatchObject({ fullName: 'Ada Lovelace', networkUrl: url('ada-lovelace') });
    expect(await net.visitProfile({ account, providerId: p.providerId })).toEqual(p);
    expect((await rejection(net.visitProfile({ account, networkUrl: url('ada-sim-not-found') }))).code).toBe('not_found');
    expect((await rejection(net.visitProfile({ account, networkUrl: url('ada-sim-quota') }))).code).toBe('network_daily_quota');
    expect((await rejection(net.visitProfile({ account: { id: 'acc-sim-disconnected', hasSalesNavigator: false }, networkUrl: url('ada') }))).code).toBe(
      'account_disconnected',
    );
  });
});

describe('the simulator: liking the latest post', () => {
  it('likes the same post of the same person every time; sim-no-posts has none', async () => {
    const { net } = makeNetwork();
    const first = await net.likeLatestPost({ account, networkUrl: url('grace-hopper') });
    expect(await net.likeLatestPost({ account, networkUrl: url('grace-hopper') })).toEqual(first);
    expect(first).toEqual(
      postDecision('grace-hopper').latestPostId === null ? { outcome: 'no_posts' } : { outcome: 'liked', postId: postDecision('grace-hopper').latestPostId },
    );
    expect(await net.likeLatestPost({ account, networkUrl: url('grace-sim-no-posts') })).toEqual({ outcome: 'no_posts' });
    expect((await rejection(net.likeLatestPost({ account, networkUrl: url('grace-sim-send-fail') }))).code).toBe('send_failed');
  });

  it('finds posts for about three people in four', () => {
    const withPosts = Array.from({ length: 2000 }, (_, i) => postDecision(`person-${i}`).latestPostId !== null).filter(Boolean).length;
    expect(withPosts / 2000).toBeGreaterThan(0.7);
    expect(withPosts / 2000).toBeLessThan(0.8);
  });
});

describe('the simulator: InMail', () => {
  it('needs Sales Navigator on the account', async () => {
    const { net } = makeNetwork();
    const err = await rejection(net.sendInMail({ account: classicOnly, recipient: { networkUrl: url('ada') }, subject: 'Hi', text: 'Hello' }));
    expect(err.code).toBe('sales_nav_required');
  });

  it('reaches anyone but sim-no-inmail, and checks subject and text', async () => {
    const { net } = makeNetwork();
    const sent = await net.sendInMail({ account, recipient: { networkUrl: url('ada-sim-never-accepts') }, subject: 'Idea', text: 'Hello' });
    expect(sent).toMatchObject({ outcome: 'sent' });
    expect(await net.sendInMail({ account, recipient: { networkUrl: url('ada-sim-no-inmail') }, subject: 'Idea', text: 'Hello' })).toEqual({
      outcome: 'unreachable',
    });
    expect((await rejection(net.sendInMail({ account, recipient: { networkUrl: url('ada') }, subject: '', text: 'x' }))).details.fields).toEqual(['subject']);
    expect((await rejection(net.sendInMail({ account, recipient: { networkUrl: url('ada') }, subject: 's', text: 'x'.repeat(8001) }))).details.fields).toEqual([
      'text',
    ]);
  });

  it('shares the chat with messages, and may be answered like one', async () => {
    const { net, clock } = makeNetwork();
    const inmail = await net.sendInMail({ account, recipient: { networkUrl: url('ada-sim-replies-positive') }, subject: 'S', text: 'Hi' });
    const message = await net.sendMessage({ account, recipient: { networkUrl: url('ada-sim-replies-positive') }, text: 'Again' });
    expect(inmail.outcome === 'sent' && inmail.chatId).toBe(message.chatId);
    const events = await net.drainInbound(clock.now() + 10 * 24 * HOUR);
    expect(events.map((e) => e.type)).toEqual(['message_received']);
  });
});

describe('the simulator: markers for sequences', () => {
  it('sim-accepts-after-<N>h accepts exactly N hours after the invitation', async () => {
    const { net, clock } = makeNetwork();
    expect(acceptanceDecision('jane-sim-accepts-after-30h', 1000)).toEqual({ accepts: true, at: 1000 + 30 * HOUR });
    await net.sendConnectionRequest({ account, networkUrl: url('jane-sim-accepts-after-30h'), note: null });
    expect(await net.drainInbound(clock.now() + 30 * HOUR - 1)).toEqual([]);
    expect((await net.drainInbound(clock.now() + 30 * HOUR)).map((e) => e.type)).toEqual(['invitation_accepted']);
    // The marker is not part of the name.
    expect(simPerson('jane-doe-sim-accepts-after-30h').profile.fullName).toBe('Jane Doe');
  });

  it('sim-replies-after-<N> answers the Nth message or InMail of the account, one hour later, and no other', async () => {
    const { net, clock } = makeNetwork();
    const who = url('ada-sim-replies-after-2');
    await net.sendMessage({ account, recipient: { networkUrl: who }, text: 'First' });
    expect(await net.drainInbound(clock.now() + 10 * 24 * HOUR)).toEqual([]);
    clock.advance(5 * HOUR);
    await net.sendInMail({ account, recipient: { networkUrl: who }, subject: 'S', text: 'Second' });
    const at = clock.now() + HOUR;
    expect(await net.drainInbound(at - 1)).toEqual([]);
    const [reply] = await net.drainInbound(at);
    expect(reply).toMatchObject({ type: 'message_received', at });
    await net.sendMessage({ account, recipient: { networkUrl: who }, text: 'Third' });
    expect(await net.drainInbound(clock.now() + 10 * 24 * HOUR)).toEqual([]);
    // Another account counts its own messages.
    const other = { id: 'acc_other', hasSalesNavigator: false };
    await net.sendMessage({ account: other, recipient: { networkUrl: who }, text: 'First' });
    expect(await net.drainInbound(clock.now() + 10 * 24 * HOUR)).toEqual([]);
    expect(replyDecision('ada-sim-replies-after-2', 0, 1).replies).toBe(false);
    expect(replyDecision('ada-sim-replies-after-2', 0, 2)).toMatchObject({ replies: true, kind: 'positive', at: HOUR });
    expect(replyDecision('ada-sim-replies-question-sim-replies-after-1', 0, 1).kind).toBe('question');
    // Such a lead accepts an invitation (it must be a connection to get messages).
    expect(acceptanceDecision('ada-sim-replies-after-2', 0).accepts).toBe(true);
    expect(acceptanceDecision('ada-sim-never-accepts-sim-replies-after-1', 0).accepts).toBe(false);
  });
});
