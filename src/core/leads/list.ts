import { and, desc, eq, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { leads } from '../../db/schema.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { validationError } from '../errors.js';
import { keysetPage } from '../keyset.js';
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
    throw validationError(`Use at most one of tag, replied, needsReply and excluded per request; got ${given.join(' and ')}. Filter by one and check the others in the results.`, given);
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
  let where: SQL | undefined;
  switch (filter) {
    case 'tag':
      where = eq(leads.tag, input.tag as LeadTag);
      break;
    case 'replied':
      where = eq(leads.replied, input.replied as boolean);
      break;
    case 'needsReply':
      where = eq(leads.needsReply, input.needsReply as boolean);
      break;
    case 'excluded':
      where = eq(leads.excluded, true);
      break;
    case undefined:
      break;
  }
  const filterKey = filter ? `${filter}=${String(input[filter])}` : '';
  return { where, scope: `leads|${input.campaignId}|${filterKey}|${input.sort}` };
}

/** A page of a campaign's leads, newest first by the chosen sort; leads without that field are left out. */
export function listLeads(ctx: Ctx, secret: string, input: ListLeadsInput): { leads: Lead[]; nextCursor: string | null } {
  const query = leadListQuery(input);
  requireCampaignRow(ctx, input.campaignId);
  const sort = SORT_COLUMNS[input.sort];
  const where = and(eq(leads.campaignId, input.campaignId), query.where);
  const page = keysetPage<LeadListRow>(ctx, secret, {
    scope: query.scope,
    cursor: input.cursor,
    limit: input.limit,
    table: leads,
    where,
    sort,
    seq: leads.seq,
    fetch: (extra, limit) =>
      ctx.db.select(LEAD_COLUMNS).from(leads).where(and(where, extra)).orderBy(desc(sort), desc(leads.seq)).limit(limit).all(),
    position: (row) => ({ value: row[input.sort] as number, seq: row.seq }),
  });
  return { leads: page.items.map(toLead), nextCursor: page.nextCursor };
}
