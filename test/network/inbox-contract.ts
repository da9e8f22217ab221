import { describe, expect, it } from 'vitest';
import type { InboundEvent } from '../../src/core/network/provider.js';
import type { SimInboxStore } from '../../src/network/sim/index.js';

const accept = (id: string, at: number): InboundEvent => ({
  id,
  type: 'invitation_accepted',
  accountId: 'acc_1',
  networkUrl: 'https://www.linkedin.com/in/ada',
  providerId: 'ACoAAx',
  at,
});
const reply = (id: string, at: number): InboundEvent => ({
  id,
  type: 'message_received',
  accountId: 'acc_1',
  networkUrl: 'https://www.linkedin.com/in/ada',
  providerId: 'ACoAAx',
  chatId: 'chat_1',
  text: 'Hi',
  at,
});

/**
 * The behaviour every SimInboxStore must have. Exported so a durable store (SQLite) runs the
 * same suite: `runSimInboxStoreContract('sqlite', () => new SqliteSimInboxStore(db))`.
 */
export function runSimInboxStoreContract(name: string, make: () => SimInboxStore): void {
  describe(`SimInboxStore contract: ${name}`, () => {
    it('returns due events oldest first, then by id, up to the limit', () => {
      const store = make();
      store.schedule(accept('b', 200));
      store.schedule(reply('c', 100));
      store.schedule(accept('a', 200));
      store.schedule(accept('later', 1000));
      expect(store.due(200, 10).map((e) => e.id)).toEqual(['c', 'a', 'b']);
      expect(store.due(200, 2).map((e) => e.id)).toEqual(['c', 'a']);
      expect(store.due(99, 10)).toEqual([]);
    });

    it('keeps every field of both event types', () => {
      const store = make();
      store.schedule(accept('a', 1));
      store.schedule(reply('r', 2));
      expect(store.due(5, 10)).toEqual([accept('a', 1), reply('r', 2)]);
    });

    it('stops returning acknowledged events and ignores unknown ids', () => {
      const store = make();
      store.schedule(accept('a', 1));
      store.schedule(accept('b', 2));
      store.ack(['a', 'nope']);
      expect(store.due(10, 10).map((e) => e.id)).toEqual(['b']);
    });

    it('never schedules an id twice, even after delivery', () => {
      const store = make();
      expect(store.schedule(accept('a', 5))).toBe(true);
      expect(store.schedule(accept('a', 1))).toBe(false);
      expect(store.due(10, 10)).toEqual([accept('a', 5)]);
      store.ack(['a']);
      expect(store.schedule(accept('a', 7))).toBe(false);
      expect(store.due(10, 10)).toEqual([]);
    });

    it('counts per key, from 1', () => {
      const store = make();
      expect([store.tally('a'), store.tally('a'), store.tally('b'), store.tally('a')]).toEqual([1, 2, 1, 3]);
    });
  });
}
