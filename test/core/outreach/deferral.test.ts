import { describe, expect, it } from 'vitest';
import { deferHeld, deferSends, heldForSender, type HeldCandidate, type PendingSend } from '../../../src/core/outreach/deferral.js';

const send = (leadId: string, kind: PendingSend['kind'], over: Partial<PendingSend> = {}): PendingSend => ({
  leadId,
  kind,
  accountId: 'acc_a',
  due: 100,
  followsSender: true,
  ...over,
});
const booked: number[] = [];
const book = (until: number) => {
  const at = until + 1000 * booked.length;
  booked.push(at);
  return at;
};

describe('deferring sends an account cannot make now', () => {
  it("leaves the leads of the sender's own campaigns due while it is idle; a polite close waits apart", () => {
    const items = [send('a', 'polite_close'), send('b', 'message'), send('c', 'connect', { followsSender: false })];
    expect(deferSends(items, { until: 5000, why: 'idle' }, 60, book)).toEqual({
      moves: [{ leadId: 'c', from: 100, to: 5000 + 2 * 60 }],
      closes: [{ leadId: 'a', at: 5000 }],
    });
  });

  it('queues held sends behind the wait at the average spacing, and books capped invitations', () => {
    booked.length = 0;
    const items = [send('a', 'message', { due: 1 }), send('b', 'connect', { due: null }), send('c', 'connect')];
    expect(deferSends(items, { until: 9000, why: 'capped' }, 60, book).moves).toEqual([
      { leadId: 'a', from: 1, to: 9000 },
      { leadId: 'b', from: null, to: 9000 },
      { leadId: 'c', from: 100, to: 10_000 },
    ]);
    expect(deferSends(items, { until: 9000, why: 'blocked' }, 60, book).moves.map((m) => m.to)).toEqual([9000, 9060, 9120]);
    expect(deferSends(items, { until: 9000, why: 'unavailable' }, 60, book).moves.map((m) => m.to)).toEqual([9000, 9060, 9120]);
  });
});

describe('holding a lead whose sender cannot send it this tick', () => {
  const plain: HeldCandidate = { accountId: 'acc_b', excluded: false, replied: false, politeClosePendingAt: null, pendingReplyText: null, agentSendKind: null };
  const busy = (ids: string[]) => (accountId: string) => ids.includes(accountId);
  const senders = (senderIds: string[], readsEmail = false) => ({ senderIds, readsEmail });

  it('holds a plain-path lead of a campaign with several senders when its own sender is busy', () => {
    expect(heldForSender(senders(['acc_a', 'acc_b']), plain, busy(['acc_b']))).toBe('acc_b');
    // Its sender free: worked now, whoever else is busy.
    expect(heldForSender(senders(['acc_a', 'acc_b']), plain, busy(['acc_a']))).toBeNull();
  });

  it('works it now with one sender, without a sender yet, or with a sender the campaign no longer has', () => {
    expect(heldForSender(senders(['acc_b']), plain, busy(['acc_b']))).toBeNull();
    expect(heldForSender(senders([]), plain, busy(['acc_b']))).toBeNull();
    expect(heldForSender(senders(['acc_a', 'acc_b']), { ...plain, accountId: null }, busy(['acc_a', 'acc_b']))).toBeNull();
    expect(heldForSender(senders(['acc_a', 'acc_c']), plain, busy(['acc_a', 'acc_b', 'acc_c']))).toBeNull();
  });

  it('works every lead of a campaign whose steps read email: its next step may go from a mailbox', () => {
    expect(heldForSender(senders(['acc_a', 'acc_b'], true), plain, busy(['acc_a', 'acc_b']))).toBeNull();
  });

  it('works a reply, a close, an agent answer or an exclusion as it comes', () => {
    const all = busy(['acc_a', 'acc_b']);
    for (const over of [
      { excluded: true },
      { replied: true },
      { politeClosePendingAt: 5 },
      { pendingReplyText: 'Tell me more' },
      { agentSendKind: 'reply' },
    ] satisfies Partial<HeldCandidate>[])
      expect(heldForSender(senders(['acc_a', 'acc_b']), { ...plain, ...over }, all), JSON.stringify(over)).toBeNull();
  });

  it('puts held leads behind the wait at the average spacing, each moved only from the due time it was read with', () => {
    const leads = [
      { leadId: 'a', due: 100 },
      { leadId: 'b', due: null },
      { leadId: 'c', due: 7 },
    ];
    expect(deferHeld(leads, 9000, 0, 60)).toEqual({
      moves: [
        { leadId: 'a', from: 100, to: 9000 },
        { leadId: 'b', from: null, to: 9060 },
        { leadId: 'c', from: 7, to: 9120 },
      ],
      end: 9180,
    });
    expect(deferHeld([], 9000, 0, 60)).toEqual({ moves: [], end: 9000 });
  });

  it('queues them behind the leads held for the sender before, so a backlog comes due at its pace', () => {
    const first = deferHeld([{ leadId: 'a', due: 1 }], 9000, 0, 60);
    // The next tick holds two more for the same sender, whose next send is still 9000.
    const second = deferHeld(
      [
        { leadId: 'b', due: 2 },
        { leadId: 'c', due: 3 },
      ],
      9000,
      first.end,
      60,
    );
    expect(second.moves.map((m) => m.to)).toEqual([9060, 9120]);
    expect(second.end).toBe(9180);
    // A queue that ended before the sender's next send no longer holds anyone back.
    expect(deferHeld([{ leadId: 'd', due: 4 }], 20_000, second.end, 60).moves[0]?.to).toBe(20_000);
  });
});
