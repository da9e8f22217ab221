import { randomBytes } from 'node:crypto';
import { transaction } from '../../db/tx.js';
import { serverSecret, sign, signatureMatches } from '../auth/secrets.js';
import type { Ctx } from '../context.js';
import { recordMessage, type MessageSender } from '../conversations/record.js';
import { newSortableId } from '../ids.js';
import { mailOf, recordLoginFailure, requireMailbox, serversOf } from '../mailboxes/mailbox.js';
import { emailExclusion, insertEmailSend, settleEmailSend } from '../mailboxes/store.js';
import { MailLoginError, MailRejectedError } from '../network/mail.js';
import { mailboxReadiness, type MailboxWait } from '../safety/mailbox.js';
import { safetyOf } from '../safety/rules.js';
import { leadStatements } from '../../db/sql/leads.js';

/**
 * Sending one email to a lead: the verb an email step will call. It refuses what must never be
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
  | { status: 'failed'; sendId: string; permanent: boolean; error: string };

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

export async function sendEmail(ctx: Ctx, input: SendEmailInput): Promise<SendEmailResult> {
  const now = ctx.simClock.now();
  const planned = transaction(ctx.db, (): SendEmailResult | { status: 'go'; sendId: string; messageId: string; address: string } => {
    const mailbox = requireMailbox(ctx, input.mailboxId);
    const lead = leadStatements(ctx.db).byId.get(input.leadId);
    if (!lead) throw new Error(`lead ${input.leadId} not found`);
    const address = lead.email?.trim().toLowerCase();
    if (!address) return { status: 'skipped', reason: 'no_email' };
    const excluded = emailExclusion(ctx, address);
    if (excluded) return { status: 'skipped', reason: excluded.reason === 'bounced' ? 'bounced' : 'unsubscribed' };
    const ready = mailboxReadiness(ctx, mailbox, safetyOf(ctx), now);
    if (!ready.ready) return { status: 'wait', reason: ready.reason, until: ready.until };
    const sendId = newSortableId('eml');
    const domain = mailbox.address.slice(mailbox.address.lastIndexOf('@') + 1);
    const messageId = `<${sendId}.${randomBytes(6).toString('hex')}@${domain}>`;
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
    return { status: 'go', sendId, messageId, address };
  });
  if (planned.status !== 'go') return planned;

  const mailbox = requireMailbox(ctx, input.mailboxId);
  const url = unsubscribeUrl(ctx, planned.sendId);
  const text = withUnsubscribeLine(input.text, url);
  try {
    await mailOf(ctx).send(serversOf(mailbox), {
      to: planned.address,
      subject: input.subject,
      text,
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
    return { status: 'failed', sendId: planned.sendId, permanent, error };
  }
  transaction(ctx.db, () => {
    settleEmailSend(ctx, planned.sendId, { state: 'sent' });
    const lead = leadStatements(ctx.db).byId.get(input.leadId);
    if (lead)
      recordMessage(ctx, {
        lead,
        sender: input.sender ?? 'sequence',
        text: `${input.subject}\n\n${input.text}`,
        at: now,
        accountId: mailbox.id,
        externalId: planned.messageId,
        channel: 'email',
      });
  });
  return { status: 'sent', sendId: planned.sendId, messageId: planned.messageId };
}
