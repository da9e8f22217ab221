import type { Statement } from 'better-sqlite3';
import { and, eq } from 'drizzle-orm';
import { asCampaignStateWriter } from '../../db/campaign-writer.js';
import { perDb } from '../../db/prepared.js';
import { campaigns } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/**
 * The campaigns table's writes of what the state machine decides (./state-machine.ts): a new
 * row, its status, its importing lease. This module is the only one that may open the gate of
 * src/db/campaign-writer.ts (dependency rule `campaign-state-writer`), so SQLite refuses these
 * writes from anywhere else; which status may follow which is the state machine's to say, and
 * each write here repeats the `from` statuses it is handed, so a concurrent change makes it a
 * no-op instead of a wrong transition. Also here: the plain reads and writes of campaign rows
 * that other verbs need in SQL (the fixture's totals, the lease read).
 */

type CampaignInsert = typeof campaigns.$inferInsert;
export type LeaseColumns = Pick<typeof campaigns.$inferSelect, 'importing' | 'importingHolder' | 'importingHost' | 'importingPid' | 'importingUntil'>;

/** One prepared status update per set of `from` statuses, built once per connection: adding leads applies one on every insert. */
const statusStatements = perDb(() => new Map<string, Statement<[string, number, string]>>());

/**
 * Sets a campaign's status to `to` when it is in one of `from` (wall time `now`). True when it
 * changed: false when the campaign does not exist or is in another status.
 */
export function writeCampaignStatus(ctx: Pick<Ctx, 'db'>, campaignId: string, from: readonly string[], to: string, now: number): boolean {
  const byFrom = statusStatements(ctx.db);
  // The statuses are the state machine's constants, written inline: a fixed IN list plans once.
  const list = from.map((s) => `'${s}'`).join(', ');
  let stmt = byFrom.get(list);
  if (!stmt) {
    stmt = ctx.db.$client.prepare<[string, number, string]>(`UPDATE campaigns SET status = ?, updated_at = ? WHERE id = ? AND status IN (${list})`);
    byFrom.set(list, stmt);
  }
  const prepared = stmt;
  return asCampaignStateWriter(ctx.db.$client, () => prepared.run(to, now, campaignId).changes === 1);
}

/** Inserts a campaign row as given, status and importing mark included; `ifMissing` leaves an existing one alone. */
export function insertCampaignRow(ctx: Pick<Ctx, 'db'>, row: CampaignInsert, opts: { ifMissing?: boolean } = {}): void {
  asCampaignStateWriter(ctx.db.$client, () => {
    const insert = ctx.db.insert(campaigns).values(row);
    (opts.ifMissing ? insert.onConflictDoNothing() : insert).run();
  });
}

/** A campaign's importing lease as it stands; undefined when there is no such campaign. */
export function leaseOf(ctx: Pick<Ctx, 'db'>, campaignId: string): LeaseColumns | undefined {
  return ctx.db
    .select({
      importing: campaigns.importing,
      importingHolder: campaigns.importingHolder,
      importingHost: campaigns.importingHost,
      importingPid: campaigns.importingPid,
      importingUntil: campaigns.importingUntil,
    })
    .from(campaigns)
    .where(eq(campaigns.id, campaignId))
    .get();
}

/** Writes lease columns (wall time `now`), only while `holder` holds the lease when one is given. Returns the rows changed. */
export function writeLeaseColumns(ctx: Pick<Ctx, 'db'>, campaignId: string, set: Partial<LeaseColumns>, now: number, holder?: string): number {
  const where = holder === undefined ? eq(campaigns.id, campaignId) : and(eq(campaigns.id, campaignId), eq(campaigns.importingHolder, holder));
  return asCampaignStateWriter(
    ctx.db.$client,
    () =>
      ctx.db
        .update(campaigns)
        .set({ ...set, updatedAt: now })
        .where(where)
        .run().changes,
  );
}

const rowStatements = perDb((db) => ({
  exists: db.$client.prepare<[string], number>('SELECT 1 FROM campaigns WHERE id = ?').pluck(),
  addTotal: db.$client.prepare<[number, string]>('UPDATE campaigns SET total_leads = total_leads + ? WHERE id = ?'),
}));

/** Whether the campaign exists. */
export const campaignExists = (ctx: Pick<Ctx, 'db'>, campaignId: string): boolean => rowStatements(ctx.db).exists.get(campaignId) !== undefined;

/** Counts `count` more leads in a campaign's total (leads written in bulk, the fixture's). */
export function addToTotalLeads(ctx: Pick<Ctx, 'db'>, campaignId: string, count: number): void {
  rowStatements(ctx.db).addTotal.run(count, campaignId);
}
