import { and, desc, eq, isNotNull, lt, param, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';
import { leads } from '../../db/schema.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { validationError } from '../errors.js';
import { keysetPage, type KeysetSource } from '../keyset.js';
import type { LeadTag } from './enums.js';
import { LEAD_COLUMNS, toLead, type Lead, type LeadListRow } from './lead.js';

export const LEAD_SORTS = ['createdAt', 'taggedAt', 'repliedAt', 'lastInboundMessageAt'] as const;
export const LeadSort = z.enum(LEAD_SORTS);
export type LeadSort = z.infer<typeof LeadSort>;

export const LEAD_FILTERS = ['tag', 'replied', 'needsReply', 'excluded'] as const;
export type LeadFilter = (typeof LEAD_FILTERS)[number];

/** The sort matrix (spec, GET .../leads rule 2): the sorts each filter, or no filter, allows. */
export const SORTS_BY_FILTER: Record<LeadFilter | 'none', readonly LeadSort[]> = {
  none: ['createdAt', 'lastInboundMessageAt'],
  tag: ['createdAt', 'taggedAt'],
  replied: ['createdAt', 'repliedAt', 'lastInboundMessageAt'],
  needsReply: ['createdAt'],
  excluded: ['createdAt'],
};

const SORT_COLUMNS = {
  createdAt: leads.createdAt,
  taggedAt: leads.taggedAt,
  repliedAt: leads.repliedAt,
  lastInboundMessageAt: leads.lastInboundMessageAt,
} as const;

export interface ListLeadsInput {
  campaignId: string;
  tag?: LeadTag | undefined;
  replied?: boolean | undefined;
  needsReply?: boolean | undefined;
  excluded?: true | undefined;
  sort: LeadSort;
  limit: number;
  cursor?: string | undefined;
}

export interface LeadListQuery {
  /** The one filter given, if any. */
  filter: LeadFilter | undefined;
  /** The filter condition, without the campaign. */
  where: SQL | undefined;
  /** What a cursor is bound to: campaign, filter and its value, sort. */
  scope: string;
}

const describeSorts = (sorts: readonly LeadSort[]) => sorts.join(' or ');

/**
 * Checks the filter and sort rules and builds the filter. At most one filter; the sort must
 * be allowed for it. Each (filter, sort) pair has its own keyset index in the schema.
 */
export function leadListQuery(input: ListLeadsInput): LeadListQuery {
  const given = LEAD_FILTERS.filter((f) => input[f] !== undefined);
  if (given.length > 1) {
    throw validationError(
      `Use at most one of tag, replied, needsReply and excluded per request; got ${given.join(' and ')}. Filter by one and check the others in the results.`,
      given,
    );
  }
  const filter = given[0];
  const allowed = SORTS_BY_FILTER[filter ?? 'none'];
  if (!allowed.includes(input.sort)) {
    const context = filter ? `with the ${filter} filter` : 'without a filter';
    throw validationError(
      `sort=${input.sort} is not available ${context}; use ${describeSorts(allowed)}. taggedAt needs tag, repliedAt needs replied, and lastInboundMessageAt works with no filter or with replied.`,
      ['sort'],
    );
  }
  const where = filterCondition(filter, param(filterValue(input, filter)));
  const filterKey = filter ? `${filter}=${String(input[filter])}` : '';
  return { filter, where, scope: `leads|${input.campaignId}|${filterKey}|${input.sort}` };
}

/** The bound value of the filter: the tag, or a boolean as SQLite stores it (0 or 1). */
function filterValue(input: ListLeadsInput, filter: LeadFilter | undefined): string | number | null {
  const value = filter === undefined || filter === 'excluded' ? null : input[filter];
  return typeof value === 'boolean' ? Number(value) : (value ?? null);
}

/** The statements of one (filter, sort) pair, with the campaign and filter value as parameters. */
function prepareLeadList(db: Db, filter: LeadFilter | undefined, sort: LeadSort) {
  const col = SORT_COLUMNS[sort];
  const value = sql.placeholder('filterValue');
  const list = and(eq(leads.campaignId, sql.placeholder('campaignId')), filterCondition(filter, value));
  const page = (range: SQL) =>
    db.select(LEAD_COLUMNS).from(leads).where(and(list, range)).orderBy(desc(col), desc(leads.seq)).limit(sql.placeholder('limit')).prepare();
  return {
    first: page(isNotNull(col)),
    ties: page(and(eq(col, sql.placeholder('sortValue')), lt(leads.seq, sql.placeholder('seq'))) as SQL),
    older: page(lt(col, sql.placeholder('sortValue'))),
    holds: db
      .select({ n: sql<number>`count(*)` })
      .from(leads)
      .where(and(eq(leads.seq, sql.placeholder('seq')), list, isNotNull(col)))
      .prepare(),
  };
}

/** A filter's condition on its bound value (a parameter or a placeholder); excluded takes only true. */
function filterCondition(filter: LeadFilter | undefined, value: SQLWrapper): SQL | undefined {
  switch (filter) {
    case 'tag':
      return eq(leads.tag, value);
    case 'replied':
      return eq(leads.replied, value);
    case 'needsReply':
      return eq(leads.needsReply, value);
    case 'excluded':
      return eq(leads.excluded, true);
    case undefined:
      return undefined;
  }
}

type LeadListStatements = ReturnType<typeof prepareLeadList>;

/** Per connection, the statements of each (filter, sort) pair used so far (at most 9). */
const leadListStatements = perDb(() => new Map<string, LeadListStatements>());

function statementsFor(db: Db, filter: LeadFilter | undefined, sort: LeadSort): LeadListStatements {
  const cache = leadListStatements(db);
  const key = `${filter ?? 'none'}|${sort}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const made = prepareLeadList(db, filter, sort);
  cache.set(key, made);
  return made;
}

/** The list's rows through statements prepared once per (filter, sort) pair and connection. */
function preparedLeadSource(ctx: Ctx, input: ListLeadsInput, filter: LeadFilter | undefined): KeysetSource<LeadListRow> {
  const st = statementsFor(ctx.db, filter, input.sort);
  const base = { campaignId: input.campaignId, filterValue: filterValue(input, filter) };
  return {
    holds: (seq) => (st.holds.get({ ...base, seq })?.n ?? 0) > 0,
    fetch: (range, limit) => {
      switch (range.kind) {
        case 'first':
          return st.first.all({ ...base, limit });
        case 'ties':
          return st.ties.all({ ...base, sortValue: range.value, seq: range.seq, limit });
        case 'older':
          return st.older.all({ ...base, sortValue: range.value, limit });
      }
    },
  };
}

/** A page of a campaign's leads, newest first by the chosen sort; leads without that field are left out. */
export function listLeads(ctx: Ctx, secret: string, input: ListLeadsInput): { leads: Lead[]; nextCursor: string | null } {
  const query = leadListQuery(input);
  requireCampaignRow(ctx, input.campaignId);
  const page = keysetPage<LeadListRow>(secret, {
    scope: query.scope,
    cursor: input.cursor,
    limit: input.limit,
    source: preparedLeadSource(ctx, input, query.filter),
    position: (row) => ({ value: row[input.sort] as number, seq: row.seq }),
  });
  return { leads: page.items.map(toLead), nextCursor: page.nextCursor };
}
