import type { Db } from '../../db/connection.js';
import { eachInOneTransaction } from '../../db/tx.js';

interface Step {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Write steps of concurrent work, committed together. `run(fn)` queues `fn`; on the next turn
 * of the event loop every queued step runs in one transaction, which then commits, and each
 * caller's promise settles with its step's result. If any step throws, the whole group is
 * rolled back and every step runs again alone, so a step's error reaches its caller only and
 * the others still commit. A step must therefore only write to the database: it may run twice.
 *
 * A caller that awaits its step, as it awaited a transaction of its own, reads committed state
 * afterwards, so grouping changes what a commit costs, not what anyone sees. The outreach engine
 * groups the steps of the sends it has in flight at once: two commits a send were a quarter of
 * its time at 200 accounts, most of it writing the same pages (the intent and activity tails,
 * the counters, the due index) again and again.
 */
export class CommitGroup {
  private steps: Step[] = [];
  private scheduled = false;

  constructor(private readonly db: Db) {}

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.steps.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const steps = this.steps;
    this.steps = [];
    eachInOneTransaction(
      this.db,
      steps.map((step) => step.fn),
    ).forEach((outcome, i) => {
      const step = steps[i]!;
      if (outcome.ok) step.resolve(outcome.value);
      else step.reject(outcome.err);
    });
  }
}
