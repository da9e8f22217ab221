import { and, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import { auditEvents, auditTargets } from '../../db/schema.js';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';

export type AuditRow = typeof auditEvents.$inferSelect;

const totalChanges = perDb((db) => db.$client.prepare('SELECT total_changes() AS n').pluck());

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
  totalChanges: (db: Db): number => totalChanges(db).get() as number,
  insert: (db: Db, row: Omit<AuditRow, 'seq'>, targets: readonly string[]): void => {
    const { lastInsertRowid } = db.insert(auditEvents).values(row).run();
    const seq = Number(lastInsertRowid);
    if (targets.length > 0) {
      db.insert(auditTargets)
        .values(targets.map((targetId) => ({ targetId, eventSeq: seq })))
        .onConflictDoNothing()
        .run();
    }
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
