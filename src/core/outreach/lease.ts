import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { engineState } from '../../db/schema.js';
import { workspaceStatements } from '../../db/sql/workspace.js';
import { transaction } from '../../db/tx.js';
import type { Clock } from '../clock.js';

const ROW = 1;

/**
 * Takes or renews the engine lease: only one engine drives a database, because `outreach
 * start` and `outreach mcp` may share one. A lease that is not renewed lapses after `ttlMs`
 * of wall time, so a crashed holder is replaced. Returns whether `holder` now holds it.
 */
export function acquireLease(db: Db, wall: Clock, holder: string, ttlMs: number): boolean {
  return transaction(db, () => {
    const now = wall.now();
    const row = db.select().from(engineState).where(eq(engineState.id, ROW)).get();
    if (!row) {
      db.insert(engineState)
        .values({ id: ROW, holder, leaseExpiresAt: now + ttlMs })
        .run();
      return true;
    }
    if (row.holder !== holder && row.holder !== null && row.leaseExpiresAt > now) return false;
    db.update(engineState)
      .set({ holder, leaseExpiresAt: now + ttlMs })
      .where(eq(engineState.id, ROW))
      .run();
    return true;
  });
}

/** Gives the lease up at once, so a standby engine can take over without waiting. */
export function releaseLease(db: Db, holder: string): void {
  db.update(engineState).set({ holder: null, leaseExpiresAt: 0 }).where(sql`${engineState.id} = ${ROW} AND ${engineState.holder} = ${holder}`).run();
}

/** Who holds the lease now, if anyone. Every send and completion check reads it (fencing): a prepared statement. */
export function leaseHolder(db: Db, wall: Clock): string | null {
  const row = workspaceStatements(db).engineState.get();
  return row && row.holder !== null && row.leaseExpiresAt > wall.now() ? row.holder : null;
}

/** Remembers how far simulated time got, so the next run's sim clock starts no earlier. */
export function recordSimTime(db: Db, simNow: number): void {
  db.insert(engineState)
    .values({ id: ROW, simNow })
    .onConflictDoUpdate({ target: engineState.id, set: { simNow: sql`max(${engineState.simNow}, ${simNow})` } })
    .run();
}

export function simHighWater(db: Db): number {
  return db.select({ simNow: engineState.simNow }).from(engineState).where(eq(engineState.id, ROW)).get()?.simNow ?? 0;
}
