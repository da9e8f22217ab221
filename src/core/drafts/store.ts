import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { asDraftsWriter } from '../../db/drafts-writer.js';
import { perDb, rawByName } from '../../db/prepared.js';
import { drafts } from '../../db/schema.js';
import { leadStatements, type LeadRow as LeadRowOf } from '../../db/sql/leads.js';
import { transaction } from '../../db/tx.js';
import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import { reachesCampaign } from '../auth/scope.js';
import { newSortableId } from '../ids.js';
import { anyoneListening, noteChange } from '../live/feed.js';
import { recordLeadEvent } from '../webhooks/outbox.js';
import type { DraftKind, DraftStatus } from './rules.js';
import type { DraftLeadRow, DraftRow } from './view.js';
import { currentActor } from '../audit/scope.js';

/**
 * The drafts table and its state machine. This module is the only one that can write `drafts`,
 * by construction: SQLite refuses an insert, change or delete of a draft unless the gate of
 * src/db/drafts-writer.ts is open, and only this module may import it (dependency rule
 * `drafts-writer`). That refusal is all the database decides. The state machine is written
 * once, here: every change of a draft's status goes through the transition table below, and each
 * write's guard (the statuses it may start from) is read from that table and checked in the write
 * itself, so two operators approving at once, or an edit racing the engine's send, change a draft
 * once. The other rules of a draft live in its writes too: a draft starts at revision 1 with no
 * skip reason, new words move the revision by one, and only a skipped draft has a reason.
 *
 * A decision (approve, reject, release) hands the lead back to the engine: the writes that decide
 * return the leads decided, and their callers call `wakeDecidedLeads` (src/core/outreach/wake.ts).
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
  | 'send'
  /**
   * Its step can no longer be sent (the lead replied, the step was removed, the sender lost
   * Sales Navigator, the campaign's agent changed, the provider refused it): it ends `skipped`,
   * with why, and the lead goes on as after any skipped step.
   */
  | 'skip';

export interface DraftTransition {
  event: DraftEvent;
  from: readonly DraftStatus[];
  to: DraftStatus;
  by: 'a person' | 'update_campaign' | 'outreach engine';
}

/** The one transition table. `sent`, `rejected` and `skipped` are final. */
export const DRAFT_TRANSITIONS: readonly DraftTransition[] = [
  { event: 'approve', from: ['pending'], to: 'approved', by: 'a person' },
  { event: 'reject', from: ['pending', 'approved'], to: 'rejected', by: 'a person' },
  { event: 'edit', from: ['approved'], to: 'pending', by: 'a person' },
  { event: 'release', from: ['pending'], to: 'approved', by: 'update_campaign' },
  { event: 'send', from: ['approved'], to: 'sent', by: 'outreach engine' },
  { event: 'skip', from: ['pending', 'approved'], to: 'skipped', by: 'outreach engine' },
];

const BY_EVENT = new Map(DRAFT_TRANSITIONS.map((t) => [t.event, t]));

/** The statuses `event` applies to. */
const fromOf = (event: DraftEvent): readonly DraftStatus[] => (BY_EVENT.get(event) as DraftTransition).from;

/** The same, as an SQL list written into a statement (`'pending', 'approved'`): each write's guard is read from the table above. */
const fromSql = (event: DraftEvent): string =>
  fromOf(event)
    .map((s) => `'${s}'`)
    .join(', ');

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
 * The hot statements in SQL on better-sqlite3's `prepare`: the engine creates and reads drafts
 * per send, the queue pages them, an approval reads and changes one. The reads take their rows
 * as arrays, each column found by its name in the statement (`rawByName`), and map them by name
 * into one object literal (`draftOf`): the row object better-sqlite3 would build key by key is a
 * slow dictionary object, and for a page of drafts with their leads it cost as much as the query.
 * Limits are `LIMIT (SELECT ?)` and statuses written in, so SQLite does not plan a statement
 * again on every call. test/drafts/statements.test.ts checks every read against the query builder.
 */
const DRAFT_NAMES = [
  'seq',
  'id',
  'campaign_id',
  'lead_id',
  'step_id',
  'slot',
  'variant',
  'kind',
  'account_id',
  'subject',
  'text',
  'rendered_subject',
  'rendered_text',
  'status',
  'drafter_error',
  'sending_intent_id',
  'sent_at',
  'created_at',
  'updated_at',
  'revision',
  'skip_reason',
  'approved_at',
  'decided_by_type',
  'decided_by_id',
  'decided_by_name',
] as const;
const LEAD_NAMES = ['full_name', 'first_name', 'last_name', 'job_title', 'company_name', 'headline', 'location', 'personalization', 'network_url'] as const;
const DRAFT_COLUMNS = DRAFT_NAMES.map((n) => `d.${n}`).join(', ');
const DRAFT_LEAD_COLUMNS = LEAD_NAMES.map((n) => `l.${n}`).join(', ');
type DraftAt = Readonly<Record<(typeof DRAFT_NAMES)[number], number>>;
type DraftLeadAt = DraftAt & Readonly<Record<(typeof LEAD_NAMES)[number], number>>;

function draftOf(r: unknown[], at: DraftAt): DraftRow {
  return {
    seq: r[at.seq] as number,
    id: r[at.id] as string,
    campaignId: r[at.campaign_id] as string,
    leadId: r[at.lead_id] as string,
    stepId: r[at.step_id] as string | null,
    slot: r[at.slot] as string,
    variant: r[at.variant] as string | null,
    kind: r[at.kind] as string,
    accountId: r[at.account_id] as string | null,
    subject: r[at.subject] as string | null,
    text: r[at.text] as string,
    renderedSubject: r[at.rendered_subject] as string | null,
    renderedText: r[at.rendered_text] as string,
    status: r[at.status] as string,
    drafterError: r[at.drafter_error] as string | null,
    sendingIntentId: r[at.sending_intent_id] as string | null,
    sentAt: r[at.sent_at] as number | null,
    createdAt: r[at.created_at] as number,
    updatedAt: r[at.updated_at] as number,
    revision: r[at.revision] as number,
    skipReason: r[at.skip_reason] as string | null,
    approvedAt: r[at.approved_at] as number | null,
    decidedByType: r[at.decided_by_type] as string | null,
    decidedById: r[at.decided_by_id] as string | null,
    decidedByName: r[at.decided_by_name] as string | null,
  };
}

function draftWithLeadOf(r: unknown[], at: DraftLeadAt): DraftListRow {
  const row = draftOf(r, at) as DraftListRow;
  row.lead = {
    fullName: r[at.full_name] as string | null,
    firstName: r[at.first_name] as string | null,
    lastName: r[at.last_name] as string | null,
    jobTitle: r[at.job_title] as string | null,
    companyName: r[at.company_name] as string | null,
    headline: r[at.headline] as string | null,
    location: r[at.location] as string | null,
    personalization: r[at.personalization] as string | null,
    networkUrl: r[at.network_url] as string | null,
  };
  return row;
}

type NewDraftRow = NewDraft & { id: string; status: DraftStatus; now: number; approvedAt: number | null };

const statements = perDb((db) => {
  const c = db.$client;
  const byId = rawByName(c.prepare<[string]>(`SELECT ${DRAFT_COLUMNS} FROM drafts d WHERE d.id = ?`), DRAFT_NAMES);
  const bySlot = rawByName(c.prepare<[string, string]>(`SELECT ${DRAFT_COLUMNS} FROM drafts d WHERE d.lead_id = ? AND d.slot = ?`), DRAFT_NAMES);
  return {
    byId: (id: string): DraftRow | undefined => {
      const r = byId.stmt.get(id);
      return r === undefined ? undefined : draftOf(r, byId.at);
    },
    bySlot: (leadId: string, slot: string): DraftRow | undefined => {
      const r = bySlot.stmt.get(leadId, slot);
      return r === undefined ? undefined : draftOf(r, bySlot.at);
    },
    bySeq: c.prepare<[number], number>('SELECT seq FROM drafts WHERE seq = ?').pluck(),
    anyOfCampaign: c.prepare<[string], number>('SELECT seq FROM drafts WHERE campaign_id = ? LIMIT 1').pluck(),
    otherPending: c.prepare<[string, string], number>("SELECT seq FROM drafts WHERE campaign_id = ? AND status = 'pending' AND id <> ? LIMIT 1").pluck(),
    approval: c.prepare<[string], string>('SELECT approval FROM campaigns WHERE id = ?').pluck(),
    /**
     * Every change a person makes, guarded (compare-and-set): the draft must still be in the
     * status and at the revision the change was judged against, and not on the wire. New words
     * move the revision by one. A race lost is 0 rows changed, never a wrong change.
     * `decided_by_*` names whoever last let these words out: the caller when the draft becomes
     * approved or rejected, or stays approved with new words; nobody once it waits again (pending).
     */
    change: c.prepare<
      [
        {
          text: string;
          subject: string | null;
          status: string;
          now: number;
          sim: number;
          id: string;
          from: string;
          revision: number;
          byType: string | null;
          byId: string | null;
          byName: string | null;
        },
      ]
    >(
      `UPDATE drafts SET text = @text, subject = @subject, status = @status, updated_at = @now,
         revision = revision + (CASE WHEN text IS NOT @text OR subject IS NOT @subject THEN 1 ELSE 0 END),
         approved_at = CASE WHEN @status <> 'approved' THEN NULL WHEN status <> 'approved' THEN @sim ELSE approved_at END,
         decided_by_type = CASE WHEN @status = 'pending' THEN NULL WHEN @status IN ('approved', 'rejected') AND (status <> @status OR text IS NOT @text OR subject IS NOT @subject) THEN @byType ELSE decided_by_type END,
         decided_by_id = CASE WHEN @status = 'pending' THEN NULL WHEN @status IN ('approved', 'rejected') AND (status <> @status OR text IS NOT @text OR subject IS NOT @subject) THEN @byId ELSE decided_by_id END,
         decided_by_name = CASE WHEN @status = 'pending' THEN NULL WHEN @status IN ('approved', 'rejected') AND (status <> @status OR text IS NOT @text OR subject IS NOT @subject) THEN @byName ELSE decided_by_name END
       WHERE id = @id AND status = @from AND revision = @revision AND sending_intent_id IS NULL`,
    ),
    /** A draft whose step can no longer be sent ends skipped (not one on the wire). */
    skip: c.prepare<[{ id: string; reason: string; now: number }]>(
      `UPDATE drafts SET status = 'skipped', skip_reason = @reason, updated_at = @now
       WHERE id = @id AND status IN (${fromSql('skip')}) AND sending_intent_id IS NULL`,
    ),
    /** A claimed draft whose send the provider refused (no words went out) ends skipped. */
    skipClaimed: c.prepare<[{ id: string; reason: string; now: number; intentId: string }]>(
      `UPDATE drafts SET status = 'skipped', skip_reason = @reason, sending_intent_id = NULL, updated_at = @now
       WHERE id = @id AND status IN (${fromSql('send')}) AND sending_intent_id = @intentId`,
    ),
    /** The lead's open step drafts (pending or approved, not on the wire): the engine's check that each still has a step to wait at. */
    openReplyDrafts: c
      .prepare<[string], string>(
        `SELECT id FROM drafts WHERE lead_id = ? AND slot >= 'reply:' AND slot < 'reply;'
           AND status IN ('pending', 'approved') AND sending_intent_id IS NULL`,
      )
      .pluck(),
    openStepDrafts: c.prepare<[string], OpenStepDraft>(
      `SELECT id, step_id AS stepId, kind FROM drafts WHERE lead_id = ? AND slot >= 'step:' AND slot < 'step;'
         AND status IN ('pending', 'approved') AND sending_intent_id IS NULL`,
    ),
    /**
     * The open drafts (a step's or the agent's reply, pending or approved, not on the wire), each
     * with its lead, campaign, step (null for a reply) and kind, of one lead or of every lead with
     * a profile URL (an exclusion reaches every lead with it, in every campaign): by `leads_url`,
     * then each lead's slots in `drafts_lead_slot`.
     */
    openDraftsOfLead: c.prepare<[string], OpenDraft>(
      `SELECT id, lead_id AS leadId, campaign_id AS campaignId, step_id AS stepId, kind FROM drafts
       WHERE lead_id = ? AND ((slot >= 'step:' AND slot < 'step;') OR (slot >= 'reply:' AND slot < 'reply;'))
         AND status IN (${fromSql('skip')}) AND sending_intent_id IS NULL`,
    ),
    openDraftsAtUrl: c.prepare<[string], OpenDraft>(
      `SELECT d.id, d.lead_id AS leadId, d.campaign_id AS campaignId, d.step_id AS stepId, d.kind FROM leads l CROSS JOIN drafts d ON d.lead_id = l.id
       WHERE l.network_url = ? AND ((d.slot >= 'step:' AND d.slot < 'step;') OR (d.slot >= 'reply:' AND d.slot < 'reply;'))
         AND d.status IN (${fromSql('skip')}) AND d.sending_intent_id IS NULL`,
    ),
    insert: c.prepare<[NewDraftRow]>(
      `INSERT INTO drafts (id, campaign_id, lead_id, step_id, slot, variant, kind, account_id, subject, text, rendered_subject, rendered_text,
         status, drafter_error, created_at, updated_at, approved_at)
       VALUES (@id, @campaignId, @leadId, @stepId, @slot, @variant, @kind, @accountId, @subject, @text, @renderedSubject, @renderedText,
         @status, @drafterError, @now, @now, @approvedAt)`,
    ),
    /**
     * Campaign by campaign, each a count inside the covering index (campaign_id, status, seq):
     * grouping the pending rows of drafts_status read every row of the table for its campaign
     * and sorted them (38 ms against 10 ms at 70,000 pending).
     */
    pendingCounts: c.prepare<[], { campaignId: string; pending: number }>(
      `SELECT c.id AS campaignId, count(*) AS pending FROM campaigns c
       CROSS JOIN drafts d INDEXED BY drafts_campaign_status ON d.campaign_id = c.id AND d.status = 'pending'
       GROUP BY c.id ORDER BY c.id`,
    ),
  };
});

/** The draft, or undefined when there is none or its campaign is out of the call's reach (a key held to other campaigns). */
export function findDraftRow(ctx: Ctx, id: string): DraftRow | undefined {
  const row = statements(ctx.db).byId(id);
  return row && reachesCampaign(ctx, row.campaignId) ? row : undefined;
}

/** The lead's draft for a slot, whatever its status. */
export const draftRowAt = (ctx: Ctx, leadId: string, slot: string): DraftRow | undefined => statements(ctx.db).bySlot(leadId, slot);

/** Whether the campaign has any draft (the engine looks drafts up only in a campaign that may have one). */
export const campaignHasDrafts = (ctx: Pick<Ctx, 'db'>, campaignId: string): boolean => statements(ctx.db).anyOfCampaign.get(campaignId) !== undefined;

/** Whether a draft with this list position still exists (a cursor's row). */
export const draftSeqExists = (ctx: Ctx, seq: number): boolean => statements(ctx.db).bySeq.get(seq) !== undefined;

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
    const existing = st.bySlot(draft.leadId, draft.slot);
    if (existing) return { row: existing, created: false };
    const approval = st.approval.get(draft.campaignId) ?? 'off';
    const status: DraftStatus = approval === 'required' ? 'pending' : 'approved';
    const id = newSortableId('drf', ctx.clock.now());
    const approvedAt = status === 'approved' ? ctx.simClock.now() : null;
    asDraftsWriter(ctx.db.$client, () => st.insert.run({ ...draft, id, status, now: ctx.clock.now(), approvedAt }));
    const row = st.byId(id) as DraftRow;
    if (status === 'pending') announceIfFirstPending(ctx, row);
    noteChange(ctx, { resource: 'drafts', campaignId: row.campaignId });
    return { row, created: true };
  });
}

/** A `draft.pending` event when this pending draft is the only one of its campaign: the queue was empty. */
function announceIfFirstPending(ctx: Ctx, row: DraftRow): void {
  const st = statements(ctx.db);
  if (st.otherPending.get(row.campaignId, row.id) !== undefined) return;
  const lead = leadStatements(ctx.db).byId.get(row.leadId);
  if (!lead) return;
  const draft = { id: row.id, stepId: row.stepId, kind: row.kind, variant: row.variant, createdAt: iso(row.createdAt) };
  recordLeadEvent(ctx, 'draft.pending', lead, { draft }, row.accountId);
}

/** Tells the change feed that a draft's queue changed (the draft's campaign is read only when someone listens). */
function noteDraftChanged(ctx: Ctx, id: string): void {
  if (!anyoneListening(ctx)) return;
  const row = statements(ctx.db).byId(id);
  if (row) noteChange(ctx, { resource: 'drafts', campaignId: row.campaignId });
}

/**
 * Who decides, as the draft keeps it (`decidedBy`): the actor of the call under way (a member,
 * a key or an OAuth client, from the audit trail's record of the call), or nulls when no call is
 * (the engine never approves or rejects).
 */
function deciderColumns(ctx: Ctx): { byType: string | null; byId: string | null; byName: string | null } {
  const actor = currentActor(ctx);
  return actor ? { byType: actor.type, byId: actor.id, byName: actor.name } : { byType: null, byId: null, byName: null };
}

export interface DraftChange {
  text: string;
  subject: string | null;
  status: DraftStatus;
}

/**
 * Writes a person's change to a draft judged in status `from` at `revision`: new text, subject
 * and status (the same status when only the words change); new words take the next revision.
 * False when the draft moved on meanwhile (another writer, the engine), so the caller can answer
 * with what it is now.
 */
export function changeDraft(ctx: Ctx, id: string, from: DraftStatus, revision: number, change: DraftChange): boolean {
  if (change.status !== from) {
    const event: DraftEvent = change.status === 'approved' ? 'approve' : change.status === 'rejected' ? 'reject' : 'edit';
    if (nextDraftStatus(from, event) !== change.status) throw new Error(`draft ${id}: ${from} → ${change.status} is not a transition`);
  }
  const st = statements(ctx.db);
  const by = deciderColumns(ctx);
  const changed = asDraftsWriter(
    ctx.db.$client,
    () =>
      st.change.run({
        text: change.text,
        subject: change.subject,
        status: change.status,
        now: ctx.clock.now(),
        sim: ctx.simClock.now(),
        id,
        from,
        revision,
        ...by,
      }).changes,
  );
  if (changed !== 1) return false;
  if (change.status === 'pending' && from !== 'pending') announceIfFirstPending(ctx, st.byId(id) as DraftRow);
  noteDraftChanged(ctx, id);
  return true;
}

/** The draft's step can no longer be sent: it ends `skipped` with why. False when it is not open (any more) or is on the wire. */
export function skipDraftRow(ctx: Ctx, id: string, reason: string): boolean {
  const st = statements(ctx.db);
  const skipped = asDraftsWriter(ctx.db.$client, () => st.skip.run({ id, reason, now: ctx.clock.now() }).changes === 1);
  if (skipped) noteDraftChanged(ctx, id);
  return skipped;
}

/** A claimed draft whose send went nowhere (the provider refused it): `skipped` with why, once. */
export function skipClaimedDraftRow(ctx: Ctx, id: string, intentId: string, reason: string): boolean {
  const st = statements(ctx.db);
  const skipped = asDraftsWriter(ctx.db.$client, () => st.skipClaimed.run({ id, reason, now: ctx.clock.now(), intentId }).changes === 1);
  if (skipped) noteDraftChanged(ctx, id);
  return skipped;
}

/** The lead's pending or approved drafts of the agent's replies, not on the wire. */
export const openReplyDraftsOf = (ctx: Pick<Ctx, 'db'>, leadId: string): string[] => statements(ctx.db).openReplyDrafts.all(leadId);

/** An open draft of a step: its id, its step and its kind (the step's, a step kind of the same name). */
export interface OpenStepDraft {
  id: string;
  stepId: string;
  kind: DraftKind;
}

/** The lead's pending or approved step drafts not on the wire, each with its step. */
export const openStepDraftsOf = (ctx: Pick<Ctx, 'db'>, leadId: string): OpenStepDraft[] => statements(ctx.db).openStepDrafts.all(leadId);

/** An open draft (pending or approved, not on the wire) with what closing it needs to know; `stepId` null: the agent's reply. */
export interface OpenDraft {
  id: string;
  leadId: string;
  campaignId: string;
  stepId: string | null;
  kind: string;
}

/** The open drafts of a lead, or, given its profile URL, of every lead with that URL in every campaign. */
export function openDraftsOfProfile(ctx: Pick<Ctx, 'db'>, lead: { id: string; networkUrl: string | null }): OpenDraft[] {
  const st = statements(ctx.db);
  return lead.networkUrl === null ? st.openDraftsOfLead.all(lead.id) : st.openDraftsAtUrl.all(lead.networkUrl);
}

/*
 * "Approve all N matching": a preview counts the pending drafts (of a campaign, or of all) per
 * sender and kind and names the snapshot by the highest draft seq and its wall time; the
 * approval then takes exactly the pending drafts at or below that seq not changed after that
 * time. Both read the covering indexes (campaign_id, status, seq) and (status, seq).
 */
const approveAllStatements = perDb((db) => {
  const c = db.$client;
  // The sender: the draft's own, else the lead's, else the campaign agent's (as the send would go).
  const summary = (byCampaign: boolean) =>
    c.prepare<[{ campaignId?: string }], { accountId: string | null; kind: string; count: number; maxSeq: number }>(
      `SELECT coalesce(d.account_id, l.account_id, a.account_id) AS accountId, d.kind AS kind, count(*) AS count, max(d.seq) AS maxSeq
       FROM drafts d${byCampaign ? ' INDEXED BY drafts_campaign_status' : ' INDEXED BY drafts_status'}
       LEFT JOIN leads l ON l.id = d.lead_id AND d.account_id IS NULL
       LEFT JOIN campaigns c ON c.id = d.campaign_id AND d.account_id IS NULL
       LEFT JOIN agents a ON a.id = c.assigned_template_id AND d.account_id IS NULL
       WHERE d.status = 'pending'${byCampaign ? ' AND d.campaign_id = @campaignId' : ''}
       GROUP BY 1, 2`,
    );
  const approve = (byCampaign: boolean) =>
    c.prepare<
      [{ campaignId?: string; maxSeq: number; at: number; now: number; sim: number; byType: string | null; byId: string | null; byName: string | null }],
      { id: string; leadId: string }
    >(
      `UPDATE drafts SET status = 'approved', updated_at = @now, approved_at = @sim,
           decided_by_type = @byType, decided_by_id = @byId, decided_by_name = @byName
         WHERE status IN (${fromSql('approve')})${byCampaign ? ' AND campaign_id = @campaignId' : ''} AND seq <= @maxSeq AND updated_at <= @at AND sending_intent_id IS NULL
         RETURNING id, lead_id AS leadId`,
    );
  const pending = (byCampaign: boolean) =>
    c
      .prepare<[{ campaignId?: string }], number>(
        `SELECT count(*) FROM drafts${byCampaign ? ' INDEXED BY drafts_campaign_status' : ' INDEXED BY drafts_status'} WHERE status = 'pending'${byCampaign ? ' AND campaign_id = @campaignId' : ''}`,
      )
      .pluck();
  const maxSeq = c.prepare<[], number | null>('SELECT max(seq) FROM drafts').pluck();
  return {
    summary: { all: summary(false), campaign: summary(true) },
    approve: { all: approve(false), campaign: approve(true) },
    pending: { all: pending(false), campaign: pending(true) },
    maxSeq,
  };
});

export interface PendingGroup {
  accountId: string | null;
  kind: string;
  count: number;
}

/** The pending drafts (of a campaign, or all) per sender and kind, and the highest draft seq now (0 for none). */
export function pendingDraftGroups(ctx: Pick<Ctx, 'db'>, campaignId: string | undefined): { groups: PendingGroup[]; maxSeq: number } {
  const st = approveAllStatements(ctx.db);
  return transaction(ctx.db, () => {
    const rows = campaignId === undefined ? st.summary.all.all({}) : st.summary.campaign.all({ campaignId });
    return { groups: rows.map(({ accountId, kind, count }) => ({ accountId, kind, count })), maxSeq: st.maxSeq.get() ?? 0 };
  });
}

/**
 * Approves, in one statement, the pending drafts (of a campaign, or all) at or below `maxSeq`
 * not changed after `at`: the ones a preview counted. Returns how many were approved, how many
 * stay pending (made or edited since the preview), and the leads whose drafts were approved (for
 * the caller to wake, `wakeDecidedLeads`).
 */
export function approvePendingSnapshot(
  ctx: Ctx,
  campaignId: string | undefined,
  maxSeq: number,
  at: number,
): { approved: number; leftPending: number; draftIds: string[]; leadIds: string[] } {
  const st = approveAllStatements(ctx.db);
  return transaction(ctx.db, () => {
    // The queues the approval may touch, read before it (only when someone listens for them).
    if (anyoneListening(ctx)) {
      const queues =
        campaignId === undefined
          ? statements(ctx.db)
              .pendingCounts.all()
              .map((r) => r.campaignId)
          : [campaignId];
      for (const id of queues) noteChange(ctx, { resource: 'drafts', campaignId: id });
    }
    const args = { maxSeq, at, now: ctx.clock.now(), sim: ctx.simClock.now(), ...deciderColumns(ctx) };
    const rows = asDraftsWriter(ctx.db.$client, () => (campaignId === undefined ? st.approve.all.all(args) : st.approve.campaign.all({ ...args, campaignId })));
    const leftPending = campaignId === undefined ? st.pending.all.get({}) : st.pending.campaign.get({ campaignId });
    return { approved: rows.length, leftPending: leftPending ?? 0, draftIds: rows.map((r) => r.id), leadIds: rows.map((r) => r.leadId) };
  });
}

/** Approval turned off: every pending draft of the campaign is approved as it stands. Returns the leads whose drafts were approved. */
export function releasePendingDrafts(ctx: Ctx, campaignId: string): string[] {
  noteChange(ctx, { resource: 'drafts', campaignId });
  return asDraftsWriter(ctx.db.$client, () =>
    ctx.db
      .update(drafts)
      .set({ status: 'approved', updatedAt: ctx.clock.now(), approvedAt: ctx.simClock.now() })
      .where(and(eq(drafts.campaignId, campaignId), inArray(drafts.status, fromOf('release'))))
      .returning({ leadId: drafts.leadId })
      .all()
      .map((r) => r.leadId),
  );
}

/**
 * The engine takes an approved draft for a send: from here until `markDraftSent` or
 * `releaseDraftClaim`, nobody can change it, so the words sent are the words approved. Null
 * when the draft is not (or no longer) approved, or another send holds it.
 */
export function claimDraftRow(ctx: Ctx, id: string, intentId: string): DraftRow | null {
  const changed = asDraftsWriter(
    ctx.db.$client,
    () =>
      ctx.db
        .update(drafts)
        .set({ sendingIntentId: intentId })
        .where(and(eq(drafts.id, id), inArray(drafts.status, fromOf('send')), sql`${drafts.sendingIntentId} IS NULL`))
        .run().changes,
  );
  return changed === 1 ? (findDraftRow(ctx, id) ?? null) : null;
}

/**
 * The send of a claimed draft went out: it is `sent`, once, and a `draft.sent` event naming who
 * approved it is recorded in the same transaction. False when this intent does not hold it.
 */
export function markDraftRowSent(ctx: Ctx, id: string, intentId: string, at: number, leadAfter?: LeadRowOf): boolean {
  return transaction(ctx.db, () => {
    const sent = asDraftsWriter(
      ctx.db.$client,
      () =>
        ctx.db
          .update(drafts)
          .set({ status: 'sent', sentAt: at, sendingIntentId: null, updatedAt: ctx.clock.now() })
          .where(and(eq(drafts.id, id), inArray(drafts.status, fromOf('send')), eq(drafts.sendingIntentId, intentId)))
          .run().changes === 1,
    );
    if (!sent) return false;
    const row = statements(ctx.db).byId(id);
    if (row) {
      announceSent(ctx, row, leadAfter);
      if (anyoneListening(ctx)) noteChange(ctx, { resource: 'drafts', campaignId: row.campaignId });
    }
    return true;
  });
}

/**
 * The `draft.sent` event: the draft's ids and times, and its `decidedBy`; never its words. Its
 * lead is the lead after the send (`leadAfter`, as the engine will write it in the same
 * transaction): the draft is settled before the send's changes reach the lead's row, which
 * still holds the stage before the send.
 */
function announceSent(ctx: Ctx, row: DraftRow, leadAfter?: LeadRowOf): void {
  const lead = leadAfter ?? leadStatements(ctx.db).byId.get(row.leadId);
  if (!lead || row.sentAt === null) return;
  const decidedBy =
    row.decidedByType === null || row.decidedById === null
      ? null
      : { type: row.decidedByType as 'member' | 'key' | 'oauth_client', id: row.decidedById, name: row.decidedByName ?? row.decidedById };
  const draft = { id: row.id, stepId: row.stepId, kind: row.kind, variant: row.variant, createdAt: iso(row.createdAt), sentAt: iso(row.sentAt) };
  recordLeadEvent(ctx, 'draft.sent', lead, { draft, decidedBy }, row.accountId);
}

/** The send of a claimed draft did not go out: the draft is free again (still approved). */
export function releaseDraftRowClaim(ctx: Ctx, id: string, intentId: string): boolean {
  return asDraftsWriter(
    ctx.db.$client,
    () =>
      ctx.db
        .update(drafts)
        .set({ sendingIntentId: null })
        .where(and(eq(drafts.id, id), eq(drafts.sendingIntentId, intentId)))
        .run().changes === 1,
  );
}

/** A deleted lead takes its drafts with it. */
/** An approved draft not on the wire, in a running campaign, with the account that will send it. */
export interface ApprovedWaiting {
  id: string;
  approvedAt: number | null;
  accountId: string | null;
}

/**
 * The approved drafts waiting for the engine in running campaigns, each with its sender: the
 * draft's own account, else the lead's, else the agent's (the safety auditor's overdue rule).
 */
export function approvedDraftsWaiting(ctx: Pick<Ctx, 'db'>): ApprovedWaiting[] {
  return ctx.db.$client
    .prepare<[], ApprovedWaiting>(
      `SELECT d.id, d.approved_at AS approvedAt, coalesce(d.account_id, l.account_id, a.account_id) AS accountId
       FROM drafts d INDEXED BY drafts_status
       JOIN campaigns c ON c.id = d.campaign_id AND c.status = 'CAMPAIGN_IN_PROGRESS'
       LEFT JOIN leads l ON l.id = d.lead_id
       LEFT JOIN agents a ON a.id = c.assigned_template_id
       WHERE d.status = 'approved' AND d.sending_intent_id IS NULL`,
    )
    .all();
}

export function forgetDrafts(ctx: Ctx, leadId: string): void {
  if (anyoneListening(ctx)) {
    for (const row of ctx.db.selectDistinct({ campaignId: drafts.campaignId }).from(drafts).where(eq(drafts.leadId, leadId)).all()) {
      noteChange(ctx, { resource: 'drafts', campaignId: row.campaignId });
    }
  }
  asDraftsWriter(ctx.db.$client, () => ctx.db.delete(drafts).where(eq(drafts.leadId, leadId)).run());
}

/** A workspace replaced whole (`seed --reset`) takes every draft with it. */
export function forgetAllDrafts(ctx: Pick<Ctx, 'db'>): void {
  noteChange(ctx, { resource: 'workspace' });
  asDraftsWriter(ctx.db.$client, () => ctx.db.delete(drafts).run());
}

export interface DraftPageFilter {
  campaignId?: string | undefined;
  status?: DraftStatus | undefined;
}

export type DraftListRow = DraftRow & { lead: DraftLeadRow };

type PageParams = { after: number; limit: number; campaignId?: string; status?: string; campaigns?: string };

/**
 * One statement per filter shape (campaign given or not, status given or not), each held to its
 * own index with INDEXED BY: the keyset page then reads exactly the rows it returns, however deep
 * the cursor and however many drafts of other campaigns or statuses lie between. Without it,
 * SQLite's choice depends on statistics: once ANALYZE (or `PRAGMA optimize`) has run, it scans
 * the primary key from the cursor and filters, which reads the whole table for a filter with few
 * rows past the cursor. CROSS JOIN keeps drafts the outer loop: with drafts outnumbering leads in
 * the statistics, SQLite would otherwise scan every lead and sort.
 */
export function draftPageSql(byCampaign: boolean, byStatus: boolean, byReach = false): string {
  const conds = ['d.seq > @after'];
  if (byCampaign) conds.push('d.campaign_id = @campaignId');
  // A key held to campaigns (core/auth/scope.ts): their ids as one JSON array parameter.
  if (byReach) conds.push('d.campaign_id IN (SELECT value FROM json_each(@campaigns))');
  if (byStatus) conds.push('d.status = @status');
  const index = byCampaign ? (byStatus ? ' INDEXED BY drafts_campaign_status' : ' INDEXED BY drafts_campaign') : byStatus ? ' INDEXED BY drafts_status' : '';
  return `SELECT ${DRAFT_COLUMNS}, ${DRAFT_LEAD_COLUMNS} FROM drafts d${index} CROSS JOIN leads l ON l.id = d.lead_id
       WHERE ${conds.join(' AND ')} ORDER BY d.seq LIMIT (SELECT @limit)`;
}

function preparePage(db: Db, byCampaign: boolean, byStatus: boolean, byReach = false) {
  return rawByName(db.$client.prepare<[PageParams]>(draftPageSql(byCampaign, byStatus, byReach)), [...DRAFT_NAMES, ...LEAD_NAMES]);
}

const pageStatements = perDb((db) => ({
  none: preparePage(db, false, false),
  campaign: preparePage(db, true, false),
  status: preparePage(db, false, true),
  both: preparePage(db, true, true),
  reach: preparePage(db, false, false, true),
  reachStatus: preparePage(db, false, true, true),
}));

/** Drafts after list position `after` (0 for the first page), oldest first, each with its lead. */
export function draftPage(ctx: Ctx, filter: DraftPageFilter, after: number, limit: number): DraftListRow[] {
  const st = pageStatements(ctx.db);
  const { campaignId, status } = filter;
  // A named campaign was checked against the reach (findCampaignRow); without one, the reach filters.
  const campaigns = campaignId === undefined && ctx.campaigns ? JSON.stringify([...ctx.campaigns]) : undefined;
  const page =
    campaigns !== undefined
      ? status !== undefined
        ? st.reachStatus
        : st.reach
      : campaignId !== undefined
        ? status !== undefined
          ? st.both
          : st.campaign
        : status !== undefined
          ? st.status
          : st.none;
  const { at } = page;
  return page.stmt.all({ after, limit, campaignId, status, campaigns }).map((r) => draftWithLeadOf(r, at));
}

/** Pending drafts per campaign (campaigns with none are left out). */
export const pendingDraftCounts = (ctx: Ctx): { campaignId: string; pending: number }[] => statements(ctx.db).pendingCounts.all();
