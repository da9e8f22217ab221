import type { InboundEvent } from '../../core/network/provider.js';

/**
 * Where the simulator keeps acceptances and replies until they are due. Synchronous because
 * the durable implementation sits on better-sqlite3, which is synchronous.
 *
 * Event ids are deterministic (one acceptance per account and person, one reply likewise), so
 * `schedule` must ignore an id it has ever seen, delivered or not: a re-sent invitation or a
 * follow-up message then cannot produce a second acceptance or reply, even after a restart.
 */
export interface SimInboxStore {
  /** Adds the event; false when its id was scheduled before. */
  schedule(event: InboundEvent): boolean;
  /** Undelivered events with `at <= now`, ordered by `at` then `id` (binary order), at most `limit`. */
  due(now: number, limit: number): InboundEvent[];
  /** Marks events delivered. Unknown ids are ignored. */
  ack(ids: readonly string[]): void;
  /**
   * Adds one to the named counter and returns its new value (1 the first time). Durable like
   * the events, so a count (the messages an account sent a person) survives a restart.
   */
  tally(key: string): number;
}

export class InMemorySimInboxStore implements SimInboxStore {
  private readonly events = new Map<string, { event: InboundEvent; delivered: boolean }>();

  schedule(event: InboundEvent): boolean {
    if (this.events.has(event.id)) return false;
    this.events.set(event.id, { event: { ...event }, delivered: false });
    return true;
  }

  due(now: number, limit: number): InboundEvent[] {
    return [...this.events.values()]
      .filter((e) => !e.delivered && e.event.at <= now)
      .map((e) => e.event)
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, Math.max(0, limit))
      .map((e) => ({ ...e }));
  }

  ack(ids: readonly string[]): void {
    for (const id of ids) {
      const entry = this.events.get(id);
      if (entry) entry.delivered = true;
    }
  }

  private readonly tallies = new Map<string, number>();

  tally(key: string): number {
    const n = (this.tallies.get(key) ?? 0) + 1;
    this.tallies.set(key, n);
    return n;
  }

  /** Events not yet delivered, due or not. */
  pending(): number {
    return [...this.events.values()].filter((e) => !e.delivered).length;
  }
}
