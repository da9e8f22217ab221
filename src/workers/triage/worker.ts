import type { Ctx } from '../../core/context.js';
import { triagePendingByModel } from '../../core/triage/suggest.js';

export interface TriageWorkerOptions {
  /** How often it looks for replies waiting for the model (wall ms). */
  pollIntervalMs?: number;
  /** Replies asked about per pass. */
  batch?: number;
}

/**
 * Asks the configured model about replies the rules left open. It only schedules: which replies
 * wait, the lease, the call and what is stored are core's (core/triage/suggest.ts). Started only
 * when a model is configured; without one, nothing calls a model.
 */
export class TriageWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly pollIntervalMs: number;
  private readonly batch: number;

  constructor(
    private readonly ctx: Ctx,
    options: TriageWorkerOptions = {},
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 2_000;
    this.batch = options.batch ?? 20;
  }

  start(): void {
    if (this.timer || this.stopped || !this.ctx.triager) return;
    const tick = () => {
      if (this.running || this.stopped) return;
      this.running = this.pass().finally(() => {
        this.running = null;
      });
    };
    this.timer = setInterval(tick, this.pollIntervalMs);
    this.timer.unref();
  }

  /** One pass: every waiting reply, a batch at a time. */
  async pass(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      try {
        const { suggested, failed } = await triagePendingByModel(this.ctx, this.batch);
        if (suggested + failed < this.batch) return;
      } catch (err) {
        this.ctx.log.warn({ err }, 'triage: a pass failed; trying again at the next');
        return;
      }
    }
  }

  /** Stops polling and waits for the call in flight; an unanswered reply is left to its lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
