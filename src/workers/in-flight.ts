import type PQueue from 'p-queue';

/**
 * What a leased-outbox worker (webhook deliveries, CRM pushes) has claimed and not finished: the
 * claimed ids, which its next round passes to the claim so they are not claimed twice, and the
 * promises that `stop()` and `drain()` wait for.
 */
export class InFlight {
  readonly ids = new Set<string>();
  private readonly pending = new Set<Promise<void>>();

  /** Runs `work` on `queue` for the claimed `id`; `settled` runs once it is over, however it ended. */
  start(queue: PQueue, id: string, work: () => Promise<void>, settled: () => void): void {
    this.ids.add(id);
    const done: Promise<void> = queue
      .add(work)
      .then(() => undefined)
      .finally(() => {
        this.ids.delete(id);
        this.pending.delete(done);
        settled();
      });
    this.pending.add(done);
  }

  /** Resolves when nothing is in flight. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
