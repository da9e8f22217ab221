import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { columnsOf, perDb, quoted, selectList } from '../../db/prepared.js';
import { drafts, leads } from '../../db/schema.js';
import { leadStatements } from '../../db/sql/leads.js';
import { transaction } from '../../db/tx.js';
import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import { newSortableId } from '../ids.js';
import { recordLeadEvent } from '../webhooks/outbox.js';
import type { DraftKind, DraftStatus } from './rules.js';
import type { DraftLeadRow, DraftRow } from './view.js';

/**
 * The drafts table and its state machine. This module is the only one that reads or writes
 * `drafts` (a test holds every other module to that), so every change of a draft's status goes
 * through the transition table below, and every guard is repeated in the write itself: two
 * operators approving at once, or an edit racing the engine's send, change a draft once.
 *
 * Timestamps are wall time (`ctx.clock`), whoever writes: a draft is a work item for people,
 * and the engine's simulated clock may run far ahead of theirs.
 */

/** What can happen to a draft. */
export type DraftEvent =
  /** A person approved it (update_drafts, the dashboard, a view). */
  | 'approve'
  /** A person rejected it: the lead's sequence ends there. */
  | 'reject'
  /**
   * A person changed the words of an approved draft without approving them again: what goes
   * out must be what a person approved, so it waits for approval anew.
   */
  | 'edit'
  /** The campaign's approval was turned off: it is sent as it stands. */
  | 'release'
  /** The engine sent it. */
  | 'send';

export interface DraftTransition {
  event: DraftEvent;
  from: readonly DraftStatus[];
  to: DraftStatus;
  by: 'a person' | 'update_campaign' | 'outreach engine';
}

/** The one transition table. `sent` and `rejected` are final. */
export const DRAFT_TRANSITIONS: readonly DraftTransition[] = [
  { event: 'approve', from: ['pending'], to: 'approved', by: 'a person' },
  { event: 'reject', from: ['pending', 'approved'], to: 'rejected', by: 'a person' },
  { event: 'edit', from: ['approved'], to: 'pending', by: 'a person' },
  { event: 'release', from: ['pending'], to: 'approved', by: 'update_campaign' },
  { event: 'send', from: ['approved'], to: 'sent', by: 'outreach engine' },
];

const BY_EVENT = new Map(DRAFT_TRANSITIONS.map((t) => [t.event, t]));

/** The status after `event`, or null when the event does not apply to `status`. */
export function nextDraftStatus(status: string, event: DraftEvent): DraftStatus | null {
  const t = BY_EVENT.get(event);
  if (!t) throw new Error(`no transition for draft event ${event}`);
  return (t.from as readonly string[]).includes(status) ? t.to : null;
}

/** A draft to create: its slot makes it unique for the lead (`step:<stepId>` or `reply:<n>`). */
export interface NewDraft {
  campaignId: string;
  leadId: string;
  stepId: string | null;
  slot: string;
  variant: string | null;
  kind: DraftKind;
  accountId: string | null;
  subject: string | null;
  text: string;
  renderedSubject: string | null;
  renderedText: string;
  drafterError: string | null;
}

/*
 * The hot statements in SQL on better-sqlite3's `prepare`, with the schema's column names
 * (`selectList`): the engine creates and reads drafts per send, the queue pages them. drafts has
 * no boolean column, so its rows need no decoding. Limits are `LIMIT (SELECT ?)` and statuses
 * written in, so SQLite does not plan the statement again on every call.
 */
type NewDraftRow = NewDraft & { id: string; status: DraftStatus; now: number };

const DRAFT = selectList(drafts);
const statements = perDb((db) => {
  const c = db.$client;
  return {
    byId: c.prepare<[{ id: string }], DraftRow>(`SELECT ${DRAFT} FROM drafts WHERE id = @id`),
    bySlot: c.prepare<[{ leadId: string; slot: string }], DraftRow>(`SELECT ${DRAFT} FROM drafts WHERE lead_id = @leadId AND slot = @slot`),
    bySeq: c.prepare<[{ seq: number }], { seq: number }>('SELECT seq FROM drafts WHERE seq = @seq'),
    otherPending: c.prepare<[{ campaignId: string; id: string }], { seq: number }>(
      "SELECT seq FROM drafts WHERE campaign_id = @campaignId AND status = 'pending' AND id <> @id LIMIT 1",
    ),
    approval: c.prepare<[{ campaignId: string }], { approval: string }>('SELECT approval FROM campaigns WHERE id = @campaignId'),
    /**
     * Every change a person makes, guarded: the draft must still be in the status the change was
     * judged against, and not on the wire. A race lost is 0 rows changed, never a wrong change.
     */
    change: c.prepare<[DraftChange & { id: string; from: DraftStatus; now: number }]>(
      `UPDATE drafts SET text = @text, subject = @subject, status = @status, updated_at = @now
       WHERE id = @id AND status = @from AND sending_intent_id IS NULL`,
    ),
    insert: c.prepare<[NewDraftRow]>(
      `INSERT INTO drafts (id, campaign_id, lead_id, step_id, slot, variant, kind, account_id, subject, text, rendered_subject, rendered_text,
         status, drafter_error, created_at, updated_at)
       VALUES (@id, @campaignId, @leadId, @stepId, @slot, @variant, @kind, @accountId, @subject, @text, @renderedSubject, @renderedText,
         @status, @drafterError, @now, @now)`,
    ),
    pendingCounts: c.prepare<[], { campaignId: string; pending: number }>(
      "SELECT campaign_id AS campaignId, count(*) AS pending FROM drafts WHERE status = 'pending' GROUP BY campaign_id",
    ),
  };
});

export const findDraftRow = (ctx: Ctx, id: string): DraftRow | undefined => statements(ctx.db).byId.get({ id });

/** The lead's draft for a slot, whatever its status. */
export const draftRowAt = (ctx: Ctx, leadId: string, slot: string): DraftRow | undefined => statements(ctx.db).bySlot.get({ leadId, slot });

/** Whether a draft with this list position still exists (a cursor's row). */
export const draftSeqExists = (ctx: Ctx, seq: number): boolean => statements(ctx.db).bySeq.get({ seq }) !== undefined;

/**
 * Creates the lead's draft for a slot, or returns the one it has: one draft per lead and step,
 * however often the engine comes back to the step. A draft enters the queue `pending`; in a
 * campaign whose approval is off by now (turned off while the draft was being written) it is
 * `approved` at once, as the drafts pending at that moment were. The first pending draft of a
 * campaign's empty queue records a `draft.pending` event in the same transaction.
 */
export function insertDraft(ctx: Ctx, draft: NewDraft): { row: DraftRow; created: boolean } {
  return transaction(ctx.db, () => {
    const st = statements(ctx.db);
    const existing = st.bySlot.get({ leadId: draft.leadId, slot: draft.slot });
    if (existing) return { row: existing, created: false };
    const approval = st.approval.get({ campaignId: draft.campaignId })?.approval ?? 'off';
    const status: DraftStatus = approval === 'required' ? 'pending' : 'approved';
    const id = newSortableId('drf', ctx.clock.now());
    st.insert.run({ ...draft, id, status, now: ctx.clock.now() });
    const row = st.byId.get({ id }) as DraftRow;
    if (status === 'pending') announceIfFirstPending(ctx, row);
    return { row, created: true };
  });
}

/** A `draft.pending` event when this pending draft is the only one of its campaign: the queue was empty. */
function announceIfFirstPending(ctx: Ctx, row: DraftRow): void {
  const st = statements(ctx.db);
  if (st.otherPending.get({ campaignId: row.campaignId, id: row.id }) !== undefined) return;
  const lead = leadStatements(ctx.db).byId.get(row.leadId);
  if (!lead) return;
  const draft = { id: row.id, stepId: row.stepId, kind: row.kind, variant: row.variant, createdAt: iso(row.createdAt) };
  recordLeadEvent(ctx, 'draft.pending', lead, { draft }, row.accountId);
}

export interface DraftChange {
  text: string;
  subject: string | null;
  status: DraftStatus;
}

/**
 * Writes a person's change to a draft judged in status `from`: new text, subject and status
 * (the same status when only the words change). False when the draft moved on meanwhile
 * (another operator, the engine), so the caller can answer with what it is now.
 */
export function changeDraft(ctx: Ctx, id: string, from: DraftStatus, change: DraftChange): boolean {
  if (change.status !== from) {
    const event: DraftEvent = change.status === 'approved' ? 'approve' : change.status === 'rejected' ? 'reject' : 'edit';
    if (nextDraftStatus(from, event) !== change.status) throw new Error(`draft ${id}: ${from} → ${change.status} is not a transition`);
  }
  const st = statements(ctx.db);
  if (st.change.run({ id, from, ...change, now: ctx.clock.now() }).changes !== 1) return false;
  if (change.status === 'pending' && from !== 'pending') announceIfFirstPending(ctx, st.byId.get({ id }) as DraftRow);
  return true;
}

/** Approval turned off: every pending draft of the campaign is approved as it stands. Returns how many. */
export function releasePendingDrafts(ctx: Ctx, campaignId: string): number {
  return ctx.db
    .update(drafts)
    .set({ status: 'approved', updatedAt: ctx.clock.now() })
    .where(and(eq(drafts.campaignId, campaignId), eq(drafts.status, 'pending')))
    .run().changes;
}

/**
 * The engine takes an approved draft for a send: from here until `markDraftSent` or
 * `releaseDraftClaim`, nobody can change it, so the words sent are the words approved. Null
 * when the draft is not (or no longer) approved, or another send holds it.
 */
export function claimDraftRow(ctx: Ctx, id: string, intentId: string): DraftRow | null {
  const changed = ctx.db
    .update(drafts)
    .set({ sendingIntentId: intentId })
    .where(and(eq(drafts.id, id), eq(drafts.status, 'approved'), sql`${drafts.sendingIntentId} IS NULL`))
    .run().changes;
  return changed === 1 ? (findDraftRow(ctx, id) ?? null) : null;
}

/** The send of a claimed draft went out: it is `sent`, once. False when this intent does not hold it. */
export function markDraftRowSent(ctx: Ctx, id: string, intentId: string, at: number): boolean {
  return (
    ctx.db
      .update(drafts)
      .set({ status: 'sent', sentAt: at, sendingIntentId: null, updatedAt: ctx.clock.now() })
      .where(and(eq(drafts.id, id), eq(drafts.status, 'approved'), eq(drafts.sendingIntentId, intentId)))
      .run().changes === 1
  );
}

/** The send of a claimed draft did not go out: the draft is free again (still approved). */
export function releaseDraftRowClaim(ctx: Ctx, id: string, intentId: string): boolean {
  return (
    ctx.db
      .update(drafts)
      .set({ sendingIntentId: null })
      .where(and(eq(drafts.id, id), eq(drafts.sendingIntentId, intentId)))
      .run().changes === 1
  );
}

/** A deleted lead takes its drafts with it. */
export function forgetDrafts(ctx: Ctx, leadId: string): void {
  ctx.db.delete(drafts).where(eq(drafts.leadId, leadId)).run();
}

export interface DraftPageFilter {
  campaignId?: string | undefined;
  status?: DraftStatus | undefined;
}

export type DraftListRow = DraftRow & { lead: DraftLeadRow };

/** The lead's fields a queue item shows, as `l_<key>` beside the draft's columns. */
const LEAD_FIELDS = [
  'fullName',
  'firstName',
  'lastName',
  'jobTitle',
  'companyName',
  'headline',
  'location',
  'personalization',
  'networkUrl',
] as const satisfies readonly (keyof DraftLeadRow)[];
const LEAD_COLUMNS = columnsOf(leads).filter((c) => (LEAD_FIELDS as readonly string[]).includes(c.key));
const LEAD_SELECT = LEAD_COLUMNS.map((c) => `l.${quoted(c.name)} AS ${quoted(`l_${c.key}`)}`).join(', ');
/** Last selected first: V8 keeps an object fast when the properties it loses are its newest. */
const LEAD_KEYS_NEWEST_FIRST = LEAD_COLUMNS.map((c) => c.key).reverse();

/** Splits a page row into the draft and its lead (the lead's fields come last, prefixed `l_`). */
function pageRow(row: Record<string, unknown>): DraftListRow {
  const lead: Record<string, unknown> = {};
  for (const k of LEAD_KEYS_NEWEST_FIRST) {
    lead[k] = row[`l_${k}`];
    delete row[`l_${k}`];
  }
  return Object.assign(row as unknown as DraftRow, { lead: lead as unknown as DraftLeadRow });
}

type PageParams = { after: number; limit: number; campaignId?: string; status?: string };

/** One statement per filter shape (campaign given or not, status given or not), each on its own index. */
function preparePage(db: Db, byCampaign: boolean, byStatus: boolean) {
  const conds = ['d.seq > @after'];
  if (byCampaign) conds.push('d.campaign_id = @campaignId');
  if (byStatus) conds.push('d.status = @status');
  return db.$client.prepare<[PageParams], Record<string, unknown>>(
    `SELECT ${selectList(drafts, 'd')}, ${LEAD_SELECT} FROM drafts d JOIN leads l ON l.id = d.lead_id
     WHERE ${conds.join(' AND ')} ORDER BY d.seq LIMIT (SELECT @limit)`,
  );
}

const pageStatements = perDb((db) => ({
  none: preparePage(db, false, false),
  campaign: preparePage(db, true, false),
  status: preparePage(db, false, true),
  both: preparePage(db, true, true),
}));

/** Drafts after list position `after` (0 for the first page), oldest first, each with its lead. */
export function draftPage(ctx: Ctx, filter: DraftPageFilter, after: number, limit: number): DraftListRow[] {
  const st = pageStatements(ctx.db);
  const { campaignId, status } = filter;
  const rows =
    campaignId !== undefined
      ? status !== undefined
        ? st.both.all({ after, limit, campaignId, status })
        : st.campaign.all({ after, limit, campaignId })
      : status !== undefined
        ? st.status.all({ after, limit, status })
        : st.none.all({ after, limit });
  return rows.map(pageRow);
}

/** Pending drafts per campaign (campaigns with none are left out). */
export const pendingDraftCounts = (ctx: Ctx): { campaignId: string; pending: number }[] => statements(ctx.db).pendingCounts.all();
