import type { Ctx } from '../../core/context.js';
import { mailboxesToRead, readMailbox, type InboxReadResult } from '../../core/email/inbox.js';
import type { EngineSettings } from '../../core/outreach/settings.js';

/** The shortest wait between two rounds, in real time, whatever the simulated clock's speed. */
const MIN_ROUND_MS = 1_000;

/**
 * Reads every mailbox's inbox on a timer, one mailbox after another, so replies end sequences
 * and bounces exclude addresses. It only schedules: what a message means and what is recorded
 * is core's `readMailbox`. A mailbox that fails is logged and tried again on the next round.
 *
 * A real mailbox is read every `intervalMs` of real time (a minute). A simulated one lives on the
 * simulated clock, as the engine does: it is read every `intervalMs` of simulated time (at least
 * a second apart in real time), so at `--sim-speed 360` a bounce due a simulated minute after its
 * email is seen within a few simulated minutes, not six simulated hours later.
 */
export class MailPoller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  readonly intervalMs: number;
  /** Between two rounds, in real time: `intervalMs` of simulated time. */
  readonly roundMs: number;
  private realReadAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: Ctx,
    private readonly settings: EngineSettings,
    options: { intervalMs?: number; simSpeed?: number } = {},
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
    const speed = options.simSpeed ?? 1;
    this.roundMs = Math.min(this.intervalMs, Math.max(MIN_ROUND_MS, Math.round(this.intervalMs / speed)));
  }

  start(): void {
    if (this.timer || this.stopped) return;
    const loop = () => {
      this.running = this.tick()
        .then(() => undefined)
        .finally(() => {
          this.running = null;
          if (!this.stopped) {
            this.timer = setTimeout(loop, this.roundMs);
            this.timer.unref();
          }
        });
    };
    this.timer = setTimeout(loop, 0);
    this.timer.unref();
  }

  /** One pass over every mailbox; returns what each read found. */
  round(): Promise<Map<string, InboxReadResult>> {
    return this.readAll(true);
  }

  /** One round as the timer runs it: the simulated mailboxes, and the real ones when their minute has passed. */
  tick(): Promise<Map<string, InboxReadResult>> {
    return this.readAll();
  }

  /** The simulated mailboxes every round; the real ones once `intervalMs` of real time has passed (or when `everyMailbox`). */
  private async readAll(everyMailbox = false): Promise<Map<string, InboxReadResult>> {
    const out = new Map<string, InboxReadResult>();
    let mailboxes: { id: string; simulated: boolean }[];
    try {
      mailboxes = mailboxesToRead(this.ctx);
    } catch (err) {
      this.ctx.log.error({ err }, 'mailboxes could not be listed; will retry');
      return out;
    }
    const now = this.ctx.clock.now();
    const realDue = everyMailbox || now - this.realReadAt >= this.intervalMs - MIN_ROUND_MS / 2;
    if (realDue) this.realReadAt = now;
    const ids = mailboxes.filter((m) => m.simulated || realDue).map((m) => m.id);
    for (const id of ids) {
      if (this.stopped) break;
      try {
        out.set(id, await readMailbox(this.ctx, id, this.settings));
      } catch (err) {
        this.ctx.log.warn({ err, mailbox: id }, 'mailbox inbox could not be read; will retry');
      }
    }
    return out;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
