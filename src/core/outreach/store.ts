import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';
import { engineIntents, leadEnrichment } from '../../db/schema.js';
import { workspaceStatements, type EngineStateRow } from '../../db/sql/workspace.js';

/**
 * SQL of the engine's own tables that the shared statements (src/db/sql/intents.ts, leads.ts,
 * workspace.ts) do not hold: its row (`engine_state`, id 1: the lease and how far simulated time
 * got), the pending intents a restart settles, and the lookups of nameless leads.
 */

const ROW = 1;

export type { EngineStateRow };
export type EngineLease = Pick<EngineStateRow, 'holder' | 'holderHost' | 'holderPid' | 'leaseExpiresAt'>;

/**
 * The engine's row and lease writes, prepared once per connection: an engine takes or renews its
 * lease and records how far simulated time got on every renewal, and building those queries
 * cost several times running them.
 */
const engineStatements = perDb((db: Db) => {
  const c = db.$client;
  return {
    writeLease: c.prepare<[EngineLease]>(
      `INSERT INTO engine_state (id, holder, holder_host, holder_pid, lease_expires_at) VALUES (${ROW}, @holder, @holderHost, @holderPid, @leaseExpiresAt)
       ON CONFLICT (id) DO UPDATE SET holder = @holder, holder_host = @holderHost, holder_pid = @holderPid, lease_expires_at = @leaseExpiresAt`,
    ),
    clearLease: c.prepare<[string]>(`UPDATE engine_state SET holder = NULL, lease_expires_at = 0 WHERE id = ${ROW} AND holder = ?`),
    raiseSimTime: c.prepare<[{ simNow: number }]>(
      `INSERT INTO engine_state (id, sim_now) VALUES (${ROW}, @simNow) ON CONFLICT (id) DO UPDATE SET sim_now = max(sim_now, @simNow)`,
    ),
  };
});

/** The engine's row, undefined before any engine ran. */
export const engineStateRow = (db: Db): EngineStateRow | undefined => workspaceStatements(db).engineState.get();

/** Writes the lease columns, creating the row if there is none. */
export function writeEngineLease(db: Db, lease: EngineLease): void {
  engineStatements(db).writeLease.run(lease);
}

/** Clears the lease if `holder` holds it. */
export function clearEngineLease(db: Db, holder: string): void {
  engineStatements(db).clearLease.run(holder);
}

/** Moves the recorded sim time up to `simNow`, never back. */
export function raiseSimTime(db: Db, simNow: number): void {
  engineStatements(db).raiseSimTime.run({ simNow });
}

export type IntentRow = typeof engineIntents.$inferSelect;

/**
 * The intents still pending. `state = 'pending'` is written in, not bound: the condition of the
 * partial index engine_intents_pending (see src/db/sql/intents.ts).
 */
export const pendingIntentRows = (db: Db): IntentRow[] => db.select().from(engineIntents).where(sql`${engineIntents.state} = 'pending'`).all();

/** Stores an intent as given (its seq is SQLite's). */
export function insertIntentRow(db: Db, intent: Omit<typeof engineIntents.$inferInsert, 'seq'>): void {
  db.insert(engineIntents).values(intent).run();
}

export type EnrichmentRow = typeof leadEnrichment.$inferSelect;

/** What the engine recorded of a lead's lookups, if anything. */
export const enrichmentRow = (db: Db, leadId: string): EnrichmentRow | undefined =>
  db.select().from(leadEnrichment).where(eq(leadEnrichment.leadId, leadId)).get();

/** Counts one more failed lookup of the lead (with its error code, at `now`); returns the failures in a row. */
export function countEnrichmentFailure(db: Db, leadId: string, code: string, now: number): number {
  const row = db
    .insert(leadEnrichment)
    .values({ leadId, failures: 1, lastError: code, enrichedAt: null, updatedAt: now })
    .onConflictDoUpdate({ target: leadEnrichment.leadId, set: { failures: sql`${leadEnrichment.failures} + 1`, lastError: code, updatedAt: now } })
    .returning({ failures: leadEnrichment.failures })
    .get();
  return row?.failures ?? 1;
}
