import type { Clock } from '../../core/clock.js';
import type { InboxBatch, InboxCursor, InboxReadOptions, MailboxServers, MailPort, OutgoingEmail } from '../../core/network/mail.js';
import { SimulatedMail, type SimMailStore } from './sim.js';
import { SmtpMail } from './smtp.js';

export { MAIL_MARKERS, SimulatedMail, type SimMailStore } from './sim.js';
export { SmtpMail } from './smtp.js';

export interface MailOptions {
  /** The environment the password variables are read from. */
  env: NodeJS.ProcessEnv;
  /** The simulator's memory; without it (production) a simulated mailbox cannot send. */
  sim?: { store: SimMailStore; clock: Clock };
  timeoutMs?: number;
}

/** The server's mail adapter: real servers for SMTP mailboxes, the simulator for simulated ones (development). */
export class Mail implements MailPort {
  private readonly smtp: SmtpMail;
  private readonly sim: SimulatedMail | null;

  constructor(options: MailOptions) {
    this.smtp = new SmtpMail({ env: options.env, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
    this.sim = options.sim ? new SimulatedMail(options.sim.store, options.sim.clock) : null;
  }

  private of(mailbox: MailboxServers): MailPort {
    if (mailbox.kind === 'smtp') return this.smtp;
    if (!this.sim) throw new Error('simulated mailboxes exist in development only');
    return this.sim;
  }

  verifyLogin(mailbox: MailboxServers): Promise<void> {
    return this.of(mailbox).verifyLogin(mailbox);
  }

  send(mailbox: MailboxServers, email: OutgoingEmail): Promise<{ messageId: string }> {
    return this.of(mailbox).send(mailbox, email);
  }

  readSince(mailbox: MailboxServers, cursor: InboxCursor, options: InboxReadOptions, take: (batch: InboxBatch) => void): Promise<void> {
    return this.of(mailbox).readSince(mailbox, cursor, options, take);
  }
}
