import { perDb, quoted, rowsOf } from '../../db/prepared.js';
import { leads } from '../../db/schema.js';
import { prepareLeadSearch, type SearchRange } from '../../db/sql/leads.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { validationError } from '../errors.js';
import { toLead, type Lead } from './lead.js';
import { LEAD_COLUMNS, type LeadListRow } from './store.js';
import { normalizeProfileUrl } from './url.js';

export const SEARCH_QUERY_MAX = 200;
export const SEARCH_LIMIT_MAX = 50;

const PROFILE_PREFIX = 'https://www.linkedin.com/in/';

export { SEARCH_EXPRESSIONS } from '../../db/sql/leads.js';

/** Above every character a stored value can hold: `prefix + TOP` bounds the values that start with `prefix`. */
const TOP = '\u{10FFFF}';

/** The columns a lead list shows (LEAD_COLUMNS), named as in code. */
const LIST_SELECT = Object.entries(LEAD_COLUMNS)
  .map(([key, column]) => `${quoted(column.name)} AS ${quoted(key)}`)
  .join(', ');

/** Built once per connection: building and preparing the five statements took most of a search's time. */
const searchStatements = perDb((db) => {
  const s = prepareLeadSearch(db, LIST_SELECT);
  const ranges = (stmt: (typeof s)['byUrlRange']) => rowsOf<SearchRange, LeadListRow>(leads, stmt);
  return {
    byExpression: s.byExpression.map(ranges),
    byUrlRange: ranges(s.byUrlRange),
    byUrl: rowsOf<[campaignId: string, url: string], LeadListRow>(leads, s.byUrl),
  };
});

export interface SearchLeadsInput {
  campaignId: string;
  query: string;
  limit: number;
}

export interface SearchLeadsResult {
  leads: Lead[];
  /** More leads match than were returned: a longer query narrows them. */
  more: boolean;
}

/** A pasted profile URL, with or without its scheme, normalised as leads' are; null for anything else. */
function profileUrlOf(query: string): string | null {
  if (!/linkedin\.com\//i.test(query)) return null;
  return normalizeProfileUrl(query) ?? normalizeProfileUrl(`https://${query.replace(/^\/+/, '')}`);
}

/**
 * A campaign's leads whose name, last name or company starts with the query (case-insensitive
 * for ASCII letters), or whose profile URL is the one given or starts with the given slug.
 * Each match is a range over an index that starts with the campaign (leads_search_name,
 * leads_search_last_name, leads_search_company, leads_campaign_url), read up to `limit + 1`
 * rows, so the cost follows the page asked for, not the campaign's size. Results are ordered
 * by name; `more` says the page is not all of them.
 */
export function searchLeads(ctx: Ctx, input: SearchLeadsInput): SearchLeadsResult {
  const query = input.query.trim().replace(/\s+/g, ' ');
  if (query === '') throw validationError('query: give part of a name, a company or a profile URL.', ['query']);
  if (query.length > SEARCH_QUERY_MAX) throw validationError(`query: at most ${SEARCH_QUERY_MAX} characters.`, ['query']);
  requireCampaignRow(ctx, input.campaignId);
  const take = input.limit + 1;
  const statements = searchStatements(ctx.db);
  const inRange = (range: (typeof statements)['byUrlRange'], from: string): LeadListRow[] => range.all(input.campaignId, from, from + TOP, take);

  const url = profileUrlOf(query);
  let found: LeadListRow[][];
  if (url !== null) {
    found = [statements.byUrl.all(input.campaignId, url)];
  } else {
    found = statements.byExpression.map((stmt) => inRange(stmt, query));
    // A single word may be a profile slug; slugs are stored lower-case.
    if (!query.includes(' ')) found.push(inRange(statements.byUrlRange, PROFILE_PREFIX + query.toLowerCase()));
  }

  const bySeq = new Map<number, LeadListRow>();
  for (const list of found) for (const row of list) bySeq.set(row.seq, row);
  const merged = [...bySeq.values()].map(toLead);
  const name = (l: Lead) => (l.fullName ?? l.networkUrl ?? l.id).toLowerCase();
  merged.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
  const more = merged.length > input.limit || found.some((list) => list.length > input.limit);
  return { leads: merged.slice(0, input.limit), more };
}
