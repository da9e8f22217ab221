import { describe, expect, it } from 'vitest';
import { deferSends, type PendingSend } from '../../../src/core/outreach/deferral.js';

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
