import type MimeNode from 'nodemailer/lib/mime-node';
import type { Clock } from '../../core/clock.js';
import {
  MailLoginError,
  type InboxBatch,
  type InboxCursor,
  type InboxReadOptions,
  type MailboxServers,
  type MailPort,
  type OutgoingEmail,
} from '../../core/network/mail.js';
import { messageOf } from './compose.js';

/**
 * The simulated mail server's memory, which core keeps in SQLite: what it has delivered to each
 * simulated mailbox (readable from a time on) and how many emails went to each address.
 */
export interface SimMailStore {
  deliver(mailboxId: string, visibleAt: number, raw: string): void;
  /** Messages delivered to the mailbox after `afterUid` and readable at `now`, oldest first. */
  since(mailboxId: string, afterUid: number, now: number, limit: number): { uid: number; raw: string }[];
  /** Counts one more email to `key` and returns the new count (1 for the first). */
  tally(key: string): number;
}

/** Markers in a recipient's local part (docs/simulated-network.md lists them). */
export const MAIL_MARKERS = {
  bounces: 'sim-bounces',
  repliesAfter: 'sim-replies-after-',
  unsubscribes: 'sim-unsubscribes',
  /** In a simulated mailbox's own address: its login is refused. */
  loginFails: 'sim-login-fails',
} as const;

const REPLIES_AFTER = /sim-replies-after-(\d{1,2})(?!\d)/;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const localPart = (address: string): string => address.slice(0, address.lastIndexOf('@')).toLowerCase();

/** N of `sim-replies-after-N` in the address's local part (1 or more), or null. */
export function repliesAfterEmail(address: string): number | null {
  const m = REPLIES_AFTER.exec(localPart(address));
  return m && Number(m[1]) >= 1 ? Number(m[1]) : null;
}

const build = (node: MimeNode): Promise<string> => node.build().then((b) => b.toString('utf8'));

/*
 * nodemailer's MIME builder and mailparser are loaded when the simulator first writes or reads a
 * message, not when the server starts: with the SMTP adapter's imapflow they are about half of
 * the program's code, and a server whose mailboxes get no answer never needs them.
 */
const composer = async () => (await import('nodemailer/lib/mail-composer')).default;
const mimeNode = async () => (await import('nodemailer/lib/mime-node')).default;
const parser = async () => (await import('./parse.js')).parseInbound;

/** Loads the simulator's MIME builder and parser now: a run that must not wait for them in the middle of a tick (the scale bench) calls it first. */
export async function loadSimMail(): Promise<void> {
  await Promise.all([composer(), mimeNode(), parser()]);
}

/**
 * The simulated mail server of development: every send is accepted, and what the recipient's
 * markers say comes back into the sender's inbox as real messages (composed by nodemailer, read
 * back by mailparser like any other): a delivery-status report a minute later for
 * `sim-bounces`, a reply an hour after the Nth email for `sim-replies-after-N`, and a one-click
 * unsubscribe half an hour later for `sim-unsubscribes`. Everything is decided by the address
 * and the count of emails to it, so a run is the same every time.
 *
 * It takes the email as the port hands it, fields and headers, as the simulated network takes a
 * call's fields and builds no HTTP request: composing MIME is the SMTP adapter's work
 * (nodemailer's). The simulator composes a message only when one of its answers needs the
 * bytes: the reply and the unsubscribe it writes, and the bounce report that returns the email.
 */
export class SimulatedMail implements MailPort {
  constructor(
    private readonly store: SimMailStore,
    private readonly clock: Clock,
  ) {}

  async verifyLogin(mailbox: MailboxServers): Promise<void> {
    if (localPart(mailbox.address).includes(MAIL_MARKERS.loginFails))
      throw new MailLoginError('smtp', 'sim', '535 5.7.8 Authentication credentials invalid (simulated)');
  }

  async send(mailbox: MailboxServers, email: OutgoingEmail): Promise<{ messageId: string }> {
    await this.verifyLogin(mailbox);
    const now = this.clock.now();
    const local = localPart(email.to);
    // The emails to an address are counted (durably) only for `sim-replies-after-<N>`, the one
    // answer that reads the count: an address without it is never answered by its count.
    const repliesAfter = repliesAfterEmail(email.to);
    const count = repliesAfter === null ? null : this.store.tally(`mail:${mailbox.id}:${email.to.toLowerCase()}`);
    if (local.includes(MAIL_MARKERS.bounces)) {
      // The one answer that carries the message itself: the report returns it, as a receiving
      // server returns what it could not deliver. Composed here, as a real SMTP client would
      // have composed it; an email that nobody answers with its own bytes is never composed.
      const MailComposer = await composer();
      const sent = await build(new MailComposer({ ...messageOf(mailbox, email), date: new Date(now) }).compile());
      this.store.deliver(mailbox.id, now + MINUTE, await this.bounce(mailbox, email, sent, now + MINUTE));
      return { messageId: email.messageId };
    }
    if (local.includes(MAIL_MARKERS.unsubscribes)) {
      this.store.deliver(
        mailbox.id,
        now + 30 * MINUTE,
        await this.answer(mailbox, email, 'Please take me off your list.', now + 30 * MINUTE, { 'X-Outreach-Sim': 'unsubscribe' }),
      );
    }
    if (count !== null && count === repliesAfter) {
      this.store.deliver(mailbox.id, now + HOUR, await this.answer(mailbox, email, 'Thanks for writing. Could we talk next week?', now + HOUR, {}));
    }
    return { messageId: email.messageId };
  }

  async readSince(mailbox: MailboxServers, cursor: InboxCursor, options: InboxReadOptions, take: (batch: InboxBatch) => void): Promise<void> {
    const uidValidity = 'sim';
    let after = cursor.uidValidity === uidValidity ? cursor.lastUid : 0;
    // The parser is loaded once, for the first message there is to read.
    let parse: Awaited<ReturnType<typeof parser>> | null = null;
    for (let n = 0; n < options.batches; n++) {
      const rows = this.store.since(mailbox.id, after, options.now, options.batch);
      const messages = [];
      for (const row of rows) {
        parse ??= await parser();
        messages.push(await parse(row.uid, row.raw));
      }
      // The simulated inbox is in memory and small: every message is parsed, whatever `wanted` would say.
      after = rows.at(-1)?.uid ?? after;
      take({ messages, cursor: { uidValidity, lastUid: after }, skipped: 0 });
      if (rows.length < options.batch) return;
    }
  }

  private async answer(mailbox: MailboxServers, email: OutgoingEmail, text: string, at: number, headers: Record<string, string>): Promise<string> {
    const domain = email.to.slice(email.to.lastIndexOf('@') + 1);
    const MailComposer = await composer();
    return build(
      new MailComposer({
        from: email.to,
        to: mailbox.address,
        subject: `Re: ${email.subject}`,
        text: `${text}\n\n> ${email.text.split('\n').join('\n> ')}`,
        inReplyTo: email.messageId,
        references: [email.messageId],
        messageId: `<sim-${at}-${Math.abs(hashOf(email.messageId))}@${domain}>`,
        date: new Date(at),
        headers,
      }).compile(),
    );
  }

  /** A delivery-status report as a receiving server would write it (RFC 3464), built with nodemailer's MIME nodes. */
  private async bounce(mailbox: MailboxServers, email: OutgoingEmail, original: string, at: number): Promise<string> {
    const domain = email.to.slice(email.to.lastIndexOf('@') + 1);
    const MimeNode = await mimeNode();
    const root = new MimeNode('multipart/report; report-type=delivery-status');
    root.setHeader({
      from: `Mail Delivery System <MAILER-DAEMON@${domain}>`,
      to: mailbox.address,
      subject: 'Undelivered Mail Returned to Sender',
      date: new Date(at).toUTCString(),
      'message-id': `<sim-dsn-${at}-${Math.abs(hashOf(email.messageId))}@${domain}>`,
    });
    root.createChild('text/plain').setContent(`Your message to <${email.to}> could not be delivered: the mailbox does not exist.`);
    root
      .createChild('message/delivery-status')
      .setContent(
        `Reporting-MTA: dns; mx.${domain}\r\n\r\nFinal-Recipient: rfc822; ${email.to}\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 <${email.to}>: Recipient address rejected: User unknown\r\n`,
      );
    root.createChild('message/rfc822').setContent(original);
    return build(root);
  }
}

function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}
