import type Database from 'better-sqlite3';
import { and, desc, eq, isNotNull } from 'drizzle-orm';
import type { LeadFilter, LeadSort, ListLeadsInput } from '../../src/core/leads/list.js';
import type { Db } from '../../src/db/connection.js';
import type { App } from './app.js';

/** One (filter, sort) pair of the list_leads matrix, with the filter value the bench uses. */
export interface ListCase {
  /** e.g. `replied=false sort=repliedAt`; `sort=createdAt` alone without a filter. */
  name: string;
  filter: LeadFilter | 'none';
  value: string | boolean | undefined;
  sort: LeadSort;
}

/**
 * The values each filter is benched with. A tag filter is one exact tag on one index, so a
 * single tag stands for all six; both values of each boolean filter have their own share of
 * the campaign, so both run.
 */
export const FILTER_VALUES: Record<LeadFilter, readonly (string | boolean)[]> = {
  tag: ['Interested'],
  replied: [true, false],
  needsReply: [true, false],
  excluded: [true],
};

/** Every allowed (filter value, sort) pair of the spec's sort matrix, in matrix order. */
export function listCases(sortsByFilter: Record<LeadFilter | 'none', readonly LeadSort[]>, values = FILTER_VALUES): ListCase[] {
  const out: ListCase[] = [];
  for (const [filter, sorts] of Object.entries(sortsByFilter) as [LeadFilter | 'none', readonly LeadSort[]][]) {
    const filterValues: readonly (string | boolean | undefined)[] = filter === 'none' ? [undefined] : values[filter];
    for (const value of filterValues) {
      for (const sort of sorts) {
        const name = filter === 'none' ? `sort=${sort}` : `${filter}=${String(value)} sort=${sort}`;
        out.push({ name, filter, value, sort });
      }
    }
  }
  return out;
}

/** The list_leads input of a case (as the tool's parsed input). */
export function caseInput(campaignId: string, c: ListCase, limit: number, cursor?: string): ListLeadsInput {
  const input: ListLeadsInput = { campaignId, sort: c.sort, limit };
  if (c.filter !== 'none') Object.assign(input, { [c.filter]: c.value });
  if (cursor !== undefined) input.cursor = cursor;
  return input;
}

/** The REST path of a case's page. */
export function casePath(campaignId: string, c: ListCase, limit: number, cursor?: string | null): string {
  const query = new URLSearchParams();
  if (c.filter !== 'none') query.set(c.filter, String(c.value));
  query.set('sort', c.sort);
  query.set('limit', String(limit));
  if (cursor) query.set('cursor', cursor);
  return `/public/v1/campaigns/${encodeURIComponent(campaignId)}/leads?${query}`;
}

/**
 * The cursor that opens page `page` (1-based; page 1 has none), built instead of walked:
 * walking to page 1000 of 13 lists would cost 13,000 requests before the first measurement.
 * A cursor holds the (sort value, seq) of the last row served, signed over the list's scope,
 * so the cursor of page N is the position of the row at offset (N-1)·limit-1 in the list's
 * order (sort DESC, seq DESC), signed with the workspace's cursor secret over the scope that
 * `leadListQuery` gives, through the core's own `encodeCursor`. The bench test checks that
 * it equals the nextCursor a walk returns. Null when the list is too short for that page.
 */
export function pageCursor(app: App, db: Db, secret: string, input: ListLeadsInput, page: number): string | null {
  if (page === 1) return null;
  const { leads } = app.schema;
  const query = app.leadList.leadListQuery(input);
  const col = leads[input.sort];
  const row = db
    .select({ value: col, seq: leads.seq })
    .from(leads)
    .where(and(eq(leads.campaignId, input.campaignId), query.where, isNotNull(col)))
    .orderBy(desc(col), desc(leads.seq))
    .limit(1)
    .offset((page - 1) * input.limit - 1)
    .get();
  if (!row || row.value === null) return null;
  return app.cursor.encodeCursor(secret, query.scope, [row.value, row.seq]);
}

/** A SELECT a verb sent to SQLite, with its parameters. */
export interface CapturedQuery {
  sql: string;
  params: unknown[];
}

/** The SELECTs on the leads table that `fn` runs, in order (the keyset query and its cursor check). */
export function captureLeadQueries(db: Db, fn: () => void): CapturedQuery[] {
  const client = db.$client;
  const prepare = client.prepare;
  const seen: CapturedQuery[] = [];
  client.prepare = function (this: Database.Database, sql: string) {
    const stmt = prepare.call(client, sql);
    if (!/^\s*select\b/i.test(sql) || !/\bfrom\s+"leads"/i.test(sql)) return stmt;
    for (const method of ['all', 'get'] as const) {
      const run = stmt[method].bind(stmt) as (...params: unknown[]) => unknown;
      Object.defineProperty(stmt, method, {
        value: (...params: unknown[]) => {
          seen.push({ sql, params });
          return run(...params);
        },
      });
    }
    return stmt;
  } as typeof client.prepare;
  try {
    fn();
  } finally {
    client.prepare = prepare;
  }
  return seen;
}

/**
 * The raw baseline: the same SQL with the same parameters, prepared once on the same
 * connection and run with better-sqlite3's `all()`, with no query building, row mapping,
 * campaign check or cursor signing around it. `objects` is better-sqlite3's default (a row
 * object per row, what a hand-written handler runs); `arrays` is its raw mode, the least
 * reading the rows can cost.
 */
export function rawQueries(client: Database.Database, queries: readonly CapturedQuery[], rows: 'objects' | 'arrays' = 'objects'): () => number {
  const prepared = queries.map((q) => ({ stmt: client.prepare(q.sql).raw(rows === 'arrays'), params: q.params }));
  return () => {
    let rows = 0;
    for (const { stmt, params } of prepared) rows += stmt.all(...params).length;
    return rows;
  };
}
