import type Database from 'better-sqlite3';
import { and, count, desc, eq, inArray, isNotNull, lt, ne, or, param, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { perDb } from '../../db/prepared.js';
import { leadEnrichment, leads } from '../../db/schema.js';
import { updateLeadById } from '../../db/sql/leads.js';
import { countRows } from '../../db/tx.js';
import type { KeysetSource } from '../../db/keyset.js';

/**
 * SQL of the leads table that the shared statements (src/db/sql/leads.ts) do not hold: a lead's
 * row and detail, the dedupe lookup and the one insert behind every way a lead is added, the
 * list pages of each (filter, sort) pair, and the bulk writes of generated leads (the fixture's
 * millions), which go straight through one prepared INSERT for speed; and the exclusion of every
 * lead with a profile URL, a lead's reply state and its delete (one lead's other columns are written
 * through `updateLeadById`, src/db/sql/leads.ts). Rows come back keyed by name (drizzle's column
 * maps), never by position.
 */

/**
 * The columns a list reads: the public fields plus what paging and the source rule need.
 * Selecting an allowlist (not the row) keeps provider ids, chat ids, personalization and
 * account ids out of the query itself.
 */
export const LEAD_COLUMNS = {
  seq: leads.seq,
  id: leads.id,
  source: leads.source,
  fullName: leads.fullName,
  firstName: leads.firstName,
  lastName: leads.lastName,
  networkUrl: leads.networkUrl,
  jobTitle: leads.jobTitle,
  location: leads.location,
  companyName: leads.companyName,
  companyNetwork: leads.companyNetwork,
  website: leads.website,
  email: leads.email,
  tag: leads.tag,
  replied: leads.replied,
  needsReply: leads.needsReply,
  excluded: leads.excluded,
  stage: leads.stage,
  createdAt: leads.createdAt,
  repliedAt: leads.repliedAt,
  lastInboundMessageAt: leads.lastInboundMessageAt,
  taggedAt: leads.taggedAt,
};

const LEAD_DETAIL_COLUMNS = {
  ...LEAD_COLUMNS,
  headline: leads.headline,
  workExperience: leads.workExperience,
  connectionRequestAccepted: leads.connectionRequestAccepted,
  messageSent: leads.messageSent,
};

export type LeadRow = typeof leads.$inferSelect;
export type LeadListRow = Pick<LeadRow, keyof typeof LEAD_COLUMNS>;
export type LeadDetailRow = Pick<LeadRow, keyof typeof LEAD_DETAIL_COLUMNS>;

/**
 * The statements placing a lead runs, prepared once per connection: a batch runs them up to a
 * hundred times, and building and preparing a drizzle query cost more than running it.
 */
const leadStatements = perDb((db) => ({
  inCampaign: db
    .select({ id: leads.id })
    .from(leads)
    .where(and(eq(leads.campaignId, sql.placeholder('campaignId')), eq(leads.networkUrl, sql.placeholder('url'))))
    .prepare(),
  insert: db
    .insert(leads)
    .values({
      id: sql.placeholder('id'),
      campaignId: sql.placeholder('campaignId'),
      networkUrl: sql.placeholder('networkUrl'),
      fullName: sql.placeholder('fullName'),
      firstName: sql.placeholder('firstName'),
      lastName: sql.placeholder('lastName'),
      jobTitle: sql.placeholder('jobTitle'),
      companyName: sql.placeholder('companyName'),
      companyNetwork: sql.placeholder('companyNetwork'),
      website: sql.placeholder('website'),
      email: sql.placeholder('email'),
      location: sql.placeholder('location'),
      headline: sql.placeholder('headline'),
      personalization: sql.placeholder('personalization'),
      providerId: sql.placeholder('providerId'),
      excluded: sql.placeholder('excluded'),
      source: sql.placeholder('source'),
      createdAt: sql.placeholder('now'),
      updatedAt: sql.placeholder('now'),
    })
    .prepare(),
  detail: db
    .select(LEAD_DETAIL_COLUMNS)
    .from(leads)
    .where(and(eq(leads.id, sql.placeholder('leadId')), eq(leads.campaignId, sql.placeholder('campaignId'))))
    .prepare(),
}));

/** The id of the lead with this normalised profile URL in the campaign, if any. */
export const leadIdByUrl = (db: Db, campaignId: string, url: string): string | undefined => leadStatements(db).inCampaign.get({ campaignId, url })?.id;

/** What `insertLeadRow` writes: every field as stored (already cleaned), `now` for both timestamps. */
export type NewLeadRow = {
  id: string;
  campaignId: string;
  networkUrl: string;
  fullName: string | null;
  firstName: string | null;
  lastName: string | null;
  jobTitle: string | null;
  companyName: string | null;
  companyNetwork: string | null;
  website: string | null;
  email: string | null;
  location: string | null;
  headline: string | null;
  personalization: string | null;
  providerId: string | null;
  excluded: boolean;
  source: string;
  now: number;
};

/** Inserts one lead row through the statement prepared once per connection. */
export function insertLeadRow(db: Db, row: NewLeadRow): void {
  leadStatements(db).insert.run(row);
}

/** The stored row of one lead of a campaign, internal fields included. */
export const leadRow = (db: Db, campaignId: string, leadId: string): LeadRow | undefined =>
  db
    .select()
    .from(leads)
    .where(and(eq(leads.id, leadId), eq(leads.campaignId, campaignId)))
    .get();

/** Whether a lead with this profile URL is in a campaign other than `campaignId`. */
export const urlInOtherCampaign = (db: Db, campaignId: string, url: string): boolean =>
  db
    .select({ id: leads.id })
    .from(leads)
    .where(and(eq(leads.networkUrl, url), ne(leads.campaignId, campaignId)))
    .limit(1)
    .get() !== undefined;

/** The columns a lead's detail shows, for one lead of a campaign. */
export const leadDetailRow = (db: Db, campaignId: string, leadId: string): LeadDetailRow | undefined => leadStatements(db).detail.get({ leadId, campaignId });

/** The filters a campaign's lead list takes, at most one at a time. */
export type LeadListFilter = 'tag' | 'replied' | 'needsReply' | 'excluded';
/** The sorts of a campaign's lead list. */
export type LeadListSort = 'createdAt' | 'taggedAt' | 'repliedAt' | 'lastInboundMessageAt';

const SORT_COLUMNS = {
  createdAt: leads.createdAt,
  taggedAt: leads.taggedAt,
  repliedAt: leads.repliedAt,
  lastInboundMessageAt: leads.lastInboundMessageAt,
} as const;

/** A filter's condition on its bound value; excluded takes only true. */
function filterCondition(filter: LeadListFilter | undefined, value: SQLWrapper): SQL | undefined {
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

/** The condition of a filter on its value, bound as a parameter (for reads built per call). */
export const leadListWhere = (filter: LeadListFilter | undefined, value: string | number | null): SQL | undefined => filterCondition(filter, param(value));

/** The statements of one (filter, sort) pair, with the campaign and filter value as parameters. */
function prepareLeadList(db: Db, filter: LeadListFilter | undefined, sort: LeadListSort) {
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

type LeadListStatements = ReturnType<typeof prepareLeadList>;

/** Per connection, the statements of each (filter, sort) pair used so far (at most 9). */
const leadListStatements = perDb(() => new Map<string, LeadListStatements>());

function statementsFor(db: Db, filter: LeadListFilter | undefined, sort: LeadListSort): LeadListStatements {
  const cache = leadListStatements(db);
  const key = `${filter ?? 'none'}|${sort}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const made = prepareLeadList(db, filter, sort);
  cache.set(key, made);
  return made;
}

/**
 * One (filter, sort) list of a campaign's leads, newest first, leads without the sort's field
 * left out; `filterValue` is the filter's bound value as SQLite stores it (the tag, 0 or 1).
 */
export function leadList(
  db: Db,
  campaignId: string,
  filter: LeadListFilter | undefined,
  filterValue: string | number | null,
  sort: LeadListSort,
): KeysetSource<LeadListRow> {
  const st = statementsFor(db, filter, sort);
  const base = { campaignId, filterValue };
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

/** One prepared INSERT of `columns` (SQL names, the schema's), bound by position in that order. */
export function leadInserter(db: Db, columns: readonly string[]): (values: readonly unknown[]) => void {
  const insert = db.$client.prepare(`INSERT INTO leads (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  return (values) => {
    insert.run(values);
  };
}

/** The highest lead id strictly between `above` and `below`, or null when there is none. */
export const highestLeadIdBetween = (db: Db, above: string, below: string): string | null =>
  (db.$client.prepare<[string, string], string | null>('SELECT max(id) FROM leads WHERE id > ? AND id < ?').pluck().get(above, below) ?? null) as string | null;

/**
 * Runs `write` with a large page cache (1 GiB), so the hot index pages stay in memory for the
 * length of a bulk insert; the connection's own size comes back afterwards.
 */
export function withLargePageCache<T>(db: Db, write: () => T): T {
  const client: Database.Database = db.$client;
  const previous = client.pragma('cache_size', { simple: true }) as number;
  client.pragma('cache_size = -262144');
  try {
    return write();
  } finally {
    client.pragma(`cache_size = ${previous}`);
  }
}

/** How many leads of the whole workspace are excluded. */
export const excludedLeadCount = (db: Db): number => db.select({ n: count() }).from(leads).where(eq(leads.excluded, true)).get()?.n ?? 0;

/** A campaign's leads counted per sender (`accountId`, null for unassigned). */
export const leadsPerSender = (db: Db, campaignId: string): { accountId: string | null; n: number }[] =>
  db.select({ accountId: leads.accountId, n: count() }).from(leads).where(eq(leads.campaignId, campaignId)).groupBy(leads.accountId).all();

/** The fields that excluding a lead, or taking it back, writes on its row. */
export type LeadExclusionChange = Pick<
  typeof leads.$inferInsert,
  'excluded' | 'politeClosePendingAt' | 'pendingReplyText' | 'agentSendKind' | 'agentSendText' | 'nextActionAt' | 'updatedAt'
>;

/**
 * Writes the exclusion fields of every lead with this profile URL, in every campaign, that is
 * not excluded yet or still has a polite close or an agent's answer pending (the others already
 * hold them).
 */
export function writeExclusionByUrl(db: Db, networkUrl: string, change: LeadExclusionChange): void {
  db.update(leads)
    .set(change)
    .where(
      and(
        eq(leads.networkUrl, networkUrl),
        or(eq(leads.excluded, false), isNotNull(leads.politeClosePendingAt), isNotNull(leads.agentSendKind), isNotNull(leads.pendingReplyText)),
      ),
    )
    .run();
}

/** Marks a lead as owed no reply, dropping an agent answer still waiting to be decided or sent. */
export function clearLeadNeedsReply(db: Db, leadId: string, now: number): void {
  updateLeadById(db, leadId, { needsReply: false, pendingReplyText: null, agentSendKind: null, agentSendText: null, updatedAt: now });
}

/** The lead's sender (null before it has one) and campaign; undefined when there is no such lead. */
export const leadSenderOf = (db: Db, leadId: string): { accountId: string | null; campaignId: string } | undefined =>
  db.select({ accountId: leads.accountId, campaignId: leads.campaignId }).from(leads).where(eq(leads.id, leadId)).get();

/** Deletes one lead of a campaign; the number of rows deleted (0 when the campaign holds no such lead). */
export const deleteLeadOfCampaign = (db: Db, campaignId: string, leadId: string): number =>
  db
    .delete(leads)
    .where(and(eq(leads.id, leadId), eq(leads.campaignId, campaignId)))
    .run().changes;

/** Deletes a lead's enrichment record. */
export function deleteLeadEnrichment(db: Db, leadId: string): void {
  db.delete(leadEnrichment).where(eq(leadEnrichment.leadId, leadId)).run();
}

/** The names and profile URLs of those of `leadIds` that are leads of the campaign. */
export const leadNamesInCampaign = (
  db: Db,
  campaignId: string,
  leadIds: readonly string[],
): Pick<LeadRow, 'id' | 'fullName' | 'firstName' | 'lastName' | 'networkUrl'>[] =>
  db
    .select({ id: leads.id, fullName: leads.fullName, firstName: leads.firstName, lastName: leads.lastName, networkUrl: leads.networkUrl })
    .from(leads)
    .where(and(eq(leads.campaignId, campaignId), inArray(leads.id, leadIds)))
    .all();

/** Whether the campaign has any lead. */
export const campaignHasLeads = (db: Db, campaignId: string): boolean => countRows(db, leads, eq(leads.campaignId, campaignId)) > 0;
