import { and, asc, count, desc, eq, isNotNull, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { campaigns, conversations, leads, messages } from '../../db/schema.js';
import { perDb } from '../../db/prepared.js';
import { messageStatements } from '../../db/sql/messages.js';
import type { Ctx } from '../context.js';

/*
 * SQL of threads and their messages: the inbox's page of threads and a thread's messages, the
 * triage's writes on a thread's row (its suggestion and the model's queue), and the delete of a
 * lead's thread.
 */

export interface StoredSuggestion {
  tag: string;
  suggestedBy: string;
  confidence: number;
  reason: string | null;
  /** Sim-clock ms. */
  at: number;
}

/**
 * Stores a thread's suggestion (replacing any earlier one) and takes it off the model's queue:
 * a suggestion for the newest reply leaves the model nothing to add. False when the lead has no
 * thread.
 */
export function writeSuggestion(ctx: Ctx, leadId: string, s: StoredSuggestion): boolean {
  const r = ctx.db
    .update(conversations)
    .set({
      suggestedTag: s.tag,
      suggestedBy: s.suggestedBy,
      suggestedConfidence: s.confidence,
      suggestedReason: s.reason,
      suggestedAt: s.at,
      triagePendingAt: null,
      triageLeaseUntil: null,
    })
    .where(eq(conversations.leadId, leadId))
    .run();
  return r.changes > 0;
}

/** Puts the thread's newest reply (its time, sim ms) on the model's queue. */
export function markTriagePending(ctx: Ctx, leadId: string, at: number): void {
  ctx.db.update(conversations).set({ triagePendingAt: at, triageLeaseUntil: null }).where(eq(conversations.leadId, leadId)).run();
}

export interface TriageClaim {
  leadId: string;
  pendingAt: number;
}

/**
 * Leases up to `limit` threads waiting for the model, oldest reply first, until `leaseUntil`
 * (wall ms): another process leaves them alone meanwhile, and takes them after a crash. Call in
 * a transaction.
 */
export function claimTriagePending(ctx: Ctx, now: number, leaseUntil: number, limit: number): TriageClaim[] {
  const rows = ctx.db
    .select({ leadId: conversations.leadId, pendingAt: conversations.triagePendingAt })
    .from(conversations)
    .where(and(isNotNull(conversations.triagePendingAt), or(isNull(conversations.triageLeaseUntil), lt(conversations.triageLeaseUntil, now))))
    .orderBy(asc(conversations.triagePendingAt))
    .limit(limit)
    .all();
  for (const r of rows) ctx.db.update(conversations).set({ triageLeaseUntil: leaseUntil }).where(eq(conversations.leadId, r.leadId)).run();
  return rows.map((r) => ({ leadId: r.leadId, pendingAt: r.pendingAt ?? 0 }));
}

/**
 * Whether the thread still waits on the reply `pendingAt` (a newer reply put it back on the
 * queue with its own time, and the model is asked again about that one).
 */
export function stillPending(ctx: Ctx, leadId: string, pendingAt: number): boolean {
  const row = ctx.db.select({ at: conversations.triagePendingAt }).from(conversations).where(eq(conversations.leadId, leadId)).get();
  return row?.at === pendingAt;
}

/** Takes the thread off the model's queue when it still waits on `pendingAt` (the model failed, or had no answer). */
export function dropTriagePending(ctx: Ctx, leadId: string, pendingAt: number): void {
  ctx.db
    .update(conversations)
    .set({ triagePendingAt: null, triageLeaseUntil: null })
    .where(and(eq(conversations.leadId, leadId), eq(conversations.triagePendingAt, pendingAt)))
    .run();
}

/** When the lead last wrote (sim ms): 0 while it never has, null when it has no thread at all. */
export function lastInboundAtOf(ctx: Pick<Ctx, 'db'>, leadId: string): number | null {
  const row = ctx.db.select({ at: conversations.lastInboundAt }).from(conversations).where(eq(conversations.leadId, leadId)).get();
  return row ? row.at : null;
}

/** The thread's stored suggestion, or null. */
export function readSuggestion(ctx: Ctx, leadId: string): StoredSuggestion | null {
  const row = ctx.db
    .select({
      tag: conversations.suggestedTag,
      suggestedBy: conversations.suggestedBy,
      confidence: conversations.suggestedConfidence,
      reason: conversations.suggestedReason,
      at: conversations.suggestedAt,
    })
    .from(conversations)
    .where(eq(conversations.leadId, leadId))
    .get();
  if (!row || row.tag === null || row.suggestedBy === null) return null;
  return { tag: row.tag, suggestedBy: row.suggestedBy, confidence: row.confidence ?? 0, reason: row.reason, at: row.at ?? 0 };
}

/** A stored message as the triage model and the CRM sync read it. */
export interface ThreadMessage {
  direction: string;
  sender: string;
  text: string;
  at: number;
  channel: string;
  accountId: string | null;
}

/** Prepared once per connection: the CRM sync reads it on each lead's first reply, in the engine's send. */
const newest = perDb((db) =>
  db
    .select({
      direction: messages.direction,
      sender: messages.sender,
      text: messages.text,
      at: messages.at,
      channel: messages.channel,
      accountId: messages.accountId,
    })
    .from(messages)
    .where(eq(messages.leadId, sql.placeholder('leadId')))
    .orderBy(desc(messages.at), desc(messages.seq))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/**
 * A thread's newest `limit` messages, oldest first: what the triage model reads of a thread and
 * what the CRM sync's first contact carries as notes.
 */
export function newestMessages(ctx: Ctx, leadId: string, limit: number): ThreadMessage[] {
  return newest(ctx.db).all({ leadId, limit }).reverse();
}

/**
 * Whether the lead's thread already holds a message from the lead with this provider id: a
 * mailbox read again from the start (its UIDVALIDITY changed, or its cursor was reset) hands
 * back replies already recorded.
 */
export function hasInboundMessage(ctx: Pick<Ctx, 'db'>, leadId: string, externalId: string): boolean {
  return messageStatements(ctx.db).hasInbound.get(leadId, externalId) !== undefined;
}

/** Prepared once per connection: read when a lead event has neither the lead's account nor a chat's to name. */
const chatAccount = perDb((db) =>
  db
    .select({ accountId: messages.accountId })
    .from(messages)
    .where(and(eq(messages.leadId, sql.placeholder('leadId')), eq(messages.channel, 'linkedin'), isNotNull(messages.accountId)))
    .orderBy(desc(messages.at), desc(messages.seq))
    .limit(1)
    .prepare(),
);

/** The account of the lead's LinkedIn chat (its newest message's), or null when it has none. */
export function linkedInChatAccountOf(ctx: Pick<Ctx, 'db'>, leadId: string): string | null {
  return chatAccount(ctx.db).get({ leadId })?.accountId ?? null;
}

/** Messages stored for a lead. */
export const messageCount = (ctx: Pick<Ctx, 'db'>, leadId: string): number =>
  ctx.db.select({ n: count() }).from(messages).where(eq(messages.leadId, leadId)).get()?.n ?? 0;

/** A thread's email messages, oldest first, with the ids a reply threads by (Message-IDs) and the mailbox each went through. */
export function emailMessagesOf(ctx: Pick<Ctx, 'db'>, leadId: string): { sender: string; externalId: string | null; accountId: string | null; at: number }[] {
  return ctx.db
    .select({ sender: messages.sender, externalId: messages.externalId, accountId: messages.accountId, at: messages.at })
    .from(messages)
    .where(and(eq(messages.leadId, leadId), eq(messages.channel, 'email')))
    .orderBy(asc(messages.at), asc(messages.seq))
    .all();
}

/** Who sent each of a thread's messages and on which channel, oldest first: what picks a reply's channel. */
export function messageChannelsOf(ctx: Pick<Ctx, 'db'>, leadId: string): { sender: string; channel: string }[] {
  return ctx.db
    .select({ sender: messages.sender, channel: messages.channel })
    .from(messages)
    .where(eq(messages.leadId, leadId))
    .orderBy(asc(messages.at), asc(messages.seq))
    .all();
}

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;

/** Which threads an inbox page holds: by the lead's state, campaign and suggestion, within a reach. */
export interface ConversationPageQuery {
  /** Threads whose lead needs a reply, those handed off, or all. */
  filter: 'needs_reply' | 'handed_off' | 'all';
  campaignId?: string | undefined;
  suggestedTag?: string | undefined;
  /** The call's reach, a condition on the campaign id column (undefined for all). */
  reach: (column: typeof conversations.campaignId) => SQL | undefined;
  /** The cursor's thread (its newest inbound time and seq): only threads after it. */
  after?: { inbound: number; seq: number } | undefined;
  limit: number;
}

const FILTER_CONDITION: Record<ConversationPageQuery['filter'], SQL | undefined> = {
  needs_reply: eq(leads.needsReply, true),
  handed_off: eq(leads.stage, 'handed_off'),
  all: undefined,
};

/**
 * Up to `limit` threads with their lead and campaign name, newest inbound message first, then
 * newest thread; threads of deleted leads are left out.
 */
export function conversationPageRows(
  ctx: Pick<Ctx, 'db'>,
  q: ConversationPageQuery,
): { c: ConversationRow; lead: typeof leads.$inferSelect; campaignName: string | null }[] {
  const after = q.after
    ? or(lt(conversations.lastInboundAt, q.after.inbound), and(eq(conversations.lastInboundAt, q.after.inbound), lt(conversations.seq, q.after.seq)))
    : undefined;
  return ctx.db
    .select({ c: conversations, lead: leads, campaignName: campaigns.name })
    .from(conversations)
    .innerJoin(leads, eq(leads.id, conversations.leadId))
    .leftJoin(campaigns, eq(campaigns.id, conversations.campaignId))
    .where(
      and(
        FILTER_CONDITION[q.filter],
        q.campaignId ? eq(conversations.campaignId, q.campaignId) : undefined,
        q.suggestedTag ? eq(conversations.suggestedTag, q.suggestedTag) : undefined,
        q.reach(conversations.campaignId),
        after,
      ),
    )
    .orderBy(desc(conversations.lastInboundAt), desc(conversations.seq))
    .limit(q.limit)
    .all();
}

/** Every message stored for a lead, oldest first. */
export const threadMessages = (ctx: Pick<Ctx, 'db'>, leadId: string): MessageRow[] =>
  ctx.db.select().from(messages).where(eq(messages.leadId, leadId)).orderBy(asc(messages.at), asc(messages.seq)).all();

/** Deletes a lead's messages and its thread. */
export function deleteThreadOf(ctx: Pick<Ctx, 'db'>, leadId: string): void {
  ctx.db.delete(messages).where(eq(messages.leadId, leadId)).run();
  ctx.db.delete(conversations).where(eq(conversations.leadId, leadId)).run();
}
