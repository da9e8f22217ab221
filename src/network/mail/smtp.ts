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
import { headerFields, isPlainTextBody, messageIdsIn, parseInbound, plainTextInbound } from './parse.js';

export interface SmtpMailOptions {
  /** Where the passwords are read from: the environment variables each mailbox names. */
  env: NodeJS.ProcessEnv;
  /** How long a connection, a greeting or a silent socket may take before the call fails (default 30 s). */
  timeoutMs?: number;
}

/** What select found in a span, each list oldest first: the UIDs to fetch, and those left alone. */
interface Selected {
  uids: number[];
  skipped: number[];
}

/** Batches of UIDs one FETCH asks for at most (each batch is still handed over on its own). */
const BATCHES_PER_COMMAND = 10;

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/i;

/**
 * The real mail adapter: nodemailer sends over SMTP, imapflow reads the inbox over IMAP and
 * mailparser parses what it reads, but for a plain-text reply, whose text is its one body part
 * as the server decodes it (see fetchWanted). A connection lives for one call: a mailbox sends
 * a few dozen messages a day, and a pooled connection would hold a login open for nothing.
 */
export class SmtpMail implements MailPort {
  private readonly timeoutMs: number;

  constructor(private readonly options: SmtpMailOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  private password(server: 'smtp' | 'imap', host: string, variable: string): string {
    const value = this.options.env[variable];
    if (value === undefined || value === '')
      throw new MailLoginError(server, host, `the environment variable ${variable} that holds the ${server.toUpperCase()} password is not set`, variable);
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
      const last = Math.min(box.uidNext - 1, from + options.batch * options.batches - 1);
      // Each command asks for several batches' worth of UIDs (a command is a round trip the
      // connection waits on, one at a time); each batch is still handed over, and so committed,
      // on its own, oldest first.
      const span = options.batch * Math.max(1, Math.min(options.batches, BATCHES_PER_COMMAND));
      const spans: { first: number; last: number }[] = [];
      for (let first = from; first <= last; first += span) spans.push({ first, last: Math.min(last, first + span - 1) });
      // The commands go out in the order S0 S1 W0 S2 W1 S3 W2 …, where S is a span's header
      // lines and W the wanted messages of a span: while a span is parsed and recorded, the
      // server is already answering the next two commands (one command at a time on the
      // connection), and no command waits on one that is not yet asked.
      const quiet = <T>(p: Promise<T>): Promise<T> => {
        // Awaited later; if the read fails first, the connection closes and its failure has
        // nobody left to tell.
        p.catch(() => undefined);
        return p;
      };
      const select = (i: number) => quiet(this.select(client, spans[i]!, options));
      const fetchWanted = (selected: Promise<Selected>) =>
        quiet(selected.then(async ({ uids, skipped }) => ({ skipped, fetched: uids.length === 0 ? [] : await this.fetchWanted(client, uids) })));
      const selects = [select(0), ...(spans.length > 1 ? [select(1)] : [])];
      let wanted = fetchWanted(selects[0]!);
      for (let i = 0; i < spans.length; i++) {
        const current = spans[i]!;
        const { skipped, fetched } = await wanted;
        if (i + 2 < spans.length) selects.push(select(i + 2));
        if (i + 1 < spans.length) wanted = fetchWanted(selects[i + 1]!);
        const messages: InboundEmail[] = [];
        for (const m of fetched) messages.push(m.message ?? (await parseInbound(m.uid, m.source)));
        let at = 0;
        let skippedAt = 0;
        for (let first = current.first; first <= current.last; first += options.batch) {
          const upTo = Math.min(current.last, first + options.batch - 1);
          const batch: InboundEmail[] = [];
          while (at < messages.length && messages[at]!.uid <= upTo) batch.push(messages[at++]!);
          const skippedFrom = skippedAt;
          while (skippedAt < skipped.length && skipped[skippedAt]! <= upTo) skippedAt++;
          take({ messages: batch, cursor: { uidValidity, lastUid: upTo }, skipped: skippedAt - skippedFrom });
        }
      }
    } finally {
      await closeQuietly(client);
    }
  }

  /**
   * Which UIDs of a batch to fetch: with `wanted`, only those it answers true for, judged on
   * the In-Reply-To, References and Content-Type lines alone (most of an inbox answers nothing
   * we sent and needs nothing more than those three lines); without it, the whole range. With
   * `ourMessageIds`, the server first searches the range for the messages whose In-Reply-To or
   * References contain it or that are delivery reports, and only those are read and asked.
   */
  private async select(client: ImapFlow, range: { first: number; last: number }, options: InboxReadOptions): Promise<Selected> {
    const all = `${range.first}:${range.last}`;
    const { wanted, ourMessageIds } = options;
    const uids: number[] = [];
    const skipped: number[] = [];
    // Oldest first, as batches are cut and handed over (a server answers in any order).
    const oldestFirst = (a: number, b: number) => a - b;
    if (!wanted) {
      for (const m of await client.fetchAll(all, { uid: true }, { uid: true })) uids.push(m.uid);
      return { uids: uids.sort(oldestFirst), skipped };
    }
    // The server picks the few messages that can answer us (IMAP SEARCH HEADER is a substring
    // match): only those have their header lines read here; the rest are counted, never read.
    let present: number[] | null = null;
    let candidates = all;
    if (ourMessageIds) {
      const [inRange, picked] = await Promise.all([
        client.search({ uid: all }, { uid: true }),
        client.search(
          {
            uid: all,
            or: [{ header: { 'in-reply-to': ourMessageIds } }, { header: { references: ourMessageIds } }, { header: { 'content-type': 'multipart/report' } }],
          },
          { uid: true },
        ),
      ]);
      // A server that refuses either search is read the long way: every message's header lines.
      if (Array.isArray(inRange) && Array.isArray(picked)) {
        present = inRange;
        candidates = picked.join(',');
      }
    }
    const kept = new Set<number>();
    const read: number[] = [];
    if (candidates !== '')
      for (const m of await client.fetchAll(candidates, { uid: true, headers: ['in-reply-to', 'references', 'content-type'] }, { uid: true })) {
        const fields = headerFields(m.headers);
        const keep = wanted({
          inReplyTo: messageIdsIn(fields.get('in-reply-to')?.join(' '))[0] ?? null,
          references: messageIdsIn(fields.get('references')?.join(' ')),
          report: (fields.get('content-type') ?? []).some((v) => /^multipart\/report\b/i.test(v)),
        });
        read.push(m.uid);
        if (keep) kept.add(m.uid);
      }
    // Skipped: every message of the span (as the search listed them, else as read) not kept.
    for (const uid of present ?? read) if (!kept.has(uid)) skipped.push(uid);
    return { uids: [...kept].sort(oldestFirst), skipped: skipped.sort(oldestFirst) };
  }

  /**
   * The wanted messages, oldest first. A plain-text message (isPlainTextBody) comes as the
   * server's envelope, two header lines and its one body part with the transfer encoding
   * removed by the server (IMAP BINARY), read without mailparser; any other message (multipart,
   * HTML, another charset, a delivery report) is downloaded whole for mailparser to parse.
   * Envelope, structure, header lines and first part come in one command; the structure then
   * says which first parts are the message's text.
   */
  private async fetchWanted(client: ImapFlow, uids: number[]): Promise<{ uid: number; message: InboundEmail | null; source: Buffer }[]> {
    const set = uids.join(',');
    const query = { uid: true, envelope: true, bodyStructure: true, headers: ['references', 'x-outreach-sim'] };
    let heads: Awaited<ReturnType<ImapFlow['fetchAll']>>;
    let parts: Awaited<ReturnType<ImapFlow['fetchAll']>> = [];
    try {
      heads = await client.fetchAll(set, { ...query, bodyParts: ['1'] }, { uid: true, binary: true });
      parts = heads;
    } catch (err) {
      // A server that cannot decode a body (damaged base64, say) refuses the whole command:
      // the rest is asked for alone, and only the plain-text bodies again.
      if (!client.usable) throw err;
      heads = await client.fetchAll(set, query, { uid: true });
      const plain = heads.filter((m) => isPlainTextBody(m.bodyStructure));
      if (plain.length > 0) {
        try {
          parts = await client.fetchAll(plain.map((p) => p.uid).join(','), { uid: true, bodyParts: ['1'] }, { uid: true, binary: true });
        } catch (err2) {
          // Then those messages are downloaded whole and parsed by mailparser like any other.
          if (!client.usable) throw err2;
        }
      }
    }
    const bodies = new Map<number, InboundEmail>();
    const byUid = new Map(heads.map((m) => [m.uid, m]));
    for (const m of parts) {
      const body = m.bodyParts?.get('1');
      const head = byUid.get(m.uid);
      if (!body || !head || !isPlainTextBody(head.bodyStructure)) continue;
      // Only a body the server decoded (or that had nothing to decode) is the text as it is.
      const identity = ['7bit', '8bit', 'binary'].includes((head.bodyStructure?.encoding ?? '7bit').toLowerCase());
      if (!(m.binaryParts?.has('1') || identity)) continue;
      const message = plainTextInbound(m.uid, head.envelope, head.headers, body);
      if (message) bodies.set(m.uid, message);
    }
    const rest = heads.filter((m) => !bodies.has(m.uid)).map((m) => m.uid);
    const sources = new Map<number, Buffer>();
    if (rest.length > 0)
      for (const m of await client.fetchAll(rest.join(','), { uid: true, source: true }, { uid: true })) if (m.source) sources.set(m.uid, m.source);
    const out: { uid: number; message: InboundEmail | null; source: Buffer }[] = [];
    for (const uid of [...new Set(heads.map((m) => m.uid))].sort((a, b) => a - b)) {
      const message = bodies.get(uid);
      const source = sources.get(uid);
      if (message) out.push({ uid, message, source: Buffer.alloc(0) });
      else if (source) out.push({ uid, message: null, source });
    }
    return out;
  }
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
