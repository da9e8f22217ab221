import type { Statement } from 'better-sqlite3';
import { and, desc, eq, exists, lt, sql, type SQL } from 'drizzle-orm';
import { asCampaignStateWriter } from '../../db/campaign-writer.js';
import { perDb } from '../../db/prepared.js';
import { campaigns, drafts, leads } from '../../db/schema.js';
import { countRows } from '../../db/tx.js';
import type { Ctx } from '../context.js';

/**
 * The campaigns table's writes of what the state machine decides (./state-machine.ts): a new
 * row, its status, its importing lease. This module is the only one that may open the gate of
 * src/db/campaign-writer.ts (dependency rule `campaign-state-writer`), so SQLite refuses these
 * writes from anywhere else; which status may follow which is the state machine's to say, and
 * each write here repeats the `from` statuses it is handed, so a concurrent change makes it a
 * no-op instead of a wrong transition. Also here: the plain reads and writes of campaign rows
 * that other verbs need in SQL (reads by id and pages, the totals, the lease read).
 */

type CampaignInsert = typeof campaigns.$inferInsert;
export type CampaignRow = typeof campaigns.$inferSelect;
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

/** Writes the columns of `set` to a campaign's row (the plain ones: name, agent, senders, mailboxes, approval, update time). */
export function updateCampaignColumns(ctx: Pick<Ctx, 'db'>, campaignId: string, set: Partial<CampaignRow>): void {
  ctx.db.update(campaigns).set(set).where(eq(campaigns.id, campaignId)).run();
}

/** Whether the campaign exists. */
export const campaignExists = (ctx: Pick<Ctx, 'db'>, campaignId: string): boolean => rowStatements(ctx.db).exists.get(campaignId) !== undefined;

/** A campaign's total of leads; undefined when there is no such campaign. */
export const totalLeadsOf = (ctx: Pick<Ctx, 'db'>, campaignId: string): number | undefined =>
  ctx.db.select({ n: campaigns.totalLeads }).from(campaigns).where(eq(campaigns.id, campaignId)).get()?.n;

/** Counts `count` more leads in a campaign's total (leads written in bulk, the fixture's). */
export function addToTotalLeads(ctx: Pick<Ctx, 'db'>, campaignId: string, count: number): void {
  rowStatements(ctx.db).addTotal.run(count, campaignId);
}

/** Every campaign-scoped route reads its campaign first, so the lookup is prepared once. */
const byId = perDb((db) =>
  db
    .select()
    .from(campaigns)
    .where(eq(campaigns.id, sql.placeholder('id')))
    .prepare(),
);

/** The campaign's row; undefined when there is none. */
export const campaignRow = (ctx: Pick<Ctx, 'db'>, id: string): CampaignRow | undefined => byId(ctx.db).get({ id });

/** Every campaign's id, oldest first. */
export const campaignIds = (ctx: Pick<Ctx, 'db'>): string[] =>
  ctx.db
    .select({ id: campaigns.id })
    .from(campaigns)
    .orderBy(campaigns.seq)
    .all()
    .map((r) => r.id);

/**
 * Up to `limit` campaign rows newest first (by seq), below `beforeSeq` when given, within `status`
 * when given and within `reach` (a condition on the campaign id, or undefined for all).
 */
export function campaignPage(
  ctx: Pick<Ctx, 'db'>,
  page: { status?: string | undefined; reach: (column: typeof campaigns.id) => SQL | undefined; beforeSeq?: number | undefined; limit: number },
): CampaignRow[] {
  const conds = [page.status ? eq(campaigns.status, page.status) : undefined, page.reach(campaigns.id)];
  if (page.beforeSeq !== undefined) conds.push(lt(campaigns.seq, page.beforeSeq));
  return ctx.db
    .select()
    .from(campaigns)
    .where(and(...conds))
    .orderBy(desc(campaigns.seq))
    .limit(page.limit)
    .all();
}

/** Whether the campaign with this `seq` is still in the list of `status` (when given) within `reach`: a cursor's check. */
export function campaignListed(
  ctx: Pick<Ctx, 'db'>,
  seq: number,
  status: string | undefined,
  reach: (column: typeof campaigns.id) => SQL | undefined,
): boolean {
  return countRows(ctx.db, campaigns, and(eq(campaigns.seq, seq), status ? eq(campaigns.status, status) : undefined, reach(campaigns.id))) > 0;
}

/** The condition, on the campaigns table, that a campaign has a draft waiting for a person. */
const hasPendingDrafts = (ctx: Pick<Ctx, 'db'>): SQL =>
  exists(
    ctx.db
      .select({ one: sql`1` })
      .from(drafts)
      .where(and(eq(drafts.campaignId, campaigns.id), eq(drafts.status, 'pending'))),
  );

/** Prepared once per connection: every add books through it. */
const bookInserts = perDb((db) =>
  db
    .update(campaigns)
    .set({
      totalLeads: sql`${campaigns.totalLeads} + ${sql.placeholder('count')}`,
      updatedAt: sql`${sql.placeholder('now')}`,
    })
    .where(eq(campaigns.id, sql.placeholder('campaignId')))
    .prepare(),
);

/** Adds `count` inserted leads to a campaign's total, with its update time. */
export function bookInsertedLeads(ctx: Pick<Ctx, 'db'>, campaignId: string, count: number, now: number): void {
  bookInserts(ctx.db).run({ campaignId, count, now });
}

/** Takes one deleted lead off a campaign's total (never below zero), with its update time. */
export function bookDeletedLead(ctx: Pick<Ctx, 'db'>, campaignId: string, now: number): void {
  ctx.db
    .update(campaigns)
    .set({ totalLeads: sql`max(${campaigns.totalLeads} - 1, 0)`, updatedAt: now })
    .where(eq(campaigns.id, campaignId))
    .run();
}

/** Sets a campaign's total to the count of its lead rows, with its update time. */
export function recountTotalLeads(ctx: Pick<Ctx, 'db'>, campaignId: string, now: number): void {
  ctx.db
    .update(campaigns)
    .set({ totalLeads: sql`(SELECT count(*) FROM ${leads} WHERE ${leads.campaignId} = ${campaignId})`, updatedAt: now })
    .where(eq(campaigns.id, campaignId))
    .run();
}

/** Campaigns as a completion reads them (by id and name), within `reach` on the id column, and only those with a pending draft when `withPendingDrafts`. */
export const campaignCompletable = (ctx: Pick<Ctx, 'db'>, reach: (id: typeof campaigns.id) => SQL | undefined, withPendingDrafts: boolean) => ({
  table: campaigns,
  id: campaigns.id,
  name: campaigns.name,
  where: and(withPendingDrafts ? hasPendingDrafts(ctx) : undefined, reach(campaigns.id)),
});

/** The outreach counters summed over the campaigns within `reach` (a condition on the id, or undefined for all). */
export const campaignCounterSums = (ctx: Pick<Ctx, 'db'>, reach: (id: typeof campaigns.id) => SQL | undefined) =>
  ctx.db
    .select({
      repliesReceived: sql<number>`coalesce(sum(${campaigns.repliesReceived}), 0)`,
      connectionRequestsSent: sql<number>`coalesce(sum(${campaigns.connectionRequestsSent}), 0)`,
      connectionRequestsAccepted: sql<number>`coalesce(sum(${campaigns.connectionRequestsAccepted}), 0)`,
      messagesSent: sql<number>`coalesce(sum(${campaigns.messagesSent}), 0)`,
    })
    .from(campaigns)
    .where(reach(campaigns.id))
    .get();

/** Up to `limit` campaign rows within `reach` (a condition on the id column), the most recently updated first. */
export const recentlyUpdatedCampaignRows = (ctx: Pick<Ctx, 'db'>, reach: (id: typeof campaigns.id) => SQL | undefined, limit: number): CampaignRow[] =>
  ctx.db.select().from(campaigns).where(reach(campaigns.id)).orderBy(desc(campaigns.updatedAt), desc(campaigns.seq)).limit(limit).all();
