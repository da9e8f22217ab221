import type { Ctx } from '../../core/context.js';
import { resumeLeadImports } from '../../core/imports/background.js';
import { importLeaseMs } from '../../core/imports/csv.js';

/**
 * Resumes dashboard imports that nobody runs: at start, and then every third of the import
 * lease, so an import stranded by a server that died (and came back within the lease) resumes
 * as soon as its mark lapses, without a second restart. The work is core's `resumeLeadImports`;
 * this only keeps the timer.
 */
export class ImportResumer {
  private timer: NodeJS.Timeout | null = null;
  private readonly runs = new Set<Promise<void>>();
  readonly intervalMs: number;

  constructor(
    private readonly ctx: Ctx,
    options: { intervalMs?: number } = {},
  ) {
    this.intervalMs = options.intervalMs ?? Math.max(1_000, Math.floor(importLeaseMs(ctx) / 3));
  }

  start(): void {
    if (this.timer) return;
    const loop = () => {
      this.tick();
      this.timer = setTimeout(loop, this.intervalMs);
      this.timer.unref();
    };
    loop();
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
