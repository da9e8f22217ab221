import { and, asc, count, desc, eq, inArray, isNull, lt, lte, min, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';
import { crmContacts, crmPullState, crmPushes, crmSyncLog } from '../../db/schema.js';

/* The CRM sync's SQL, and the only SQL on its four tables (src/db/schema/crm.ts). */

export type PushRow = typeof crmPushes.$inferSelect;
export type SyncLogRow = typeof crmSyncLog.$inferSelect;
export type PullStateRow = typeof crmPullState.$inferSelect;

export const PUSH_KINDS = ['contact', 'note', 'deal'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];
export const PUSH_STATES = ['pending', 'succeeded', 'failed'] as const;
export type PushState = (typeof PUSH_STATES)[number];

/**
 * Prepared once per connection: what the event recorders run while the sync is on. Every
 * invitation and message asks whether the lead has a contact yet, and every reply or tag queues
 * pushes, so a send pays bound statements and no query building (building and preparing cost
 * several times the statement itself; bench/METHOD.md, "The CRM sync's cost on the engine").
 */
const hot = perDb((db) => ({
  contactKnown: db.$client
    .prepare<[string, string]>(
      "SELECT 1 FROM crm_contacts WHERE lead_id = ? UNION ALL SELECT 1 FROM crm_pushes WHERE lead_id = ? AND kind = 'contact' AND state <> 'failed' LIMIT 1",
    )
    .pluck(),
  insertPush: db
    .insert(crmPushes)
    .values({
      id: sql.placeholder('id'),
      leadId: sql.placeholder('leadId'),
      kind: sql.placeholder('kind'),
      payload: sql.placeholder('payload'),
      nextAttemptAt: sql.placeholder('now'),
      createdAt: sql.placeholder('now'),
      updatedAt: sql.placeholder('now'),
    })
    .prepare(),
  untriedContactPush: db
    .select({ id: crmPushes.id })
    .from(crmPushes)
    .where(
      and(
        eq(crmPushes.leadId, sql.placeholder('leadId')),
        eq(crmPushes.kind, 'contact'),
        eq(crmPushes.state, 'pending'),
        eq(crmPushes.attempts, 0),
        isNull(crmPushes.leasedUntil),
      ),
    )
    .prepare(),
}));

export const crmStore = {
  /** Whether the lead is (or is about to be) a CRM contact: linked, or with a contact push not given up on. */
  contactKnown: (db: Db, leadId: string): boolean => hot(db).contactKnown.get(leadId, leadId) !== undefined,

  insertPush: (db: Db, row: { id: string; leadId: string; kind: PushKind; payload: string; now: number }): void => {
    hot(db).insertPush.run(row);
  },

  /** The lead's contact push that no attempt has taken yet, if any: a newer contact push updates it instead of queueing another. */
  untriedContactPush: (db: Db, leadId: string): string | undefined => hot(db).untriedContactPush.get({ leadId })?.id,

  setPayload: (db: Db, id: string, payload: string, now: number): void => {
    db.update(crmPushes).set({ payload, updatedAt: now }).where(eq(crmPushes.id, id)).run();
  },

  /** Whether a deal push for the lead exists that has not failed: one deal per lead. */
  dealKnown: (db: Db, leadId: string): boolean =>
    db
      .select({ id: crmPushes.id })
      .from(crmPushes)
      .where(and(eq(crmPushes.leadId, leadId), eq(crmPushes.kind, 'deal'), inArray(crmPushes.state, ['pending', 'succeeded'])))
      .limit(1)
      .get() !== undefined,

  /**
   * Due pushes, oldest first, each the oldest unfinished push of its lead (a note waits for the
   * contact queued before it), with no live lease; `skip` holds pushes in flight here.
   */
  due: (db: Db, now: number, limit: number, skip: ReadonlySet<string>): PushRow[] => {
    const earlier = sql`EXISTS (SELECT 1 FROM crm_pushes e WHERE e.lead_id = ${crmPushes.leadId} AND e.state = 'pending' AND e.seq < ${crmPushes.seq})`;
    return db
      .select()
      .from(crmPushes)
      .where(
        and(
          eq(crmPushes.state, 'pending'),
          lte(crmPushes.nextAttemptAt, now),
          or(isNull(crmPushes.leasedUntil), lte(crmPushes.leasedUntil, now)),
          sql`NOT ${earlier}`,
          skip.size > 0 ? notInArray(crmPushes.id, [...skip]) : undefined,
        ),
      )
      .orderBy(asc(crmPushes.nextAttemptAt), asc(crmPushes.seq))
      .limit(limit)
      .all();
  },

  /** Takes a push for one attempt: counts it and leases it until `leasedUntil`. */
  lease: (db: Db, id: string, attempts: number, leasedUntil: number, now: number): void => {
    db.update(crmPushes).set({ attempts, leasedUntil, updatedAt: now }).where(eq(crmPushes.id, id)).run();
  },

  /** Ends or reschedules a push; only one still pending changes (a push given up on meanwhile stays so). */
  settle: (
    db: Db,
    id: string,
    fields: { state: PushState; nextAttemptAt: number | null; lastError: string | null; crmId?: string | null; now: number },
  ): boolean =>
    db
      .update(crmPushes)
      .set({
        state: fields.state,
        nextAttemptAt: fields.nextAttemptAt,
        leasedUntil: null,
        lastError: fields.lastError,
        ...(fields.crmId !== undefined ? { crmId: fields.crmId } : {}),
        updatedAt: fields.now,
      })
      .where(and(eq(crmPushes.id, id), eq(crmPushes.state, 'pending')))
      .run().changes === 1,

  push: (db: Db, id: string): PushRow | undefined => db.select().from(crmPushes).where(eq(crmPushes.id, id)).get(),

  /** Pushes, newest first, in keyset pages by seq. */
  pushPage: (db: Db, filter: { state?: PushState | undefined; leadId?: string | undefined; beforeSeq?: number | undefined }, limit: number): PushRow[] =>
    db
      .select()
      .from(crmPushes)
      .where(
        and(
          filter.state !== undefined ? eq(crmPushes.state, filter.state) : undefined,
          filter.leadId !== undefined ? eq(crmPushes.leadId, filter.leadId) : undefined,
          filter.beforeSeq !== undefined ? lt(crmPushes.seq, filter.beforeSeq) : undefined,
        ),
      )
      .orderBy(desc(crmPushes.seq))
      .limit(limit)
      .all(),

  /** Counts by state and kind, with the oldest pending push's creation time. */
  backlog: (db: Db, now: number): { state: string; kind: string; n: number; due: number; inFlight: number; oldest: number | null }[] =>
    db
      .select({
        state: crmPushes.state,
        kind: crmPushes.kind,
        n: count(),
        due: sql<number>`coalesce(sum(${crmPushes.nextAttemptAt} <= ${now} AND (${crmPushes.leasedUntil} IS NULL OR ${crmPushes.leasedUntil} <= ${now})), 0)`,
        inFlight: sql<number>`coalesce(sum(${crmPushes.leasedUntil} > ${now}), 0)`,
        oldest: min(crmPushes.createdAt),
      })
      .from(crmPushes)
      .groupBy(crmPushes.state, crmPushes.kind)
      .all(),

  link: (db: Db, leadId: string): { crm: string; contactId: string } | undefined =>
    db.select({ crm: crmContacts.crm, contactId: crmContacts.contactId }).from(crmContacts).where(eq(crmContacts.leadId, leadId)).get(),

  setLink: (db: Db, row: { leadId: string; crm: string; contactId: string; now: number }): void => {
    db.insert(crmContacts)
      .values({ leadId: row.leadId, crm: row.crm, contactId: row.contactId, linkedAt: row.now, updatedAt: row.now })
      .onConflictDoUpdate({ target: crmContacts.leadId, set: { crm: row.crm, contactId: row.contactId, updatedAt: row.now } })
      .run();
  },

  leadsOfContact: (db: Db, crm: string, contactId: string): string[] =>
    db
      .select({ leadId: crmContacts.leadId })
      .from(crmContacts)
      .where(and(eq(crmContacts.crm, crm), eq(crmContacts.contactId, contactId)))
      .all()
      .map((r) => r.leadId),

  insertLog: (db: Db, row: Omit<SyncLogRow, 'seq'>): void => {
    db.insert(crmSyncLog).values(row).run();
  },

  /** The sync log, newest first, in keyset pages by seq. */
  logPage: (
    db: Db,
    filter: { direction?: string | undefined; outcome?: string | undefined; leadId?: string | undefined; beforeSeq?: number | undefined },
    limit: number,
  ): SyncLogRow[] => {
    const where: SQL[] = [];
    if (filter.direction !== undefined) where.push(eq(crmSyncLog.direction, filter.direction));
    if (filter.outcome !== undefined) where.push(eq(crmSyncLog.outcome, filter.outcome));
    if (filter.leadId !== undefined) where.push(eq(crmSyncLog.leadId, filter.leadId));
    if (filter.beforeSeq !== undefined) where.push(lt(crmSyncLog.seq, filter.beforeSeq));
    return db
      .select()
      .from(crmSyncLog)
      .where(where.length > 0 ? and(...where) : undefined)
      .orderBy(desc(crmSyncLog.seq))
      .limit(limit)
      .all();
  },

  pullState: (db: Db, crm: string): PullStateRow | undefined => db.select().from(crmPullState).where(eq(crmPullState.crm, crm)).get(),

  savePullState: (
    db: Db,
    row: { crm: string; cursor?: string | null; lastPolledAt?: number; intervalMs: number; lastError: string | null; now: number },
  ): void => {
    const changes = {
      ...(row.cursor !== undefined ? { cursor: row.cursor } : {}),
      ...(row.lastPolledAt !== undefined ? { lastPolledAt: row.lastPolledAt } : {}),
      intervalMs: row.intervalMs,
      lastError: row.lastError,
      updatedAt: row.now,
    };
    db.insert(crmPullState)
      .values({
        crm: row.crm,
        cursor: row.cursor ?? null,
        lastPolledAt: row.lastPolledAt ?? null,
        intervalMs: row.intervalMs,
        lastError: row.lastError,
        updatedAt: row.now,
      })
      .onConflictDoUpdate({ target: crmPullState.crm, set: changes })
      .run();
  },
};
