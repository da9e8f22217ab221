import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import {
  MailLoginError,
  MailRejectedError,
  type InboundEmail,
  type InboxBatch,
  type InboxCursor,
  type InboxReadOptions,
  type MailboxServers,
  type MailPort,
  type OutgoingEmail,
} from '../../core/network/mail.js';
import { messageOf } from './compose.js';
import { parseInbound } from './parse.js';

export interface SmtpMailOptions {
  /** Where the passwords are read from: the environment variables each mailbox names. */
  env: NodeJS.ProcessEnv;
  /** How long a connection, a greeting or a silent socket may take before the call fails (default 30 s). */
  timeoutMs?: number;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/i;

/**
 * The real mail adapter: nodemailer sends over SMTP, imapflow reads the inbox over IMAP and
 * mailparser parses what it reads. A connection lives for one call: a mailbox sends a few
 * dozen messages a day, and a pooled connection would hold a login open for nothing.
 */
export class SmtpMail implements MailPort {
  private readonly timeoutMs: number;

  constructor(private readonly options: SmtpMailOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  private password(server: 'smtp' | 'imap', host: string, variable: string): string {
    const value = this.options.env[variable];
    if (value === undefined || value === '')
      throw new MailLoginError(server, host, `the environment variable ${variable} that holds the ${server.toUpperCase()} password is not set`);
    return value;
  }

  private transport(mailbox: MailboxServers) {
    const smtp = mailbox.smtp;
    if (!smtp) throw new Error(`mailbox ${mailbox.id} has no SMTP server`);
    return nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      // Off loopback, a plain port must upgrade with STARTTLS: a password never crosses the network in clear.
      requireTLS: !smtp.secure && !LOOPBACK.test(smtp.host),
      auth: { user: smtp.user, pass: this.password('smtp', smtp.host, smtp.passwordEnv) },
      connectionTimeout: this.timeoutMs,
      greetingTimeout: this.timeoutMs,
      socketTimeout: this.timeoutMs,
      logger: false,
      debug: false,
    });
  }

  private imap(mailbox: MailboxServers): ImapFlow {
    const imap = mailbox.imap;
    if (!imap) throw new Error(`mailbox ${mailbox.id} has no IMAP server`);
    return new ImapFlow({
      host: imap.host,
      port: imap.port,
      secure: imap.secure,
      doSTARTTLS: imap.secure ? undefined : LOOPBACK.test(imap.host) ? undefined : true,
      auth: { user: imap.user, pass: this.password('imap', imap.host, imap.passwordEnv) },
      logger: false,
      connectionTimeout: this.timeoutMs,
      greetingTimeout: this.timeoutMs,
      socketTimeout: this.timeoutMs,
      disableAutoIdle: true,
    });
  }

  async verifyLogin(mailbox: MailboxServers): Promise<void> {
    const smtp = mailbox.smtp;
    if (smtp) {
      const transport = this.transport(mailbox);
      try {
        await transport.verify();
      } catch (err) {
        // Only a refused login is the mailbox's fault; a timeout or a closed port is the server's state.
        if ((err as { code?: string }).code === 'EAUTH' || err instanceof MailLoginError) throw new MailLoginError('smtp', smtp.host, describe(err));
        throw err;
      } finally {
        transport.close();
      }
    }
    const imap = mailbox.imap;
    if (imap) {
      const client = this.imap(mailbox);
      try {
        await client.connect();
      } catch (err) {
        if ((err as { authenticationFailed?: boolean }).authenticationFailed) throw new MailLoginError('imap', imap.host, describe(err));
        throw err;
      } finally {
        await closeQuietly(client);
      }
    }
  }

  async send(mailbox: MailboxServers, email: OutgoingEmail): Promise<{ messageId: string }> {
    const smtp = mailbox.smtp;
    if (!smtp) throw new Error(`mailbox ${mailbox.id} has no SMTP server`);
    const transport = this.transport(mailbox);
    try {
      const info = await transport.sendMail(messageOf(mailbox, email));
      return { messageId: info.messageId || email.messageId };
    } catch (err) {
      const e = err as { code?: string; responseCode?: number };
      if (e.code === 'EAUTH') throw new MailLoginError('smtp', smtp.host, describe(err));
      if (typeof e.responseCode === 'number' && e.responseCode >= 500 && e.code === 'EENVELOPE') throw new MailRejectedError(describe(err));
      throw err;
    } finally {
      transport.close();
    }
  }

  async readSince(mailbox: MailboxServers, cursor: InboxCursor, options: InboxReadOptions, take: (batch: InboxBatch) => void): Promise<void> {
    const imap = mailbox.imap;
    if (!imap) return take({ messages: [], cursor, skipped: 0 });
    // One connection and login for the whole call, however many batches a backlog takes.
    const client = this.imap(mailbox);
    try {
      await client.connect();
    } catch (err) {
      await closeQuietly(client);
      if ((err as { authenticationFailed?: boolean }).authenticationFailed) throw new MailLoginError('imap', imap.host, describe(err));
      throw err;
    }
    try {
      const box = await client.mailboxOpen('INBOX', { readOnly: true });
      const uidValidity = box.uidValidity.toString();
      const from = uidValidity === cursor.uidValidity ? cursor.lastUid + 1 : 1;
      if (box.exists === 0 || from >= box.uidNext) return take({ messages: [], cursor: { uidValidity, lastUid: from - 1 }, skipped: 0 });
      // What arrives while this call reads is left to the next call: the UIDs end where they ended at SELECT.
      const end = box.uidNext - 1;
      const rangeFrom = (first: number) => ({ first, last: Math.min(end, first + options.batch - 1) });
      let range = rangeFrom(from);
      let pending = this.select(client, range, options.wanted);
      for (let n = 0; ; n++) {
        const { uids, skipped } = await pending;
        const sources = uids === '' ? [] : await client.fetchAll(uids, { uid: true, source: true }, { uid: true });
        const more = n + 1 < options.batches && range.last < end;
        const current = range;
        // The next batch's headers are asked for while this batch is parsed (one command at a
        // time on the connection; mailparser's work overlaps the server's).
        if (more) {
          range = rangeFrom(current.last + 1);
          pending = this.select(client, range, options.wanted);
          // Awaited on the next turn; if this turn fails first, the connection closes and its
          // failure has nobody left to tell.
          pending.catch(() => undefined);
        }
        const messages: InboundEmail[] = [];
        for (const m of sources.sort((a, b) => a.uid - b.uid)) if (m.source) messages.push(await parseInbound(m.uid, m.source));
        take({ messages, cursor: { uidValidity, lastUid: current.last }, skipped });
        if (!more) break;
      }
    } finally {
      await closeQuietly(client);
    }
  }

  /**
   * Which UIDs of a batch to fetch in full: with `wanted`, the server's own parse of each
   * message (ENVELOPE, BODYSTRUCTURE) and its References line first, since most of an inbox
   * answers nothing we sent and needs no download or parse; without it, the whole range.
   */
  private async select(
    client: ImapFlow,
    range: { first: number; last: number },
    wanted: InboxReadOptions['wanted'],
  ): Promise<{ uids: string; skipped: number }> {
    const uids = `${range.first}:${range.last}`;
    if (!wanted) return { uids, skipped: 0 };
    const heads = await client.fetchAll(uids, { uid: true, envelope: true, bodyStructure: true, headers: ['references'] }, { uid: true });
    const keep = heads.filter((m) =>
      wanted({
        inReplyTo: m.envelope?.inReplyTo?.trim() || null,
        references: messageIdsIn(m.headers),
        report: m.bodyStructure?.type?.toLowerCase() === 'multipart/report',
      }),
    );
    return { uids: keep.map((m) => m.uid).join(','), skipped: heads.length - keep.length };
  }
}

/** The message ids (`<…>`) a fetched header block names: a References line is a list of them. */
function messageIdsIn(headers: Buffer | undefined): string[] {
  if (!headers) return [];
  return headers.toString('utf8').match(/<[^<>\s]+>/g) ?? [];
}

async function closeQuietly(client: ImapFlow): Promise<void> {
  try {
    if (client.usable) await client.logout();
    else client.close();
  } catch {
    client.close();
  }
}

/** The server's words, without anything a password could hide in: nodemailer and imapflow put none in their messages. */
function describe(err: unknown): string {
  const e = err as { response?: string; responseText?: string; message?: string };
  return (e.responseText ?? e.response ?? e.message ?? String(err)).replace(/\s+/g, ' ').trim().slice(0, 300);
}
