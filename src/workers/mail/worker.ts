import type { Ctx } from '../../core/context.js';
import { mailboxesToRead, readMailbox, type InboxReadResult } from '../../core/email/inbox.js';
import type { EngineSettings } from '../../core/outreach/settings.js';

/**
 * Reads every mailbox's inbox on a timer, one mailbox after another, so replies end sequences
 * and bounces exclude addresses. It only schedules: what a message means and what is recorded
 * is core's `readMailbox`. A mailbox that fails is logged and tried again on the next round.
 */
export class MailPoller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  readonly intervalMs: number;

  constructor(
    private readonly ctx: Ctx,
    private readonly settings: EngineSettings,
    options: { intervalMs?: number } = {},
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    const loop = () => {
      this.running = this.readAll()
        .then(() => undefined)
        .finally(() => {
          this.running = null;
          if (!this.stopped) {
            this.timer = setTimeout(loop, this.intervalMs);
            this.timer.unref();
          }
        });
    };
    this.timer = setTimeout(loop, 0);
    this.timer.unref();
  }

  /** One pass over every mailbox; returns what each read found. */
  round(): Promise<Map<string, InboxReadResult>> {
    return this.readAll();
  }

  private async readAll(): Promise<Map<string, InboxReadResult>> {
    const out = new Map<string, InboxReadResult>();
    let ids: string[];
    try {
      ids = mailboxesToRead(this.ctx);
    } catch (err) {
      this.ctx.log.error({ err }, 'mailboxes could not be listed; will retry');
      return out;
    }
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
