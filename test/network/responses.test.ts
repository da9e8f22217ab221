import { describe, expect, it } from 'vitest';
import { acceptanceDecision, InMemorySimInboxStore, replyDecision, REPLY_KINDS, SimulatedNetwork } from '../../src/network/sim/index.js';
import { FakeClock } from '../../src/core/clock.js';
import { account, makeNetwork, url } from './helpers.js';
import { runSimInboxStoreContract } from './inbox-contract.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

runSimInboxStoreContract('in-memory', () => new InMemorySimInboxStore());

describe('acceptance and reply decisions', () => {
  it('are pure per person, with realistic rates and delays', () => {
    let accepted = 0;
    let replied = 0;
    const kinds = new Map<string, number>();
    for (let i = 0; i < 1000; i++) {
      const slug = `person-${i}`;
      const a = acceptanceDecision(url(slug), 1_000);
      expect(acceptanceDecision(slug, 1_000)).toEqual(a);
      if (a.accepts) {
        accepted += 1;
        expect(a.at! - 1_000).toBeGreaterThanOrEqual(HOUR);
        expect(a.at! - 1_000).toBeLessThanOrEqual(5 * DAY);
      } else {
        expect(a.at).toBeNull();
      }
      const r = replyDecision(slug, 0);
      if (r.replies) {
        replied += 1;
        kinds.set(r.kind!, (kinds.get(r.kind!) ?? 0) + 1);
        expect(r.text!.length).toBeGreaterThan(5);
        expect(r.at!).toBeGreaterThan(0);
        expect(r.at!).toBeLessThanOrEqual(3 * DAY);
      }
    }
    expect(accepted).toBeGreaterThan(450);
    expect(accepted).toBeLessThan(700);
    expect(replied).toBeGreaterThan(250);
    expect(replied).toBeLessThan(450);
    expect([...kinds.keys()].sort()).toEqual([...REPLY_KINDS].sort());
  });

  it('moves with the send time, not the person', () => {
    const a = acceptanceDecision('ada-lovelace-sim-fast-accept', 0);
    const b = acceptanceDecision('ada-lovelace-sim-fast-accept', 5 * DAY);
    expect(b.at! - a.at!).toBe(5 * DAY);
  });

  it('obeys the response markers', () => {
    expect(acceptanceDecision('bob-sim-never-accepts', 0)).toEqual({ accepts: false, at: null });
    const fast = acceptanceDecision('bob-sim-fast-accept', 0);
    expect(fast.accepts).toBe(true);
    expect(fast.at!).toBeLessThanOrEqual(15 * 60_000);
    expect(replyDecision('bob-sim-no-reply', 0).replies).toBe(false);
    const markers = [
      ['sim-replies-positive', 'positive'],
      ['sim-replies-question', 'question'],
      ['sim-replies-negative', 'negative'],
      ['sim-out-of-office', 'out_of_office'],
    ] as const;
    for (const [marker, kind] of markers) {
      for (let i = 0; i < 20; i++) {
        const slug = `p${i}-${marker}`;
        expect(acceptanceDecision(slug, 0).accepts).toBe(true);
        expect(replyDecision(slug, 0)).toMatchObject({ replies: true, kind });
      }
    }
    expect(replyDecision('bob-sim-replies-question', 0).text).toMatch(/\?$/);
    expect(replyDecision('bob-sim-replies-negative', 0).text).toMatch(/not interested|remove me|all set/i);
    expect(replyDecision('bob-sim-out-of-office', 0).text).toMatch(/out of the office until \w+day \d+ \w+/);
  });
});

describe('scheduled responses through the inbox', () => {
  it('delivers an acceptance once, when it is due', async () => {
    const { net, clock, inbox } = makeNetwork();
    const sentAt = clock.now();
    const { invitationId } = await net.sendConnectionRequest({ account, networkUrl: url('jane-sim-fast-accept'), note: 'Hi Jane' });
    expect(invitationId).toMatch(/^inv_/);
    const { at } = acceptanceDecision('jane-sim-fast-accept', sentAt);

    expect(await net.drainInbound(at! - 1)).toEqual([]);
    const events = await net.drainInbound(at!);
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^sim_accept_/),
        type: 'invitation_accepted',
        accountId: account.id,
        networkUrl: url('jane-sim-fast-accept'),
        providerId: expect.stringMatching(/^ACoAA/),
        at,
      },
    ]);
    expect(await net.drainInbound(at! + DAY)).toEqual([]);
    expect(inbox.pending()).toBe(0);

    // Re-inviting cannot produce a second acceptance.
    await net.sendConnectionRequest({ account, networkUrl: url('jane-sim-fast-accept'), note: null });
    expect(await net.drainInbound(at! + 10 * DAY)).toEqual([]);
  });

  it('schedules nothing for people who never accept', async () => {
    const { net, clock, inbox } = makeNetwork();
    await net.sendConnectionRequest({ account, networkUrl: url('bob-sim-never-accepts'), note: null });
    clock.advance(30 * DAY);
    expect(inbox.pending()).toBe(0);
    expect(await net.drainInbound(clock.now())).toEqual([]);
  });

  it('delivers a reply in the chat the message went to', async () => {
    const { net, clock } = makeNetwork();
    clock.advance(HOUR);
    const recipient = { networkUrl: url('maria-garcia-sim-replies-positive') };
    const sent = await net.sendMessage({ account, recipient, text: 'Hi Maria' });
    const decision = replyDecision(recipient.networkUrl, clock.now());
    const events = await net.drainInbound(decision.at!);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'message_received',
        chatId: sent.chatId,
        text: decision.text,
        at: decision.at,
        networkUrl: recipient.networkUrl,
      }),
    ]);
  });

  it('replies once per person even to follow-ups', async () => {
    const { net, clock } = makeNetwork();
    const recipient = { networkUrl: url('omar-khan-sim-replies-question') };
    await net.sendMessage({ account, recipient, text: 'First' });
    clock.advance(2 * DAY);
    await net.sendMessage({ account, recipient, text: 'Follow-up' });
    expect(await net.drainInbound(clock.now() + 10 * DAY)).toHaveLength(1);
  });

  it('keeps chat ids stable per account and recipient, and message ids unique', async () => {
    const { net } = makeNetwork();
    const recipient = { networkUrl: url('ada-lovelace') };
    const a = await net.sendMessage({ account, recipient, text: 'One' });
    const b = await net.sendMessage({
      account,
      recipient: { providerId: (await net.lookupProfile({ account, networkUrl: recipient.networkUrl, depth: 'basic' })).providerId },
      text: 'One',
    });
    const other = await net.sendMessage({ account: { id: 'acc_other', hasSalesNavigator: false }, recipient, text: 'One' });
    const given = await net.sendMessage({ account, recipient, chatId: 'chat_existing', text: 'Two' });
    expect(b.chatId).toBe(a.chatId);
    expect(other.chatId).not.toBe(a.chatId);
    expect(given.chatId).toBe('chat_existing');
    expect(new Set([a.messageId, b.messageId, other.messageId, given.messageId]).size).toBe(4);
  });

  it('gives the same ids for the same sequence of sends under a fake clock', async () => {
    const run = async () => {
      const net = new SimulatedNetwork({ clock: new FakeClock(0) });
      const inv = await net.sendConnectionRequest({ account, networkUrl: url('ada-lovelace'), note: null });
      const msg = await net.sendMessage({ account, recipient: { networkUrl: url('ada-lovelace') }, text: 'Hi' });
      return [inv, msg];
    };
    expect(await run()).toEqual(await run());
  });

  it('lets a durable store carry scheduled responses across a restart', async () => {
    const inbox = new InMemorySimInboxStore();
    const clock = new FakeClock(0);
    await new SimulatedNetwork({ clock, inbox }).sendConnectionRequest({ account, networkUrl: url('zoe-sim-fast-accept'), note: null });
    const restarted = new SimulatedNetwork({ clock, inbox });
    expect(await restarted.drainInbound(DAY)).toHaveLength(1);
  });
});
