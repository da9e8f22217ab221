import type { Ctx } from '../../core/context.js';
import { resumeLeadImports } from '../../core/imports/background.js';
import { importLeaseMs } from '../../core/imports/csv.js';
import { Repeat } from '../repeat.js';

/**
 * Resumes dashboard imports that nobody runs: at start, and then every third of the import
 * lease, so an import stranded by a server that died (and came back within the lease) resumes
 * as soon as its mark lapses, without a second restart. The work is core's `resumeLeadImports`;
 * this only keeps the timer.
 */
export class ImportResumer {
  private readonly repeat: Repeat;
  private readonly runs = new Set<Promise<void>>();
  readonly intervalMs: number;

  constructor(
    private readonly ctx: Ctx,
    options: { intervalMs?: number } = {},
  ) {
    this.intervalMs = options.intervalMs ?? Math.max(1_000, Math.floor(importLeaseMs(ctx) / 3));
    this.repeat = new Repeat(this.intervalMs, () => void this.tick());
  }

  start(): void {
    this.repeat.start();
  }

  /** One look for stranded imports; returns the runs it started. */
  tick(): Promise<void>[] {
    let started: Promise<void>[];
    try {
      started = resumeLeadImports(this.ctx);
    } catch (err) {
      this.ctx.log.error({ err }, 'stranded imports could not be looked up; will retry');
      return [];
    }
    for (const run of started) {
      this.runs.add(run);
      void run.finally(() => this.runs.delete(run));
    }
    return started;
  }

  /** Stops looking. Runs in progress stop when the database closes and resume on the next start. */
  stop(): void {
    this.repeat.stop();
  }
}
