import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { bool } from './columns.js';

/**
 * Lookalike jobs: one per create or extend, written with the campaign change and the allowance
 * reservation in one transaction, so a committed launch is never lost and the worker can pick it
 * up in any process, after any restart. `cursor` and `inserted` move together with each page of
 * inserted leads, so a job resumed after a crash continues exactly where its last page ended.
 */
export const lookalikeJobs = sqliteTable(
  'lookalike_jobs',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `lkb_…`; an extend returns it as `extensionBatchId`. */
    id: text('id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    /** create | extend */
    kind: text('kind').notNull(),
    /** The seed as the provider receives it: a normalised profile URL, or the identifier as given. */
    seed: text('seed').notNull(),
    /** JSON array: lower-cased, de-duplicated, sorted. */
    jobTitleKeywords: text('job_title_keywords').notNull(),
    /** JSON array: upper-case ISO 3166-1 alpha-2, de-duplicated, sorted. */
    countries: text('countries').notNull(),
    /** seed + titles + countries in one string: the same key means an extend continues the pool. */
    queryKey: text('query_key').notNull(),
    protectAcrossCampaigns: bool('protect_across_campaigns').notNull(),
    requested: integer('requested').notNull(),
    /** What was reserved, and from which balance (refunds go back top-up first). */
    reserved: integer('reserved').notNull(),
    reservedCredits: integer('reserved_credits').notNull(),
    reservedTopUp: integer('reserved_top_up').notNull(),
    inserted: integer('inserted').notNull().default(0),
    /** fresh | continue; null on create. */
    resume: text('resume'),
    /** The provider cursor of the next page; null before the first page. */
    cursor: text('cursor'),
    /** The provider said the pool for this query has no more candidates. */
    exhausted: bool('exhausted').notNull().default(false),
    /** pending | done */
    state: text('state').notNull(),
    /** filled | exhausted | failed, once done. */
    outcome: text('outcome'),
    /** The provider's error code when the job failed. */
    errorCode: text('error_code'),
    /** Consecutive transient provider failures; reset by every page. */
    attempts: integer('attempts').notNull().default(0),
    /** Wall ms: not claimed before this (retry backoff). */
    nextAttemptAt: integer('next_attempt_at').notNull().default(0),
    leasedBy: text('leased_by'),
    /** Wall ms. A worker that dies leaves its lease behind; the job is claimed again once it passes. */
    leasedUntil: integer('leased_until'),
    /** Allowance given back when the job finished; null until then (so it is given back once). */
    refunded: integer('refunded'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [
    index('lookalike_jobs_due').on(t.state, t.nextAttemptAt),
    index('lookalike_jobs_query').on(t.campaignId, t.queryKey, t.seq),
    // At most one job in progress per campaign, whatever path writes it.
    uniqueIndex('lookalike_jobs_one_pending').on(t.campaignId).where(sql`${t.state} = 'pending'`),
  ],
);
