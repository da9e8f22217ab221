import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { namedAccountCounts } from '../accounts/resolve.js';
import { findCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { PATH_ID } from '../ids.js';
import { BatchSummary, summarize } from '../leads/batch.js';
import { findLeadRow } from '../leads/lead.js';
import { wakeDecidedLeads } from '../outreach/wake.js';
import { leadAccountId } from '../webhooks/outbox.js';
import { draftFieldProblem, type DraftKind, type DraftStatus } from './rules.js';
import { changeDraft, findDraftRow } from './store.js';
import type { DraftRow } from './view.js';
import { noteAuditMissing } from '../audit/current.js';

/** What a person may ask of a draft: new words, and/or a decision. */
export interface DraftUpdate {
  id: string;
  text?: string | undefined;
  subject?: string | undefined;
  /** `approved` or `rejected`; any other string is that item's `validation_error`. */
  status?: string | undefined;
  /** The revision the caller saw: when it is not the draft's current one, the item is a conflict and nothing of it is written. */
  revision?: number | undefined;
}

export const DRAFT_ITEM_STATUSES = ['updated', 'not_found', 'validation_error', 'conflict'] as const;
export type DraftItemStatus = (typeof DRAFT_ITEM_STATUSES)[number];

/** What a draft is now, given with every conflict on a draft that exists: the caller can show it and decide again. */
export const DraftCurrent = z.object({ revision: z.number().int(), status: z.string(), text: z.string(), subject: z.string().nullable() });
export type DraftCurrent = z.infer<typeof DraftCurrent>;

export const DraftItemError = z.object({
  code: z.enum(['validation_error', 'not_found', 'conflict']),
  message: z.string(),
  current: DraftCurrent.optional(),
});
export type DraftItemError = z.infer<typeof DraftItemError>;

export const UpdateDraftsResult = z.object({
  results: z.array(z.object({ index: z.number().int(), draftId: z.string(), status: z.enum(DRAFT_ITEM_STATUSES), error: DraftItemError.optional() })),
  summary: BatchSummary(DRAFT_ITEM_STATUSES),
});
export type UpdateDraftsResult = z.infer<typeof UpdateDraftsResult>;
type Item = UpdateDraftsResult['results'][number];

const field = (index: number, name: string) => `drafts[${index}].${name}`;

const currentOf = (row: DraftRow): DraftCurrent => ({ revision: row.revision, status: row.status, text: row.text, subject: row.subject });

/** A conflict item, naming what the draft is now. */
const conflict = (index: number, draftId: string, message: string, row: DraftRow | undefined): Item => ({
  index,
  draftId,
  status: 'conflict',
  error: row ? { code: 'conflict', message, current: currentOf(row) } : { code: 'conflict', message },
});

/** Why an item's revision is not the draft's, or null when it carries none or the current one. */
function staleRevision(row: DraftRow, update: DraftUpdate): string | null {
  if (update.revision === undefined || update.revision === row.revision) return null;
  return `Draft ${row.id} is at revision ${row.revision}, not ${update.revision}: it changed since it was read. Its text now: ${JSON.stringify(row.text)}. Nothing of this item was written; read it again and decide on what it says now.`;
}

/** What a person may decide of a draft. */
export const DECISIONS = ['approved', 'rejected'] as const;
type Decision = (typeof DECISIONS)[number];

/** The decision an item asks for: undefined when it asks none, null when its status is not one. */
const decisionOf = (status: string | undefined): Decision | undefined | null =>
  status === undefined ? undefined : (DECISIONS as readonly string[]).includes(status) ? (status as Decision) : null;

/** Why a draft in this status cannot change, or null when it can. */
function closedBecause(row: DraftRow): string | null {
  if (row.status === 'sent') return `Draft ${row.id} was already sent; it cannot change.`;
  if (row.status === 'rejected') return `Draft ${row.id} was rejected; it cannot change. The lead's sequence ended there.`;
  if (row.status === 'skipped') return `Draft ${row.id} was skipped (${row.skipReason ?? 'its step can no longer be sent'}); it cannot change.`;
  if (row.sendingIntentId !== null) return `Draft ${row.id} is being sent right now; it cannot change.`;
  return null;
}

/**
 * The status a draft takes after an update: the one asked for, else its own, except that new
 * words on an approved draft wait for approval again where the campaign requires it (what goes
 * out must be what a person approved).
 */
function statusAfter(ctx: Ctx, row: DraftRow, decision: Decision | undefined, wordsChange: boolean): DraftStatus {
  if (decision !== undefined) return decision;
  if (row.status === 'approved' && wordsChange && findCampaignRow(ctx, row.campaignId)?.approval === 'required') return 'pending';
  return row.status as DraftStatus;
}

/**
 * Applies one item inside the batch's transaction. Order of judgement: the id, a repeat, an
 * empty item, the decision asked for, the revision's type, the draft (not_found), its status
 * (conflict: sent, rejected, skipped or on the wire), its revision (conflict: not the one
 * given), then the words against
 * the kind's length rule and the placeholder rule. The write is guarded by the revision read
 * (compare-and-set), so of two writers racing on one draft exactly one changes it.
 */
function applyOne(ctx: Ctx, update: DraftUpdate, index: number, seen: Map<string, number>): Item {
  const draftId = update.id;
  const bad = (message: string): Item => ({ index, draftId, status: 'validation_error', error: { code: 'validation_error', message } });
  if (!PATH_ID.test(draftId)) return bad(`${field(index, 'id')} must be a draft id (drf_…): 1-64 characters of A-Z, a-z, 0-9, _ or -.`);
  const first = seen.get(draftId);
  if (first !== undefined) return bad(`${field(index, 'id')} repeats ${field(first, 'id')} (${draftId}); only the first is applied.`);
  seen.set(draftId, index);
  if (update.text === undefined && update.subject === undefined && update.status === undefined) {
    return bad(`drafts[${index}] changes nothing: give text, subject or status.`);
  }
  const decision = decisionOf(update.status);
  if (decision === null) return bad(`${field(index, 'status')} must be approved or rejected.`);
  if (update.revision !== undefined && !(Number.isSafeInteger(update.revision) && update.revision >= 1)) {
    return bad(`${field(index, 'revision')} must be an integer ≥ 1: the revision the draft had when it was read.`);
  }
  const row = findDraftRow(ctx, draftId);
  if (!row) {
    noteAuditMissing(draftId);
    return { index, draftId, status: 'not_found', error: { code: 'not_found', message: `Draft ${draftId} not found. Call list_drafts for draft ids.` } };
  }
  const closed = closedBecause(row);
  if (closed) return conflict(index, draftId, closed, row);
  const stale = staleRevision(row, update);
  if (stale) return conflict(index, draftId, stale, row);
  const kind = row.kind as DraftKind;
  for (const name of ['text', 'subject'] as const) {
    const value = update[name];
    const problem = value === undefined ? null : draftFieldProblem(kind, name, value);
    if (problem) return bad(`${field(index, name)} ${problem}`);
  }
  const text = update.text ?? row.text;
  const subject = update.subject ?? row.subject;
  const wordsChange = text !== row.text || subject !== row.subject;
  const status = statusAfter(ctx, row, decision, wordsChange);
  // Approving an approved draft, or the same words again: nothing to write, and nothing moves.
  if (!wordsChange && status === row.status) return { index, draftId, status: 'updated' };
  if (!changeDraft(ctx, row.id, row.status as DraftStatus, row.revision, { text, subject, status })) {
    const now = findDraftRow(ctx, draftId);
    const message =
      (now && (closedBecause(now) ?? staleRevision(now, { ...update, revision: row.revision }))) ?? `Draft ${draftId} changed meanwhile; read it again.`;
    return conflict(index, draftId, message, now);
  }
  // A decision hands the lead back to the engine: due now, whatever it waited for.
  if (status !== row.status && (status === 'approved' || status === 'rejected')) wakeDecidedLeads(ctx, [row.leadId]);
  return { index, draftId, status: 'updated' };
}

/**
 * Edits, approves and rejects up to 100 drafts in one transaction, with a result per item; an
 * item that cannot apply fails alone. Nothing here sends: the engine sends approved drafts.
 * An unexpected failure rolls the whole batch back and is thrown (nothing was applied).
 */
export function updateDrafts(ctx: Ctx, updates: readonly DraftUpdate[]): UpdateDraftsResult {
  const results = transaction(ctx.db, () => {
    const seen = new Map<string, number>();
    return updates.map((update, index) => applyOne(ctx, update, index, seen));
  });
  return { results, summary: summarize(DRAFT_ITEM_STATUSES, results) };
}

/** How many drafts of each kind; `email` is present once an email draft is counted. */
export type DraftKindCounts = Record<Exclude<DraftKind, 'email'>, number> & { email?: number };
export const noKinds = (): DraftKindCounts => ({ invite: 0, message: 0, inmail: 0 });

export interface SendsToConfirm {
  /** How many drafts the update would approve (and so send). */
  count: number;
  /** Per sender, most first; `name` is the account's or mailbox's name (a mailbox without one: its address), else its id. */
  accounts: { accountId: string | null; name: string | null; count: number }[];
  /** The same drafts by kind: invitations, messages, InMails, and emails once there is one. */
  kinds: DraftKindCounts;
}

/**
 * What approving through `update_drafts` would send, for a confirmation before it runs: the
 * items that approve a draft that is pending now (or approved with new words), grouped by the
 * account that will send them. Items that would fail are left out; nothing is written.
 */
export function sendsToConfirm(ctx: Ctx, updates: readonly DraftUpdate[]): SendsToConfirm {
  const byAccount = new Map<string | null, number>();
  const kinds = noKinds();
  const seen = new Set<string>();
  for (const update of updates) {
    if (update.status !== 'approved' || seen.has(update.id)) continue;
    seen.add(update.id);
    const row = findDraftRow(ctx, update.id);
    if (!row || closedBecause(row) || staleRevision(row, update)) continue;
    const wordsChange = (update.text !== undefined && update.text !== row.text) || (update.subject !== undefined && update.subject !== row.subject);
    if (row.status !== 'pending' && !wordsChange) continue;
    const lead = row.accountId === null ? findLeadRow(ctx, row.campaignId, row.leadId) : undefined;
    const accountId = row.accountId ?? (lead ? leadAccountId(ctx, lead) : null);
    byAccount.set(accountId, (byAccount.get(accountId) ?? 0) + 1);
    const kind = row.kind as DraftKind;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  const accounts = namedAccountCounts(ctx, byAccount);
  return { count: accounts.reduce((n, a) => n + a.count, 0), accounts, kinds };
}
