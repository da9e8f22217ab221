import { and, asc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import { leads } from '../../db/schema.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { validationError } from '../errors.js';
import { LEAD_COLUMNS, toLead, type Lead, type LeadListRow } from './lead.js';
import { normalizeProfileUrl } from './url.js';

export const SEARCH_QUERY_MAX = 200;
export const SEARCH_LIMIT_MAX = 50;

const PROFILE_PREFIX = 'https://www.linkedin.com/in/';

/**
 * What each search index holds (migration 0011 creates them on exactly these expressions; a
 * query uses an expression index only when it compares the identical expression). The name is
 * what lists show (composeFullName); the last name falls back to what follows the first space
 * of the full name, for leads imported with one name column.
 */
export const SEARCH_EXPRESSIONS = {
  leads_search_name: "coalesce(nullif(trim(full_name), ''), trim(coalesce(trim(first_name), '') || ' ' || coalesce(trim(last_name), '')))",
  leads_search_last_name: "coalesce(nullif(trim(last_name), ''), nullif(substr(trim(full_name), instr(trim(full_name), ' ') + 1), trim(full_name)))",
  leads_search_company: 'trim(company_name)',
} as const;
/** Above every character a stored value can hold: `prefix + TOP` bounds the values that start with `prefix`. */
const TOP = '\u{10FFFF}';

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
  const inCampaign = eq(leads.campaignId, input.campaignId);
  const rows = (where: SQL, orderBy: SQL) =>
    ctx.db.select(LEAD_COLUMNS).from(leads).where(and(inCampaign, where)).orderBy(orderBy, asc(leads.seq)).limit(take).all();

  const url = profileUrlOf(query);
  let found: LeadListRow[][];
  if (url !== null) {
    found = [rows(eq(leads.networkUrl, url), sql`${leads.seq}`)];
  } else {
    const prefix = (expr: SQL) => {
      const folded = sql`${expr} COLLATE NOCASE`;
      return rows(and(gte(folded, query), lt(folded, query + TOP)) as SQL, folded);
    };
    found = Object.values(SEARCH_EXPRESSIONS).map((expr) => prefix(sql.raw(expr)));
    // A single word may be a profile slug; slugs are stored lower-case.
    if (!query.includes(' ')) {
      const slug = PROFILE_PREFIX + query.toLowerCase();
      found.push(rows(and(gte(leads.networkUrl, slug), lt(leads.networkUrl, slug + TOP)) as SQL, sql`${leads.networkUrl}`));
    }
  }

  const bySeq = new Map<number, LeadListRow>();
  for (const list of found) for (const row of list) bySeq.set(row.seq, row);
  const merged = [...bySeq.values()].map(toLead);
  const name = (l: Lead) => (l.fullName ?? l.networkUrl ?? l.id).toLowerCase();
  merged.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
  const more = merged.length > input.limit || found.some((list) => list.length > input.limit);
  return { leads: merged.slice(0, input.limit), more };
}
