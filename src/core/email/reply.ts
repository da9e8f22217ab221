import { leadStatements, type LeadRow } from '../../db/sql/leads.js';
import { transaction } from '../../db/tx.js';
import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import { emailMessagesOf } from '../conversations/store.js';
import { ApiError, validationError } from '../errors.js';
import { findMailbox, sentEmailsOfLead } from '../mailboxes/store.js';
import { applyOperatorEmailSent } from '../outreach/sends.js';
import { refuseExcludedLead } from '../leads/exclude.js';
import { mailAddressOf } from './address.js';
import { emailAddressOf, type EmailUnavailable } from './lead.js';
import { sendEmail } from './send.js';

/**
 * Answering an email thread from the inbox: the reply goes out by email, from the mailbox the
 * thread went through, threaded as a mail client threads it (In-Reply-To the message answered,
 * References the thread's Message-IDs, the subject with "Re:"), through sendEmail and so under
 * every rule of the channel: never to an address that unsubscribed or bounced, within the
 * mailbox's daily limit (warm-up applied), working hours and spacing, with the unsubscribe link.
 */

/** The thread's Message-IDs a reply names in References at most (the newest ones). */
export const REFERENCES_MAX = 20;

export interface EmailReplyPlan {
  mailboxId: string;
  /** The mailbox's address, the reply's sender. */
  from: string;
  /** The lead's address, lower-cased; null when the lead has none any more. */
  to: string | null;
  subject: string;
  inReplyTo: string;
  references: string[];
}

const isMessageId = (id: string | null): id is string => id !== null && /^<[^<>\s]+>$/.test(id);

/** The subject of a reply: "Re: " before the thread's subject, once. */
export function replySubject(subject: string): string {
  const s = subject.trim();
  return /^re\s*:/i.test(s) ? s : `Re: ${s}`;
}

/**
 * How a reply to the lead's email thread goes: the message answered is the lead's newest email
 * (else our newest), its mailbox sends, and the subject is that of the newest email we sent
 * through it until then. Null when the thread holds no email to answer (or its mailbox is gone).
 */
export function emailReplyPlan(ctx: Pick<Ctx, 'db'>, lead: Pick<LeadRow, 'id' | 'email'>): EmailReplyPlan | null {
  const thread = emailMessagesOf(ctx, lead.id).filter((m) => m.sender !== 'mail_server' && isMessageId(m.externalId) && m.accountId !== null);
  const answered = thread.findLast((m) => m.sender === 'lead') ?? thread.at(-1);
  if (!answered?.accountId || !answered.externalId) return null;
  const mailbox = findMailbox(ctx, answered.accountId);
  if (!mailbox) return null;
  const sends = sentEmailsOfLead(ctx, lead.id).filter((s) => s.mailboxId === mailbox.id && s.at <= answered.at);
  const subject = sends.at(-1)?.subject;
  if (subject === undefined) return null;
  const upTo = thread.slice(0, thread.indexOf(answered) + 1).map((m) => m.externalId as string);
  const references = [...new Set(upTo)].slice(-REFERENCES_MAX);
  return {
    mailboxId: mailbox.id,
    from: mailbox.address,
    to: mailAddressOf(lead.email),
    subject: replySubject(subject),
    inReplyTo: answered.externalId,
    references,
  };
}

/** Why an email cannot go to the lead, in one sentence a person can act on. */
export function emailUnavailableText(reason: EmailUnavailable, address: string | null): string {
  if (reason === 'no_email') return 'The lead has no email address to answer.';
  return `${address} ${reason === 'bounced' ? 'bounced an earlier email' : 'unsubscribed'}, so it is never emailed again, in any campaign. Reply on LinkedIn instead.`;
}

/** The refusal of an email reply to an address that may not be mailed: `validation_error` without one, `conflict` for one excluded. */
function refuseUnavailable(lead: Pick<LeadRow, 'id'>, address: string | null, reason: EmailUnavailable): never {
  if (reason === 'no_email') throw validationError(`Lead ${lead.id} has no email address to answer.`, ['leadId']);
  throw new ApiError('conflict', emailUnavailableText(reason, address), { address, reason });
}

/** The mailbox's login is refused by its server: its sends wait for a person to fix it. */
const loginRefused = (mailbox: string, mailboxId: string): ApiError =>
  new ApiError('account_disconnected', `The ${mailbox}'s login was refused by its server. Fix its password on the Mailboxes page.`, { mailboxId });

const secondsUntil = (ctx: Ctx, until: number | null): number => Math.max(1, Math.ceil(((until ?? ctx.simClock.now()) - ctx.simClock.now()) / 1000));

/**
 * Sends the operator's reply in the lead's email thread. Every refusal is an ApiError in the
 * spec's shape, raised before anything is recorded: a thread with no email, a lead excluded or
 * without an address, an address that unsubscribed or bounced (`conflict`), a mailbox at its
 * daily limit (`network_daily_quota`), inside its spacing (`rate_limited`), outside its working
 * hours or paused (`conflict`), or whose login was refused (`account_disconnected`); the server
 * refusing the message is `send_failed`. Once sent, the lead needs no reply and a lead in
 * conversation is handed to the person, as after a LinkedIn message.
 */
export async function replyByEmail(
  ctx: Ctx,
  lead: LeadRow,
  text: string,
  sender: 'operator' | 'api',
): Promise<{ ok: boolean; chatId: string; messageId: string }> {
  refuseExcludedLead(ctx, lead, 'email');
  const plan = emailReplyPlan(ctx, lead);
  if (plan === null) {
    throw validationError(`Lead ${lead.id}'s thread holds no email to answer. Reply on LinkedIn (channel "linkedin").`, ['channel']);
  }
  const to = emailAddressOf(ctx, lead);
  if (to.unavailable !== null) refuseUnavailable(lead, to.address, to.unavailable);
  const r = await sendEmail(ctx, {
    mailboxId: plan.mailboxId,
    leadId: lead.id,
    subject: plan.subject,
    text,
    sender,
    inReplyTo: plan.inReplyTo,
    references: plan.references,
  });
  const mailbox = `mailbox ${plan.from} (${plan.mailboxId})`;
  switch (r.status) {
    case 'skipped':
      // The address was excluded between the check above and the send.
      return refuseUnavailable(lead, plan.to, r.reason);
    case 'wait': {
      const retryAfterSeconds = secondsUntil(ctx, r.until);
      if (r.reason === 'daily_limit')
        throw new ApiError('network_daily_quota', `The ${mailbox} has sent its emails for today (its daily limit, warm-up applied).`, {
          mailboxId: plan.mailboxId,
          retryAfterSeconds,
        });
      if (r.reason === 'spacing')
        throw new ApiError('rate_limited', `The ${mailbox} keeps a pause between two emails; it may send again in ${retryAfterSeconds} s.`, {
          mailboxId: plan.mailboxId,
          retryAfterSeconds,
        });
      if (r.reason === 'hours')
        throw new ApiError('conflict', `The ${mailbox} sends in its working hours only; they open at ${iso(r.until ?? ctx.simClock.now())}.`, {
          mailboxId: plan.mailboxId,
          retryAfterSeconds,
        });
      if (r.reason === 'paused')
        throw new ApiError('conflict', `The ${mailbox} is paused. Resume it on the Mailboxes page first.`, { mailboxId: plan.mailboxId });
      throw loginRefused(mailbox, plan.mailboxId);
    }
    case 'failed':
      // Found refused while sending: the same answer as when the mailbox was known to be refused.
      if (r.loginRefused) throw loginRefused(mailbox, plan.mailboxId);
      throw new ApiError('send_failed', `The mail server did not take the reply from the ${mailbox}: ${r.error.slice(0, 300)}`, { mailboxId: plan.mailboxId });
    case 'sent':
      transaction(ctx.db, () => {
        const now = leadStatements(ctx.db).byId.get(lead.id);
        if (now) applyOperatorEmailSent(ctx, now, plan.mailboxId, ctx.simClock.now());
      });
      return { ok: true, chatId: plan.references[0] ?? plan.inReplyTo, messageId: r.messageId };
  }
}
