import { transaction } from '../../db/tx.js';
import { serverSecret, sign, signatureMatches } from '../auth/secrets.js';
import type { Ctx } from '../context.js';
import { recordMessage, type MessageSender } from '../conversations/record.js';
import { newSortableId, randomHex } from '../ids.js';
import { mailOf, recordLoginFailure, requireMailbox, serversOf } from '../mailboxes/mailbox.js';
import type { MailboxRow } from '../mailboxes/store.js';
import { insertEmailSend, settleEmailSend } from '../mailboxes/store.js';
import { emailAddressOf } from './lead.js';
import { MailLoginError, MailRejectedError, type SentEmail } from '../network/mail.js';
import { mailboxReadiness, type MailboxWait } from '../safety/mailbox.js';
import { safetyOf } from '../safety/rules.js';
import { leadStatements, type LeadRow } from '../../db/sql/leads.js';
import { crmOnEmail } from '../crm/enqueue.js';

const EMAIL_SEND_ID_PREFIX = 'eml';
/**
 * How every Message-ID we send begins: `<`, then the send's id (`eml_…`). The inbox reader
 * lets the mail server pick the messages whose In-Reply-To or References contain it.
 */
export const OUR_MESSAGE_ID_START = `<${EMAIL_SEND_ID_PREFIX}_`;

/**
 * Sending one email to a lead: the verb an email step calls. It refuses what must never be
 * mailed (no address, an address that unsubscribed or bounced, in any campaign), waits while
 * the mailbox may not send (its limit, warm-up, hours, spacing), and otherwise records the send
 * with the Message-ID it carries before the server is called (network I/O never inside a
 * transaction), so a reply or a bounce can always be matched to it.
 */

export const EMAIL_SKIP_REASONS = ['no_email', 'unsubscribed', 'bounced'] as const;
export type EmailSkipReason = (typeof EMAIL_SKIP_REASONS)[number];

export type SendEmailResult =
  | { status: 'sent'; sendId: string; messageId: string }
  | { status: 'skipped'; reason: EmailSkipReason }
  | { status: 'wait'; reason: MailboxWait; until: number | null }
  /** The server did not take it: `permanent` when it refused the recipient or the login (no retry helps). */
  /** `loginRefused`: the mail server refused the mailbox's login (the mailbox is now `login_failed`). */
  | { status: 'failed'; sendId: string; permanent: boolean; error: string; loginRefused?: boolean };

export interface SendEmailInput {
  mailboxId: string;
  leadId: string;
  subject: string;
  text: string;
  /** Who wrote it, for the conversation (the sequence, the operator...). Default sequence. */
  sender?: MessageSender;
  /** For a reply in an email thread: the Message-ID it answers and the thread's ids, oldest first. */
  inReplyTo?: string;
  references?: string[];
}

const PURPOSE = 'unsubscribe';

/** The signed token of a send's unsubscribe link: the send's id and its HMAC under a server secret. */
export function unsubscribeToken(ctx: Ctx, sendId: string): string {
  return `${sendId}.${sign(serverSecret(ctx, PURPOSE), PURPOSE, sendId)}`;
}

/** The send a token names, or null when the token is not one this server signed. */
export function sendOfToken(ctx: Ctx, token: string): string | null {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const sendId = token.slice(0, dot);
  return signatureMatches(sign(serverSecret(ctx, PURPOSE), PURPOSE, sendId), token.slice(dot + 1)) ? sendId : null;
}

/** Where the server answers the one-click unsubscribe: its public address. */
export function unsubscribeUrl(ctx: Ctx, sendId: string): string {
  if (!ctx.publicUrl) throw new Error('the server has no public URL for unsubscribe links');
  return `${ctx.publicUrl.replace(/\/+$/, '')}/unsubscribe/${unsubscribeToken(ctx, sendId)}`;
}

/** The body as sent: the words, then the unsubscribe line every email carries. */
export function withUnsubscribeLine(text: string, url: string): string {
  return `${text.replace(/\s+$/, '')}\n\n--\nTo receive no more emails from us: ${url}\n`;
}

/** An email recorded as on its way (state `sending`), with the Message-ID it carries: what the server is then given. */
export interface PlannedEmail {
  status: 'go';
  sendId: string;
  messageId: string;
  /** The recipient, lower-cased. */
  address: string;
  mailbox: MailboxRow;
  /** When it was planned (sim clock): the thread's entry is dated so. */
  at: number;
}

/** What planning an email came to: on its way (`go`), skipped, or waiting for its mailbox. */
export type EmailPlan = Exclude<SendEmailResult, { status: 'sent' } | { status: 'failed' }> | PlannedEmail;

/**
 * Step one of a send, synchronous, in the caller's transaction (the engine's, with the send's
 * intent) or in one of its own: what must never be mailed is refused, the mailbox's rules are
 * read, and the send is recorded with its Message-ID before any server is called.
 */
export function planEmail(
  ctx: Ctx,
  input: Pick<SendEmailInput, 'mailboxId' | 'leadId' | 'subject'>,
  now: number,
  /** The lead as the caller's open transaction just read it, when it did. */
  known?: LeadRow,
): EmailPlan {
  return transaction(ctx.db, (): EmailPlan => {
    const mailbox = requireMailbox(ctx, input.mailboxId);
    const lead = known?.id === input.leadId ? known : leadStatements(ctx.db).byId.get(input.leadId);
    if (!lead) throw new Error(`lead ${input.leadId} not found`);
    const to = emailAddressOf(ctx, lead);
    if (to.unavailable !== null) return { status: 'skipped', reason: to.unavailable };
    const address = to.address;
    const ready = mailboxReadiness(ctx, mailbox, safetyOf(ctx), now);
    if (!ready.ready) return { status: 'wait', reason: ready.reason, until: ready.until };
    const sendId = newSortableId(EMAIL_SEND_ID_PREFIX);
    const domain = mailbox.address.slice(mailbox.address.lastIndexOf('@') + 1);
    // 48 random bits from the ids' pooled generator (one system call per 4 KiB, not one per email).
    const messageId = `<${sendId}.${randomHex(6)}@${domain}>`; // starts with OUR_MESSAGE_ID_START
    insertEmailSend(ctx, {
      id: sendId,
      messageId,
      mailboxId: mailbox.id,
      leadId: lead.id,
      campaignId: lead.campaignId,
      address,
      subject: input.subject,
      state: 'sending',
      at: now,
    });
    return { status: 'go', sendId, messageId, address, mailbox, at: now };
  });
}

/**
 * Step two: the planned email given to its mailbox's server, with its unsubscribe line and
 * headers; network I/O, outside any transaction. A refusal is recorded (the send failed, a
 * refused login stops the mailbox) and answered as `failed`; what the server took is returned,
 * for the caller to record in its own transaction (recordEmailSent).
 */
export async function deliverEmail(
  ctx: Ctx,
  planned: PlannedEmail,
  input: SendEmailInput,
): Promise<SentEmail | Extract<SendEmailResult, { status: 'failed' }>> {
  const { mailbox } = planned;
  const url = unsubscribeUrl(ctx, planned.sendId);
  try {
    await mailOf(ctx).send(serversOf(mailbox), {
      to: planned.address,
      subject: input.subject,
      text: withUnsubscribeLine(input.text, url),
      messageId: planned.messageId,
      headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      ...(input.inReplyTo ? { inReplyTo: input.inReplyTo } : {}),
      ...(input.references ? { references: input.references } : {}),
    });
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    const permanent = err instanceof MailLoginError || err instanceof MailRejectedError;
    if (err instanceof MailLoginError) recordLoginFailure(ctx, mailbox.id, err);
    transaction(ctx.db, () => settleEmailSend(ctx, planned.sendId, { state: 'failed', error: error.slice(0, 500) }));
    ctx.log.warn({ mailbox: mailbox.id, sendId: planned.sendId, err }, 'email not sent');
    return { status: 'failed', sendId: planned.sendId, permanent, error, ...(err instanceof MailLoginError ? { loginRefused: true } : {}) };
  }
  return {
    sendId: planned.sendId,
    messageId: planned.messageId,
    mailboxId: mailbox.id,
    leadId: input.leadId,
    subject: input.subject,
    text: input.text,
    at: planned.at,
  };
}

/**
 * Step three, in the caller's transaction: the send settled as sent, and entered in the lead's
 * thread as written by `sender`. `known` is the lead as the caller's open transaction just read
 * it (null: it read no such lead), when it did.
 */
export function recordEmailSent(ctx: Ctx, sent: SentEmail, sender: MessageSender = 'sequence', known?: LeadRow | null): void {
  transaction(ctx.db, () => {
    settleEmailSend(ctx, sent.sendId, { state: 'sent' });
    const lead = known !== undefined ? known : leadStatements(ctx.db).byId.get(sent.leadId);
    if (!lead) return;
    const text = `${sent.subject}\n\n${sent.text}`;
    recordMessage(ctx, { lead, sender, text, at: sent.at, accountId: sent.mailboxId, externalId: sent.messageId, channel: 'email' });
    crmOnEmail(ctx, lead, 'sent', text, sent.at);
  });
}

/** The three steps in transactions of their own: for a caller with no transaction of its own to fold them into. */
export async function sendEmail(ctx: Ctx, input: SendEmailInput): Promise<SendEmailResult> {
  const planned = planEmail(ctx, input, ctx.simClock.now());
  if (planned.status !== 'go') return planned;
  const sent = await deliverEmail(ctx, planned, input);
  if ('status' in sent) return sent;
  recordEmailSent(ctx, sent, input.sender);
  return { status: 'sent', sendId: sent.sendId, messageId: sent.messageId };
}
