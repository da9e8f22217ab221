import type { SQL } from 'drizzle-orm';
import { z } from 'zod';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { validationError } from '../errors.js';
import { keysetPage } from '../keyset.js';
import type { LeadTag } from './enums.js';
import { toLead, type Lead } from './lead.js';
import { leadList, leadListWhere, type LeadListRow } from './store.js';

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
  const where = leadListWhere(filter, filterValue(input, filter));
  const filterKey = filter ? `${filter}=${String(input[filter])}` : '';
  return { filter, where, scope: `leads|${input.campaignId}|${filterKey}|${input.sort}` };
}

/** The bound value of the filter: the tag, or a boolean as SQLite stores it (0 or 1). */
function filterValue(input: ListLeadsInput, filter: LeadFilter | undefined): string | number | null {
  const value = filter === undefined || filter === 'excluded' ? null : input[filter];
  return typeof value === 'boolean' ? Number(value) : (value ?? null);
}

/** A page of a campaign's leads, newest first by the chosen sort; leads without that field are left out. */
export function listLeads(ctx: Ctx, secret: string, input: ListLeadsInput): { leads: Lead[]; nextCursor: string | null } {
  const query = leadListQuery(input);
  requireCampaignRow(ctx, input.campaignId);
  const page = keysetPage<LeadListRow>(secret, {
    scope: query.scope,
    cursor: input.cursor,
    limit: input.limit,
    source: leadList(ctx.db, input.campaignId, query.filter, filterValue(input, query.filter), input.sort),
    position: (row) => ({ value: row[input.sort] as number, seq: row.seq }),
  });
  return { leads: page.items.map(toLead), nextCursor: page.nextCursor };
}
