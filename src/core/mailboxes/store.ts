import { and, asc, eq, gt, isNotNull, lte, sql } from 'drizzle-orm';
import { emailExclusions, emailSends, leadEmail, leads, mailboxes, simMail } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import { utcDay } from '../clock.js';
import { cached } from '../../db/cache.js';
import { inserterOf, perDb, rowsOf, selectList } from '../../db/prepared.js';
import type { Ctx } from '../context.js';

/**
 * Every statement of the email channel: mailboxes, the emails they sent (by Message-ID), the
 * excluded addresses and the simulated server's inbox. Rows are mapped by column name by
 * drizzle. Each write runs in the caller's transaction when one is open.
 */

export type MailboxRow = typeof mailboxes.$inferSelect;
export type MailboxInsert = typeof mailboxes.$inferInsert;
export type EmailSendRow = typeof emailSends.$inferSelect;
export type LeadEmailRow = typeof leadEmail.$inferSelect;
type Db = Pick<Ctx, 'db'>;

/**
 * The statements an email send runs, prepared once per connection: every email step reads the
 * lead's mailbox and its exclusion, the mailbox's rules read its count of the day and its last
 * send, and the send is written and settled with its day's count; an inbox read finds the send
 * each message answers and marks the replies and bounces. Built with drizzle on each call,
 * building and preparing the query cost several times what running it does (bench/METHOD.md,
 * issue 37). `state != 'failed'` is written into the statements, not bound.
 */
const hot = perDb((db) => {
  const c = db.$client;
  return {
    leadEmailById: rowsOf<[string], LeadEmailRow>(leadEmail, c.prepare(`SELECT ${selectList(leadEmail)} FROM lead_email WHERE lead_id = ?`)),
    pin: c.prepare<[string, string, number]>('INSERT INTO lead_email (lead_id, mailbox_id, pinned_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
    exclusion: c.prepare<[string], { reason: string; createdAt: number }>('SELECT reason, created_at AS createdAt FROM email_exclusions WHERE address = ?'),
    // The mailbox's emails of a day, one row (migration 0033): a count of email_sends walked the
    // day's index entries, as many as the mailbox had sent (up to 500), on every email.
    sentOn: c.prepare<[string, string], number>('SELECT sent FROM mailbox_daily WHERE mailbox_id = ? AND day = ?').pluck(),
    sentOnMany: c.prepare<[string, string], { mailboxId: string; sent: number }>(
      'SELECT mailbox_id AS mailboxId, sent FROM mailbox_daily WHERE mailbox_id IN (SELECT value FROM json_each(?)) AND day = ?',
    ),
    count: c.prepare<[string, string, number]>(
      'INSERT INTO mailbox_daily (mailbox_id, day, sent) VALUES (?, ?, ?) ON CONFLICT (mailbox_id, day) DO UPDATE SET sent = sent + excluded.sent',
    ),
    // Down the (mailbox_id, at, state) index (migration 0032) from the newest to the first send
    // that did not fail: max(at) with the state's condition would read every send the mailbox ever made.
    lastSent: c.prepare<[string], number>("SELECT at FROM email_sends WHERE mailbox_id = ? AND state != 'failed' ORDER BY at DESC LIMIT 1").pluck(),
    stateOf: c.prepare<[string], { mailboxId: string; at: number; state: string }>('SELECT mailbox_id AS mailboxId, at, state FROM email_sends WHERE id = ?'),
    settle: c.prepare<[string, string | null, string]>('UPDATE email_sends SET state = ?, error = ? WHERE id = ?'),
    // Where an inbox read got to: written with every batch it commits.
    inboxCursor: c.prepare<[{ id: string; uidValidity: string | null; lastUid: number; at: number }]>(
      'UPDATE mailboxes SET inbox_uid_validity = @uidValidity, inbox_last_uid = @lastUid, inbox_read_at = @at WHERE id = @id',
    ),
    // An inbox read asks for every id every message names, and marks every reply and bounce it records.
    sendByMessageId: rowsOf<[string], EmailSendRow>(emailSends, c.prepare(`SELECT ${selectList(emailSends)} FROM email_sends WHERE message_id = ?`)),
    // A time not given (null) keeps its value.
    markSend: c.prepare<[{ id: string; repliedAt: number | null; bouncedAt: number | null }]>(
      'UPDATE email_sends SET replied_at = coalesce(@repliedAt, replied_at), bounced_at = coalesce(@bouncedAt, bounced_at) WHERE id = @id',
    ),
    // The lead's first reply or first bounce: a later one keeps the first time.
    markLead: {
      repliedAt: c.prepare<[{ leadId: string; mailboxId: string; at: number }]>(
        `INSERT INTO lead_email (lead_id, mailbox_id, pinned_at, replied_at) VALUES (@leadId, @mailboxId, @at, @at)
         ON CONFLICT (lead_id) DO UPDATE SET replied_at = coalesce(replied_at, @at)`,
      ),
      bouncedAt: c.prepare<[{ leadId: string; mailboxId: string; at: number }]>(
        `INSERT INTO lead_email (lead_id, mailbox_id, pinned_at, bounced_at) VALUES (@leadId, @mailboxId, @at, @at)
         ON CONFLICT (lead_id) DO UPDATE SET bounced_at = coalesce(bounced_at, @at)`,
      ),
    },
  };
});

const insertSend = inserterOf(emailSends);

export function insertMailbox(ctx: Db, row: MailboxInsert): void {
  ctx.db.insert(mailboxes).values(row).run();
}

export function deleteMailbox(ctx: Db, id: string): void {
  ctx.db.delete(mailboxes).where(eq(mailboxes.id, id)).run();
}

/**
 * Every mailbox by id, kept while the `mailboxes` group of the cache stands still (any write to
 * the table moves it, an inbox read's cursor too), as the accounts are: an email step reads its
 * mailbox at the lane, at the choice of a new lead's mailbox (each of the campaign's) and at the
 * plan, and a workspace has a few dozen. Shared and frozen.
 */
const mailboxesById = cached(
  'mailboxes',
  (db) =>
    new Map(
      db
        .select()
        .from(mailboxes)
        .all()
        .map((m) => [m.id, Object.freeze(m)]),
    ),
);

export function findMailbox(ctx: Db, id: string): MailboxRow | undefined {
  return mailboxesById(ctx.db).get(id);
}

export function findMailboxByAddress(ctx: Db, address: string): MailboxRow | undefined {
  return ctx.db.select().from(mailboxes).where(eq(mailboxes.address, address)).get();
}

/** Mailboxes in the order they were added, after `afterSeq`, at most `limit`. */
export function mailboxPage(ctx: Db, afterSeq: number, limit: number): MailboxRow[] {
  return ctx.db.select().from(mailboxes).where(gt(mailboxes.seq, afterSeq)).orderBy(asc(mailboxes.seq)).limit(limit).all();
}

export function allMailboxes(ctx: Db): MailboxRow[] {
  return ctx.db.select().from(mailboxes).orderBy(asc(mailboxes.seq)).all();
}

/** Where the mailbox's inbox read got to, and when: the last write of every batch it commits. */
export function recordInboxCursor(ctx: Db, id: string, cursor: { uidValidity: string | null; lastUid: number }, at: number): void {
  hot(ctx.db).inboxCursor.run({ id, uidValidity: cursor.uidValidity, lastUid: cursor.lastUid, at });
}

export function updateMailboxRow(ctx: Db, id: string, set: Partial<MailboxInsert>): void {
  ctx.db.update(mailboxes).set(set).where(eq(mailboxes.id, id)).run();
}

/**
 * The mailbox's count of the day moves with the send it counts, in the same transaction: every
 * send that did not fail counts on the UTC day it was planned, a send that fails is taken back
 * off (and counted again should it be settled as sent after all).
 */
const counts = (state: string): boolean => state !== 'failed';

/** Records a send (and counts it on its day unless it failed). */
export function insertEmailSend(ctx: Db, row: typeof emailSends.$inferInsert): void {
  transaction(ctx.db, () => {
    insertSend(ctx.db, row);
    if (counts(row.state)) hot(ctx.db).count.run(row.mailboxId, utcDay(row.at), 1);
  });
}

/** Settles a send as sent or failed; the day's count follows. */
export function settleEmailSend(ctx: Db, id: string, set: { state: 'sent' | 'failed'; error?: string | null }): void {
  const statements = hot(ctx.db);
  transaction(ctx.db, () => {
    const before = statements.stateOf.get(id);
    statements.settle.run(set.state, set.error ?? null, id);
    if (!before || counts(before.state) === counts(set.state)) return;
    statements.count.run(before.mailboxId, utcDay(before.at), counts(set.state) ? 1 : -1);
  });
}

export function emailSendById(ctx: Db, id: string): EmailSendRow | undefined {
  return ctx.db.select().from(emailSends).where(eq(emailSends.id, id)).get();
}

export function emailSendByMessageId(ctx: Db, messageId: string): EmailSendRow | undefined {
  return hot(ctx.db).sendByMessageId.get(messageId);
}

/** Sets the times given; a time not given keeps its value. */
export function markEmailSend(ctx: Db, id: string, set: { bouncedAt?: number; repliedAt?: number }): void {
  hot(ctx.db).markSend.run({ id, repliedAt: set.repliedAt ?? null, bouncedAt: set.bouncedAt ?? null });
}

/** When each of the lead's emails that bounced came back, by its Message-ID (the inbox marks the email it sent). */
export function bouncedSendsOfLead(ctx: Db, leadId: string): Map<string, number> {
  const rows = ctx.db
    .select({ messageId: emailSends.messageId, bouncedAt: emailSends.bouncedAt })
    .from(emailSends)
    .where(and(eq(emailSends.leadId, leadId), isNotNull(emailSends.bouncedAt)))
    .all();
  return new Map(rows.map((r) => [r.messageId, r.bouncedAt ?? 0]));
}

/** The lead's emails that reached the server, oldest first: the thread a reply answers. */
export function sentEmailsOfLead(ctx: Db, leadId: string): EmailSendRow[] {
  return ctx.db
    .select()
    .from(emailSends)
    .where(and(eq(emailSends.leadId, leadId), eq(emailSends.state, 'sent')))
    .orderBy(asc(emailSends.at), asc(emailSends.seq))
    .all();
}

/** The newest send of the lead to this address, the one an unsubscribe or bounce without its own id belongs to. */
export function latestSendTo(ctx: Db, mailboxId: string, address: string): EmailSendRow | undefined {
  return ctx.db
    .select()
    .from(emailSends)
    .where(and(eq(emailSends.mailboxId, mailboxId), eq(emailSends.address, address)))
    .orderBy(sql`${emailSends.at} DESC, ${emailSends.seq} DESC`)
    .get();
}

/** Sends that reached the server (or are on their way) from `from` to `to` (sim-clock ms), oldest first. */
export function mailboxSendTimes(ctx: Db, mailboxId: string, from: number, to: number): number[] {
  return ctx.db
    .select({ at: emailSends.at })
    .from(emailSends)
    .where(and(eq(emailSends.mailboxId, mailboxId), sql`${emailSends.state} != 'failed'`, sql`${emailSends.at} >= ${from}`, lte(emailSends.at, to)))
    .orderBy(asc(emailSends.at))
    .all()
    .map((r) => r.at);
}

/** Every send of the mailbox that reached the server or is on its way, oldest first: what the auditor replays. */
export function mailboxSends(ctx: Db, mailboxId: string): number[] {
  return mailboxSendTimes(ctx, mailboxId, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
}

/** How many sends of the mailbox that reached the server (or are on their way) were planned on the UTC day holding `at` (sim-clock ms). */
export function mailboxSentOnDay(ctx: Db, mailboxId: string, at: number): number {
  return hot(ctx.db).sentOn.get(mailboxId, utcDay(at)) ?? 0;
}

export function lastSendAt(ctx: Db, mailboxId: string): number | null {
  return hot(ctx.db).lastSent.get(mailboxId) ?? null;
}

export function emailExclusion(ctx: Db, address: string): { reason: string; createdAt: number } | undefined {
  return hot(ctx.db).exclusion.get(address);
}

/** Adds the address to the list; an address already on it keeps its first reason. Returns whether it was new. */
export function addEmailExclusion(ctx: Db, address: string, reason: 'unsubscribed' | 'bounced', at: number): boolean {
  return ctx.db.insert(emailExclusions).values({ address, reason, createdAt: at }).onConflictDoNothing().run().changes === 1;
}

export function listEmailExclusions(ctx: Db): { address: string; reason: string; createdAt: number }[] {
  return ctx.db.select().from(emailExclusions).orderBy(asc(emailExclusions.createdAt), asc(emailExclusions.address)).all();
}

/** Leads whose email is this address (lower-cased compare), in any campaign. */
export function leadsWithEmail(ctx: Db, address: string): (typeof leads.$inferSelect)[] {
  return ctx.db.select().from(leads).where(sql`lower(${leads.email}) = ${address}`).all();
}

export function simMailDeliver(ctx: Db, mailboxId: string, visibleAt: number, raw: string): void {
  ctx.db.insert(simMail).values({ mailboxId, visibleAt, raw }).run();
}

/**
 * The simulated inbox's messages after `afterUid` that have arrived by `now`, in uid order. A
 * real server gives a message its UID when it arrives; the simulator writes a message when it is
 * sent, to arrive later (a reply in an hour, a bounce in a minute), so one written earlier may
 * arrive later. Such a message, not yet arrived while a later one has, gets a new uid past the
 * arrived ones, as its arrival would, so the reader's cursor never passes it and it never holds
 * the arrived ones back.
 */
export function simMailSince(ctx: Db, mailboxId: string, afterUid: number, now: number, limit: number): { uid: number; raw: string }[] {
  return transaction(ctx.db, () => {
    const after = and(eq(simMail.mailboxId, mailboxId), gt(simMail.uid, afterUid));
    const notYet = and(after, gt(simMail.visibleAt, now));
    // The first message not yet arrived (its uid only: the poller reads every simulated minute).
    const first = ctx.db.select({ uid: simMail.uid }).from(simMail).where(notYet).orderBy(asc(simMail.uid)).limit(1).get()?.uid;
    const overtaken =
      first !== undefined &&
      ctx.db
        .select({ uid: simMail.uid })
        .from(simMail)
        .where(and(after, gt(simMail.uid, first), lte(simMail.visibleAt, now)))
        .limit(1)
        .get() !== undefined;
    if (overtaken) {
      const waiting = ctx.db.select().from(simMail).where(notYet).orderBy(asc(simMail.visibleAt), asc(simMail.uid)).all();
      for (const r of waiting) {
        ctx.db.delete(simMail).where(eq(simMail.uid, r.uid)).run();
        ctx.db.insert(simMail).values({ mailboxId: r.mailboxId, visibleAt: r.visibleAt, raw: r.raw }).run();
      }
    }
    return ctx.db
      .select({ uid: simMail.uid, raw: simMail.raw })
      .from(simMail)
      .where(and(after, lte(simMail.visibleAt, now)))
      .orderBy(asc(simMail.uid))
      .limit(limit)
      .all();
  });
}

/** A lead's state on the email channel: its pinned mailbox, its first reply and first bounce; undefined before its first email step. */
export function leadEmailOf(ctx: Db, leadId: string): LeadEmailRow | undefined {
  return hot(ctx.db).leadEmailById.get(leadId);
}

/** Pins the lead's mailbox; a lead pinned already keeps its own. Returns the lead's mailbox. */
export function pinLeadMailbox(ctx: Db, leadId: string, mailboxId: string, at: number): string {
  if (hot(ctx.db).pin.run(leadId, mailboxId, at).changes === 1) return mailboxId;
  return leadEmailOf(ctx, leadId)?.mailboxId ?? mailboxId;
}

/** Records the lead's first reply to an email, or its first bounce (a later one keeps the first time). */
export function markLeadEmail(ctx: Db, leadId: string, mailboxId: string, what: 'repliedAt' | 'bouncedAt', at: number): void {
  hot(ctx.db).markLead[what].run({ leadId, mailboxId, at });
}

/** mailboxSentOnDay for several mailboxes at once; a mailbox with no send that day is left out. */
export function mailboxSentOnDays(ctx: Db, mailboxIds: readonly string[], at: number): Map<string, number> {
  const out = new Map<string, number>();
  if (mailboxIds.length === 0) return out;
  for (const r of hot(ctx.db).sentOnMany.all(JSON.stringify(mailboxIds), utcDay(at))) out.set(r.mailboxId, r.sent);
  return out;
}
