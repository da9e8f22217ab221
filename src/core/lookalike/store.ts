import { and, asc, desc, eq, isNull, lte, or, sql } from 'drizzle-orm';
import { accounts, agents, lookalikeJobs } from '../../db/schema.js';
import { countRows } from '../../db/tx.js';
import type { Ctx } from '../context.js';

/**
 * SQL of the Lookalike jobs (./jobs.ts holds their rules, ./launch.ts queues them), and the agents
 * a new Lookalike campaign may get. Every write of a leased job names its holder (`held`), so a
 * worker presumed dead that comes back late changes nothing.
 */

type Conn = Pick<Ctx, 'db'>;

export type JobRow = typeof lookalikeJobs.$inferSelect;
export type NewJobRow = typeof lookalikeJobs.$inferInsert;

const held = (id: string, holder: string) => and(eq(lookalikeJobs.id, id), eq(lookalikeJobs.state, 'pending'), eq(lookalikeJobs.leasedBy, holder));

export const jobRow = (ctx: Conn, id: string): JobRow | undefined => ctx.db.select().from(lookalikeJobs).where(eq(lookalikeJobs.id, id)).get();

/** The first job of a campaign (the one that created it, for a Lookalike campaign). */
export const firstJobRowOf = (ctx: Conn, campaignId: string): JobRow | undefined =>
  ctx.db.select().from(lookalikeJobs).where(eq(lookalikeJobs.campaignId, campaignId)).orderBy(asc(lookalikeJobs.seq)).limit(1).get();

/** Queues a job: inserts its row as given. */
export function insertJobRow(ctx: Conn, row: NewJobRow): void {
  ctx.db.insert(lookalikeJobs).values(row).run();
}

/** Every agent, oldest first, with the status of its account (null when it has none). */
export const agentsWithAccountStatus = (ctx: Conn): { id: string; status: string | null }[] =>
  ctx.db
    .select({ id: agents.id, status: accounts.status })
    .from(agents)
    .leftJoin(accounts, eq(accounts.id, agents.accountId))
    .orderBy(asc(agents.createdAt), asc(agents.id))
    .all();

/** The latest job of a campaign for one query. */
export const latestJobRow = (ctx: Conn, campaignId: string, queryKey: string): JobRow | undefined =>
  ctx.db
    .select()
    .from(lookalikeJobs)
    .where(and(eq(lookalikeJobs.campaignId, campaignId), eq(lookalikeJobs.queryKey, queryKey)))
    .orderBy(desc(lookalikeJobs.seq))
    .limit(1)
    .get();

/** Up to `limit` due jobs at `now`, oldest first: pending, past their retry time, and not leased or leased until no later than `now`. */
export const dueJobRows = (ctx: Conn, now: number, limit: number): JobRow[] => {
  const t = lookalikeJobs;
  return ctx.db
    .select()
    .from(t)
    .where(and(eq(t.state, 'pending'), lte(t.nextAttemptAt, now), or(isNull(t.leasedUntil), lte(t.leasedUntil, now))))
    .orderBy(asc(t.seq))
    .limit(limit)
    .all();
};

/** Leases the job to `holder` until `until`, whoever held it. */
export function leaseJobRow(ctx: Conn, jobId: string, holder: string, until: number): void {
  ctx.db.update(lookalikeJobs).set({ leasedBy: holder, leasedUntil: until }).where(eq(lookalikeJobs.id, jobId)).run();
}

/** Moves the lease's end to `until`; false when the job is no longer pending and `holder`'s. */
export const renewJobLease = (ctx: Conn, jobId: string, holder: string, until: number): boolean =>
  ctx.db.update(lookalikeJobs).set({ leasedUntil: until }).where(held(jobId, holder)).run().changes === 1;

/** Drops `holder`'s lease of the job. */
export function releaseJobLease(ctx: Conn, jobId: string, holder: string): void {
  ctx.db.update(lookalikeJobs).set({ leasedBy: null, leasedUntil: null }).where(held(jobId, holder)).run();
}

/** What a committed page moves in its job. */
export type JobProgress = Pick<JobRow, 'inserted' | 'cursor' | 'exhausted' | 'leasedUntil' | 'updatedAt'>;

/** Moves the job past a page: its counts and cursor, a fresh lease end, and no error or attempts left over. */
export function writeJobProgress(ctx: Conn, jobId: string, progress: JobProgress): void {
  ctx.db
    .update(lookalikeJobs)
    .set({ ...progress, attempts: 0, errorCode: null })
    .where(eq(lookalikeJobs.id, jobId))
    .run();
}

/** Counts a failed attempt and frees the job for a retry at `retryAt`; false when it is no longer pending and `holder`'s. */
export const deferJobRow = (ctx: Conn, jobId: string, holder: string, retry: { at: number; errorCode: string; now: number }): boolean =>
  ctx.db
    .update(lookalikeJobs)
    .set({
      attempts: sql`${lookalikeJobs.attempts} + 1`,
      nextAttemptAt: retry.at,
      errorCode: retry.errorCode,
      leasedBy: null,
      leasedUntil: null,
      updatedAt: retry.now,
    })
    .where(held(jobId, holder))
    .run().changes === 1;

/** Marks the job done with its outcome and refund, unleased. */
export function writeJobDone(ctx: Conn, jobId: string, done: Pick<JobRow, 'outcome' | 'errorCode' | 'refunded'>, now: number): void {
  ctx.db
    .update(lookalikeJobs)
    .set({ state: 'done', ...done, leasedBy: null, leasedUntil: null, updatedAt: now, finishedAt: now })
    .where(eq(lookalikeJobs.id, jobId))
    .run();
}

/** Whether a Lookalike job is still waiting to add leads to the campaign. */
export const hasPendingJob = (ctx: Conn, campaignId: string): boolean =>
  countRows(ctx.db, lookalikeJobs, and(eq(lookalikeJobs.campaignId, campaignId), eq(lookalikeJobs.state, 'pending'))) > 0;
