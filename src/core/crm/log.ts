import { z } from 'zod';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import { PUSH_KINDS, PUSH_STATES, crmStore, type PushRow, type SyncLogRow } from './store.js';

export const SYNC_DIRECTIONS = ['push', 'pull'] as const;
export const SYNC_OUTCOMES = ['succeeded', 'retrying', 'failed', 'ended', 'unmatched'] as const;

export const CrmSyncEntry = z.object({
  id: z.string().describe('crl_…'),
  direction: z.enum(SYNC_DIRECTIONS),
  kind: z.string().describe('contact, note or deal (push); poll or contact (pull)'),
  leadId: z.string().nullable(),
  pushId: z.string().nullable().describe('crp_…: the outbox push this attempt carried'),
  contactId: z.string().nullable().describe("The CRM's contact id, when known"),
  outcome: z.enum(SYNC_OUTCOMES),
  detail: z.string(),
  at: IsoTimestamp,
});
export type CrmSyncEntry = z.infer<typeof CrmSyncEntry>;

export const ListCrmSyncLogInput = z.strictObject({
  direction: z.enum(SYNC_DIRECTIONS).optional(),
  outcome: z.enum(SYNC_OUTCOMES).optional(),
  leadId: z.string().min(1).max(64).optional(),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).optional(),
});
export type ListCrmSyncLogInput = z.input<typeof ListCrmSyncLogInput>;

const entryOf = (row: SyncLogRow): CrmSyncEntry => ({
  id: row.id,
  direction: row.direction as CrmSyncEntry['direction'],
  kind: row.kind,
  leadId: row.leadId,
  pushId: row.pushId,
  contactId: row.contactId,
  outcome: row.outcome as CrmSyncEntry['outcome'],
  detail: row.detail,
  at: iso(row.at),
});

/**
 * The sync log, newest first, filtered by direction, outcome and lead, in keyset pages. A cursor
 * is signed over its filter, so it cannot be replayed with another one.
 */
export function listCrmSyncLog(ctx: Ctx, cursorSecret: string, input: ListCrmSyncLogInput): { entries: CrmSyncEntry[]; nextCursor: string | null } {
  const query = ListCrmSyncLogInput.parse(input);
  const filter = { direction: query.direction, outcome: query.outcome, leadId: query.leadId };
  const scope = `crm_sync_log:${JSON.stringify(filter)}`;
  let beforeSeq: number | undefined;
  if (query.cursor !== undefined) {
    const [seq] = decodeCursor(cursorSecret, scope, query.cursor);
    if (typeof seq !== 'number') throw invalidCursor();
    beforeSeq = seq;
  }
  const rows = crmStore.logPage(ctx.db, { ...filter, beforeSeq }, query.limit + 1);
  const page = pageOf(rows, query.limit, (last) => encodeCursor(cursorSecret, scope, [last.seq]));
  return { entries: page.items.map(entryOf), nextCursor: page.nextCursor };
}

export const CrmPushView = z.object({
  id: z.string().describe('crp_…'),
  leadId: z.string(),
  kind: z.enum(PUSH_KINDS),
  state: z.enum(PUSH_STATES),
  attempts: z.number().int(),
  nextAttemptAt: IsoTimestamp.nullable(),
  inFlight: z.boolean(),
  lastError: z.string().nullable(),
  crmId: z.string().nullable(),
  createdAt: IsoTimestamp,
  updatedAt: IsoTimestamp,
});
export type CrmPushView = z.infer<typeof CrmPushView>;

export const ListCrmPushesInput = z.strictObject({
  state: z.enum(PUSH_STATES).optional(),
  leadId: z.string().min(1).max(64).optional(),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).optional(),
});
export type ListCrmPushesInput = z.input<typeof ListCrmPushesInput>;

/** The outbox's pushes, newest first, filtered by state and lead, in keyset pages. */
export function listCrmPushes(ctx: Ctx, cursorSecret: string, input: ListCrmPushesInput): { pushes: CrmPushView[]; nextCursor: string | null } {
  const query = ListCrmPushesInput.parse(input);
  const filter = { state: query.state, leadId: query.leadId };
  const scope = `crm_pushes:${JSON.stringify(filter)}`;
  let beforeSeq: number | undefined;
  if (query.cursor !== undefined) {
    const [seq] = decodeCursor(cursorSecret, scope, query.cursor);
    if (typeof seq !== 'number') throw invalidCursor();
    beforeSeq = seq;
  }
  const now = ctx.clock.now();
  const rows = crmStore.pushPage(ctx.db, { ...filter, beforeSeq }, query.limit + 1);
  const page = pageOf(rows, query.limit, (last) => encodeCursor(cursorSecret, scope, [last.seq]));
  return { pushes: page.items.map((row) => pushView(row, now)), nextCursor: page.nextCursor };
}

const pushView = (row: PushRow, now: number): CrmPushView => ({
  id: row.id,
  leadId: row.leadId,
  kind: row.kind as CrmPushView['kind'],
  state: row.state as CrmPushView['state'],
  attempts: row.attempts,
  nextAttemptAt: row.nextAttemptAt === null ? null : iso(row.nextAttemptAt),
  inFlight: row.leasedUntil !== null && row.leasedUntil > now,
  lastError: row.lastError,
  crmId: row.crmId,
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});

export const CrmBacklog = z.object({
  /** Pushes not yet made: waiting, due or in flight. */
  pending: z.number().int(),
  due: z.number().int(),
  inFlight: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  pendingByKind: z.object({ contact: z.number().int(), note: z.number().int(), deal: z.number().int() }),
  oldestPendingAt: IsoTimestamp.nullable(),
});
export type CrmBacklog = z.infer<typeof CrmBacklog>;

/** What the outbox holds: the pushes waiting, due and in flight, and those done or given up on. */
export function crmBacklog(ctx: Ctx): CrmBacklog {
  const out: CrmBacklog = { pending: 0, due: 0, inFlight: 0, succeeded: 0, failed: 0, pendingByKind: { contact: 0, note: 0, deal: 0 }, oldestPendingAt: null };
  let oldest: number | null = null;
  for (const g of crmStore.backlog(ctx.db, ctx.clock.now())) {
    if (g.state === 'succeeded') out.succeeded += g.n;
    else if (g.state === 'failed') out.failed += g.n;
    else {
      out.pending += g.n;
      out.due += g.due;
      out.inFlight += g.inFlight;
      if (g.kind === 'contact' || g.kind === 'note' || g.kind === 'deal') out.pendingByKind[g.kind] += g.n;
      if (g.oldest !== null && (oldest === null || g.oldest < oldest)) oldest = g.oldest;
    }
  }
  out.oldestPendingAt = oldest === null ? null : iso(oldest);
  return out;
}

export const CrmStatus = z.object({
  /** The CRM the config names, or null when there is no `crm` section (nothing syncs). */
  crm: z.string().nullable(),
  pull: z.object({
    intervalSeconds: z.number().nullable(),
    lastPolledAt: IsoTimestamp.nullable(),
    lastError: z.string().nullable(),
    /** Whether a cursor is stored: the next poll reads only what changed after it. */
    hasCursor: z.boolean(),
  }),
  backlog: CrmBacklog,
});
export type CrmStatus = z.infer<typeof CrmStatus>;

/** The sync at a glance: which CRM, where the pull stands, and the outbox's backlog. */
export function crmStatus(ctx: Ctx): CrmStatus {
  const state = ctx.crm ? crmStore.pullState(ctx.db, ctx.crm.crm) : undefined;
  return {
    crm: ctx.crm?.crm ?? null,
    pull: {
      intervalSeconds: ctx.crm ? ctx.crm.pollMs / 1000 : null,
      lastPolledAt: state?.lastPolledAt == null ? null : iso(state.lastPolledAt),
      lastError: state?.lastError ?? null,
      hasCursor: (state?.cursor ?? null) !== null,
    },
    backlog: crmBacklog(ctx),
  };
}
