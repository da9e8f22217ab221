import type { Clock } from '../../core/clock.js';
import type { InboxBatch, InboxCursor, InboxReadOptions, MailboxServers, MailPort, OutgoingEmail } from '../../core/network/mail.js';
import { SimulatedMail, type SimMailStore } from './sim.js';

export { MAIL_MARKERS, SimulatedMail, type SimMailStore } from './sim.js';

export interface MailOptions {
  /** The environment the password variables are read from. */
  env: NodeJS.ProcessEnv;
  /** The simulator's memory; without it (production) a simulated mailbox cannot send. */
  sim?: { store: SimMailStore; clock: Clock };
  timeoutMs?: number;
}

/**
 * The server's mail adapter: real servers for SMTP mailboxes, the simulator for simulated ones
 * (development). The SMTP adapter (imapflow and nodemailer's transport; mailparser with the
 * simulator's codecs, see sim.ts) is loaded on an SMTP mailbox's first use, not when the server starts.
 */
export class Mail implements MailPort {
  private smtp: Promise<MailPort> | null = null;
  private readonly sim: SimulatedMail | null;

  constructor(private readonly options: MailOptions) {
    this.sim = options.sim ? new SimulatedMail(options.sim.store, options.sim.clock) : null;
  }

  private smtpMail(): Promise<MailPort> {
    const { env, timeoutMs } = this.options;
    this.smtp ??= import('./smtp.js').then(
      ({ SmtpMail }) => new SmtpMail({ env, ...(timeoutMs !== undefined ? { timeoutMs } : {}) }),
      (err: unknown) => {
        // Tried again on the next use.
        this.smtp = null;
        throw err;
      },
    );
    return this.smtp;
  }

  private async of(mailbox: MailboxServers): Promise<MailPort> {
    if (mailbox.kind === 'smtp') return this.smtpMail();
    if (!this.sim) throw new Error('simulated mailboxes exist in development only');
    return this.sim;
  }

  async verifyLogin(mailbox: MailboxServers): Promise<void> {
    return (await this.of(mailbox)).verifyLogin(mailbox);
  }

  async send(mailbox: MailboxServers, email: OutgoingEmail): Promise<{ messageId: string }> {
    return (await this.of(mailbox)).send(mailbox, email);
  }

  async readSince(mailbox: MailboxServers, cursor: InboxCursor, options: InboxReadOptions, take: (batch: InboxBatch) => void): Promise<void> {
    return (await this.of(mailbox)).readSince(mailbox, cursor, options, take);
  }
}
