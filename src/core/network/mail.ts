/**
 * The mail port: everything the service asks of a mail server, as the network provider port is
 * for the professional network. Core decides what to send and what an inbound message means;
 * an adapter (src/network/mail: SMTP and IMAP through nodemailer, imapflow and mailparser, or
 * the simulator) only carries messages. Passwords never cross this port: an adapter reads them
 * from the environment variables the mailbox names.
 */

/** What an adapter needs to reach a mailbox's servers. */
export interface MailboxServers {
  id: string;
  address: string;
  fromName: string | null;
  kind: 'smtp' | 'sim';
  smtp: { host: string; port: number; secure: boolean; user: string; passwordEnv: string } | null;
  imap: { host: string; port: number; secure: boolean; user: string; passwordEnv: string } | null;
}

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post). */
  headers: Record<string, string>;
  /** The Message-ID to send with, `<…@domain>`: chosen by core, so it is recorded before the send. */
  messageId: string;
  /** For a reply in a thread: the Message-ID it answers (In-Reply-To) and the thread's ids, oldest first (References). */
  inReplyTo?: string;
  references?: string[];
}

/**
 * Which server refused and why: `mailbox_login_failed` names it. `unsetVariable` names the
 * environment variable that should hold the password when it is not set, so no login was tried.
 */
export class MailLoginError extends Error {
  constructor(
    readonly server: 'smtp' | 'imap',
    readonly host: string,
    message: string,
    readonly unsetVariable?: string,
  ) {
    super(message);
    this.name = 'MailLoginError';
  }
}

/** A send the server refused for this recipient (a permanent 5xx); other failures are transient. */
export class MailRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MailRejectedError';
  }
}

/** A delivery-status report (RFC 3464) found in an inbound message. */
export interface BounceReport {
  /** The failed recipients (Final-Recipient), lower-cased. */
  recipients: string[];
  /** The Status code of the first failed recipient, e.g. 5.1.1. */
  status: string | null;
  /** The diagnostic the server gave, when any. */
  diagnostic: string | null;
  /** The Message-ID of the message that bounced, from the returned headers, when present. */
  originalMessageId: string | null;
}

/** One inbound message, parsed. */
export interface InboundEmail {
  /** The server's UID (IMAP) or the simulator's sequence number. */
  uid: number;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  from: string | null;
  subject: string | null;
  /** The plain text, quoted history included. */
  text: string;
  /** When the message says it was written (Date header), ms; null when absent. */
  date: number | null;
  /** Set when the message is a delivery-status report. */
  bounce: BounceReport | null;
  /** Set when the message is a one-click unsubscribe the simulator made for a lead (development only). */
  simUnsubscribe: boolean;
}

/** Where reading stopped: IMAP's UIDVALIDITY and the last UID read. */
export interface InboxCursor {
  uidValidity: string | null;
  lastUid: number;
}

export interface InboxBatch {
  messages: InboundEmail[];
  cursor: InboxCursor;
  /** Messages read past but not fetched in full, because `wanted` said they answer nothing of ours. */
  skipped: number;
}

/** What an adapter can tell of a message from its headers alone, before it fetches the whole message. */
export interface InboundHeaders {
  inReplyTo: string | null;
  references: string[];
  /** The message is a report (`multipart/report`): a delivery-status report is one. */
  report: boolean;
}

export interface InboxReadOptions {
  /** Messages per batch. */
  batch: number;
  /** Batches read in one call at most: a backlog larger than that is read over several calls. */
  batches: number;
  now: number;
  wanted?: (headers: InboundHeaders) => boolean;
  /**
   * Text that every Message-ID we send contains. A message whose In-Reply-To and References
   * both lack it, and that is no delivery report, cannot answer us: an adapter that can search
   * on the server may count such messages as skipped without reading them, and ask `wanted`
   * only about the rest.
   */
  ourMessageIds?: string;
}

export interface MailPort {
  /** Checks that the servers accept the mailbox's logins; throws MailLoginError naming the one that refused. */
  verifyLogin(mailbox: MailboxServers): Promise<void>;
  /** Sends one message; returns its Message-ID. Throws MailLoginError, MailRejectedError or another Error (transient). */
  send(mailbox: MailboxServers, email: OutgoingEmail): Promise<{ messageId: string }>;
  /**
   * The inbox's messages after `cursor`, oldest first, parsed, handed to `take` in batches of at
   * most `options.batch`, on one connection, until the inbox is read or `options.batches`
   * batches were taken. `take` runs synchronously before the next batch is read (core commits
   * each batch and its cursor in a transaction of its own, so a failure midway keeps what was
   * taken). A changed UIDVALIDITY starts again from the first message (core ignores what it has
   * seen). `now` is the engine's clock (the simulator delivers by it). An adapter that can read
   * a message's headers on their own asks `wanted` first and fetches and parses only the
   * messages it answers true for (the rest are counted in `skipped`); without `wanted`, every message.
   */
  readSince(mailbox: MailboxServers, cursor: InboxCursor, options: InboxReadOptions, take: (batch: InboxBatch) => void): Promise<void>;
}

/**
 * An email its mailbox's server took, as core records it (core/email/send.ts): the send to settle
 * and the thread's entry, written in the transaction that settles the send.
 */
export interface SentEmail {
  sendId: string;
  messageId: string;
  mailboxId: string;
  leadId: string;
  subject: string;
  /** The words as written, without the unsubscribe line. */
  text: string;
  /** When it was planned (sim clock): the thread's entry is dated so. */
  at: number;
}
