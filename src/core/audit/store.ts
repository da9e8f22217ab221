import { and, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import { auditEvents, auditTargets } from '../../db/schema.js';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';

export type AuditRow = typeof auditEvents.$inferSelect;

const statements = perDb((db) => ({
  totalChanges: db.$client.prepare('SELECT total_changes()').pluck(),
  // Prepared once: a batch's event names up to 200 ids, one row each.
  event: db.$client.prepare<[Omit<AuditRow, 'seq'>]>(
    'INSERT INTO audit_events (id, actor_type, actor_id, actor_name, action, targets, summary, at) VALUES (@id, @actorType, @actorId, @actorName, @action, @targets, @summary, @at)',
  ),
  // The event's targets from the JSON list the event row holds: one statement, not one a target.
  targets: db.$client.prepare<[number, string]>('INSERT OR IGNORE INTO audit_targets (target_id, event_seq) SELECT value, ? FROM json_each(?)'),
}));

export interface AuditFilter {
  actorId?: string | undefined;
  targetId?: string | undefined;
  /** Wall-clock ms, inclusive. */
  since?: number | undefined;
  /** Wall-clock ms, exclusive. */
  until?: number | undefined;
  /** The seq of the last event of the previous page: this page starts below it. */
  beforeSeq?: number | undefined;
}

/** The audit tables' SQL, and nothing else's. Events are only ever inserted (migration 0025's triggers refuse the rest). */
export const auditStore = {
  /** Rows changed on this connection since it opened, triggers included: how a transaction tells it wrote. */
  totalChanges: (db: Db): number => statements(db).totalChanges.get() as number,
  /** The event and a target row for each id of its `targets` (a JSON list of strings). */
  insert: (db: Db, row: Omit<AuditRow, 'seq'>): void => {
    const st = statements(db);
    const seq = Number(st.event.run(row).lastInsertRowid);
    st.targets.run(seq, row.targets);
  },
  /** Newest first, `limit` rows. */
  page: (db: Db, filter: AuditFilter, limit: number): AuditRow[] => {
    const where: SQL[] = [];
    if (filter.actorId !== undefined) where.push(eq(auditEvents.actorId, filter.actorId));
    if (filter.targetId !== undefined) {
      where.push(inArray(auditEvents.seq, db.select({ s: auditTargets.eventSeq }).from(auditTargets).where(eq(auditTargets.targetId, filter.targetId))));
    }
    if (filter.since !== undefined) where.push(gte(auditEvents.at, filter.since));
    if (filter.until !== undefined) where.push(lt(auditEvents.at, filter.until));
    if (filter.beforeSeq !== undefined) where.push(lt(auditEvents.seq, filter.beforeSeq));
    return db
      .select()
      .from(auditEvents)
      .where(where.length > 0 ? and(...where) : undefined)
      .orderBy(desc(auditEvents.seq))
      .limit(limit)
      .all();
  },
};
