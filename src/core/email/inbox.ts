import { leadStatements } from '../../db/sql/leads.js';
import { stepsThenLast } from '../../db/tx.js';
import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import { mailOf, recordLoginFailure, requireMailbox, serversOf } from '../mailboxes/mailbox.js';
import { allMailboxes, emailSendByMessageId, latestSendTo, markEmailSend, markLeadEmail, recordInboxCursor, type EmailSendRow } from '../mailboxes/store.js';
import { recordBounced } from '../sequences/store.js';
import type { LeadRow } from '../../db/sql/leads.js';
import { MailLoginError, type BounceReport, type InboundEmail, type InboundHeaders, type InboxBatch, type InboxReadOptions } from '../network/mail.js';
import { recordMessage } from '../conversations/record.js';
import { hasInboundMessage } from '../conversations/store.js';
import { applyLeadReply } from '../outreach/inbound.js';
import type { EngineSettings } from '../outreach/settings.js';
import { loadCampaignInfo, updateAndReplan, type CampaignInfo } from '../outreach/state.js';
import { suggestByRule } from '../triage/suggest.js';
import { recordLeadEvent } from '../webhooks/outbox.js';
import { OUR_MESSAGE_ID_START } from './send.js';
import { excludeAddress } from './unsubscribe.js';
import { crmOnEmail } from '../crm/enqueue.js';
import { wakeDecidedLeads } from '../outreach/wake.js';

/** Messages read and committed together: one transaction, one cursor step. */
export const INBOX_BATCH = 200;
/** Batches one read takes at most, on one connection: a backlog past 10,000 messages is read over several polls. */
export const INBOX_BATCHES_PER_READ = 50;

/** How the inbox is read: batches, the engine's clock, and which messages can answer us. */
export function inboxReadOptions(ctx: Ctx): InboxReadOptions {
  return {
    batch: INBOX_BATCH,
    batches: INBOX_BATCHES_PER_READ,
    now: ctx.simClock.now(),
    wanted: (h) => namesOurMail(ctx, h),
    ourMessageIds: OUR_MESSAGE_ID_START,
  };
}

export interface InboxReadResult {
  read: number;
  replies: number;
  bounces: number;
  unsubscribes: number;
  /** Messages that answer nothing we sent (newsletters, other threads), or that were recorded before: left alone. */
  ignored: number;
  /** Messages whose record failed: each is logged and left out, the rest of its batch committed. */
  failed: number;
}

const OUTCOME_KEYS = ['read', 'replies', 'bounces', 'unsubscribes', 'ignored', 'failed'] as const;

/**
 * Records a batch of messages read from a mailbox and where reading stopped, in one synchronous
 * transaction (one commit, whatever the batch holds): each message through `applyInboundEmail`,
 * a reply through the verb a LinkedIn reply takes (`applyLeadReply`). A message whose record
 * throws is logged and left out with its own writes alone undone; the others and the cursor
 * still commit, so one bad message cannot hold the inbox back. An error that ends the
 * transaction, or one from the cursor's write, commits nothing: the batch is read again.
 * A message recorded before (the inbox read again) is known by its Message-ID and ignored.
 */
export function recordInboxBatch(ctx: Ctx, mailboxId: string, batch: InboxBatch, settings: EngineSettings): InboxReadResult {
  const result: InboxReadResult = { read: batch.skipped + batch.messages.length, replies: 0, bounces: 0, unsubscribes: 0, ignored: batch.skipped, failed: 0 };
  // The campaigns of the batch's leads, read once per batch (a campaign's sequence does not change under its replies).
  const infos = new Map<string, CampaignInfo | null>();
  const { outcomes } = stepsThenLast(
    ctx.db,
    batch.messages.map((message) => () => applyInboundEmail(ctx, mailboxId, message, settings, infos)),
    () => recordInboxCursor(ctx, mailboxId, batch.cursor, ctx.clock.now()),
  );
  outcomes.forEach((outcome, i) => {
    if (outcome.ok) {
      result[outcome.value]++;
      return;
    }
    result.failed++;
    const message = batch.messages[i];
    ctx.log.error({ err: outcome.err, mailbox: mailboxId, uid: message?.uid, messageId: message?.messageId }, 'inbox message could not be recorded; left out');
  });
  return result;
}

/** Whether a message's headers say it can mean anything here: it names an email we sent, or it is a report (a bounce). */
export function namesOurMail(ctx: Ctx, h: InboundHeaders): boolean {
  return h.report || [h.inReplyTo, ...h.references].some((id) => id !== null && emailSendByMessageId(ctx, id) !== undefined);
}

/** The send a message answers: the first of In-Reply-To, then References (newest last), that is a Message-ID we sent. */
export function answeredSend(ctx: Ctx, message: InboundEmail): EmailSendRow | undefined {
  const ids = [message.inReplyTo, ...[...message.references].reverse()].filter((id): id is string => id !== null);
  for (const id of ids) {
    const send = emailSendByMessageId(ctx, id);
    if (send) return send;
  }
  return undefined;
}

/** The reply's own words: quoted history (`>` lines and the "On … wrote:" line before them) left out. */
export function replyWords(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const cut = lines.findIndex(
    (line, i) => /^On .+wrote:\s*$/.test(line) || (line.startsWith('>') && lines.slice(i).every((l) => l.startsWith('>') || l.trim() === '')),
  );
  const own = (cut === -1 ? lines : lines.slice(0, cut)).filter((l) => !l.startsWith('>'));
  const words = own.join('\n').trim();
  return words === '' ? text.trim() : words;
}

/**
 * Reads a mailbox's new inbox messages and records what they mean, through the verbs LinkedIn
 * uses: a reply to an email we sent is the lead's reply (its sequence ends, it lands in the
 * inbox marked `email`, `lead.replied` fires); a delivery-status report excludes the address
 * as bounced and fires `email.bounced`. Reading happens outside any transaction; what was read
 * and where reading stopped commit together, so a crash re-reads rather than loses a message.
 */
export async function readMailbox(ctx: Ctx, mailboxId: string, settings: EngineSettings): Promise<InboxReadResult> {
  const result: InboxReadResult = { read: 0, replies: 0, bounces: 0, unsubscribes: 0, ignored: 0, failed: 0 };
  const row = requireMailbox(ctx, mailboxId);
  if (row.status !== 'connected' && row.status !== 'paused') return result;
  const servers = serversOf(row);
  if (servers.kind === 'smtp' && servers.imap === null) return result;
  try {
    await mailOf(ctx).readSince(
      servers,
      { uidValidity: row.inboxUidValidity, lastUid: row.inboxLastUid },
      inboxReadOptions(ctx),
      // Each batch and where reading stopped commit together, before the next batch is read.
      (batch) => {
        const recorded = recordInboxBatch(ctx, row.id, batch, settings);
        for (const k of OUTCOME_KEYS) result[k] += recorded[k];
      },
    );
  } catch (err) {
    if (err instanceof MailLoginError) recordLoginFailure(ctx, mailboxId, err);
    throw err;
  }
  return result;
}

type Outcome = 'replies' | 'bounces' | 'unsubscribes' | 'ignored';

function campaignInfoOf(ctx: Ctx, campaignId: string, infos: Map<string, CampaignInfo | null>): CampaignInfo | null {
  let info = infos.get(campaignId);
  if (info === undefined) {
    info = loadCampaignInfo(ctx, campaignId);
    infos.set(campaignId, info);
  }
  return info;
}

function applyInboundEmail(ctx: Ctx, mailboxId: string, message: InboundEmail, settings: EngineSettings, infos: Map<string, CampaignInfo | null>): Outcome {
  const now = ctx.simClock.now();
  if (message.bounce) {
    const b = message.bounce;
    const send =
      (b.originalMessageId ? emailSendByMessageId(ctx, b.originalMessageId) : undefined) ??
      b.recipients.map((r) => latestSendTo(ctx, mailboxId, r)).find((s) => s !== undefined);
    if (!send || send.bouncedAt !== null) return 'ignored';
    markEmailSend(ctx, send.id, { bouncedAt: now });
    excludeAddress(ctx, send.address, 'bounced');
    const lead = leadStatements(ctx.db).byId.get(send.leadId);
    if (lead) bounced(ctx, lead, send, b, message, now, settings);
    if (lead)
      recordLeadEvent(
        ctx,
        'email.bounced',
        lead,
        { email: { address: send.address, mailboxId, status: b.status, diagnostic: b.diagnostic?.slice(0, 500) ?? null, bouncedAt: iso(now) } },
        mailboxId,
      );
    return 'bounces';
  }
  const send = answeredSend(ctx, message);
  if (!send) return 'ignored';
  if (message.simUnsubscribe) {
    excludeAddress(ctx, send.address, 'unsubscribed');
    return 'unsubscribes';
  }
  const lead = leadStatements(ctx.db).byId.get(send.leadId);
  const info = lead ? campaignInfoOf(ctx, lead.campaignId, infos) : null;
  if (!lead || !info) return 'ignored';
  // A reply read before (the inbox read again from its start) is recorded once.
  const externalId = message.messageId ?? `${mailboxId}:${message.uid}`;
  if (hasInboundMessage(ctx, lead.id, externalId)) return 'ignored';
  markEmailSend(ctx, send.id, { repliedAt: now });
  markLeadEmail(ctx, lead.id, send.mailboxId, 'repliedAt', now);
  applyLeadReply(
    ctx,
    { lead, info },
    {
      text: replyWords(message.text),
      at: now,
      accountId: mailboxId,
      externalId,
      chatId: null,
      channel: 'email',
    },
    settings,
  );
  return 'replies';
}

/** The longest part of a server's diagnostic the thread keeps. */
const DIAGNOSTIC_MAX = 500;

/**
 * A bounce as the thread shows it: which email did not arrive, to which address, what the
 * server said, and what follows (the address is not mailed again; other steps go on).
 */
export function bounceNotice(send: Pick<EmailSendRow, 'subject' | 'address'>, report: Pick<BounceReport, 'status' | 'diagnostic'>): string {
  const said = [report.status, report.diagnostic?.replace(/\s+/g, ' ').trim().slice(0, DIAGNOSTIC_MAX)].filter((p) => p).join(' ');
  return [
    `Not delivered: the email "${send.subject}" to ${send.address} bounced.`,
    said ? `The mail server said: ${said}` : 'The mail server gave no reason.',
    'This address will not be emailed again, in any campaign; the sequence goes on with its other steps.',
  ].join('\n');
}

/**
 * What a bounce changes for the lead beside the exclusion: the thread gets the server's notice, it is counted for the email step that
 * sent it, the lead's email state keeps when it first bounced (an `if email_bounced` reads it),
 * and a lead waiting at such an `if` is planned again at once. The sequence goes on: the lead's
 * later email steps are skipped as `bounced`, its LinkedIn steps are not.
 */
function bounced(ctx: Ctx, lead: LeadRow, send: EmailSendRow, report: BounceReport, message: InboundEmail, now: number, settings: EngineSettings): void {
  markLeadEmail(ctx, lead.id, send.mailboxId, 'bouncedAt', now);
  // The person reading the thread sees it: the mail server's notice, after the email it returns.
  const notice = bounceNotice(send, report);
  recordMessage(ctx, {
    lead,
    sender: 'mail_server',
    text: notice,
    at: now,
    accountId: send.mailboxId,
    externalId: message.messageId ?? `${send.mailboxId}:${message.uid}`,
    channel: 'email',
  });
  crmOnEmail(ctx, lead, 'bounced', notice, now);
  // Recognised without a model, as a bounce written in a reply is: the inbox shows the suggestion.
  suggestByRule(ctx, lead, 'bounce');
  if (send.campaignId === lead.campaignId) recordBounced(ctx, { leadId: lead.id, at: now });
  const info = loadCampaignInfo(ctx, lead.campaignId);
  if (info) updateAndReplan(ctx, lead.id, {}, info, settings);
  // An `if email_bounced` takes `then` now: the engine had put the lead away to its deadline.
  wakeDecidedLeads(ctx, [lead.id]);
}

/**
 * The mailboxes whose inbox is read: connected or paused (a paused mailbox still hears its
 * replies), with an inbox to read; `simulated` for a development mailbox, whose inbox follows the
 * simulated clock.
 */
export function mailboxesToRead(ctx: Ctx): { id: string; simulated: boolean }[] {
  return allMailboxes(ctx)
    .filter((m) => (m.status === 'connected' || m.status === 'paused') && (m.kind === 'sim' || m.imapHost !== null))
    .map((m) => ({ id: m.id, simulated: m.kind === 'sim' }));
}
