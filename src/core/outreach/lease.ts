import type { Db } from '../../db/connection.js';
import { workspaceStatements } from '../../db/sql/workspace.js';
import { transaction } from '../../db/tx.js';
import type { Clock } from '../clock.js';
import { holderGone, thisProcess, type HolderProcess } from '../holder.js';
import { clearEngineLease, engineStateRow, raiseSimTime, writeEngineLease } from './store.js';

/**
 * Takes or renews the engine lease: only one engine drives a database, because `outreach
 * start` and `outreach mcp` may share one. A lease that is not renewed lapses after `ttlMs`
 * of wall time, so a crashed holder is replaced. The holder's host and pid go with the lease:
 * a holder that is provably gone (same host, no such process: killed, then restarted at once)
 * is replaced at once instead of after its time. Returns whether `holder` now holds it.
 */
export function acquireLease(db: Db, wall: Clock, holder: string, ttlMs: number, proc: HolderProcess = thisProcess()): boolean {
  return transaction(db, () => {
    const now = wall.now();
    const row = engineStateRow(db);
    const live = row !== undefined && row.holder !== null && row.leaseExpiresAt > now && !holderGone({ host: row.holderHost, pid: row.holderPid });
    if (row?.holder !== holder && live) return false;
    writeEngineLease(db, { holder, holderHost: proc.host, holderPid: proc.pid, leaseExpiresAt: now + ttlMs });
    return true;
  });
}

/** Gives the lease up at once, so a standby engine can take over without waiting. */
export function releaseLease(db: Db, holder: string): void {
  clearEngineLease(db, holder);
}

/** Who holds the lease now, if anyone. Every send and completion check reads it (fencing): a prepared statement. */
export function leaseHolder(db: Db, wall: Clock): string | null {
  const row = workspaceStatements(db).engineState.get();
  return row && row.holder !== null && row.leaseExpiresAt > wall.now() ? row.holder : null;
}

/** Remembers how far simulated time got, so the next run's sim clock starts no earlier. */
export function recordSimTime(db: Db, simNow: number): void {
  raiseSimTime(db, simNow);
}

export function simHighWater(db: Db): number {
  return engineStateRow(db)?.simNow ?? 0;
}
