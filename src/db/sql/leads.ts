import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { perDb, rawByName, updaterById } from '../prepared.js';
import { leads } from '../schema.js';

/*
 * The engine's statements on `leads`, in SQL: the due-work queue (which leads are due, moving a
 * lead's due time), reading a lead, and finding the leads an inbound event is about.
 *
 * Two things keep SQLite from compiling these again on every call (it runs with STAT4, which
 * re-plans a statement when a value bound where the planner may use it changes): a limit is
 * written `LIMIT (SELECT ?)`, which the planner does not look into, and no value is bound
 * where a partial index's condition is tested.
 */

export type LeadRow = typeof leads.$inferSelect;

/**
 * Every column of a lead. A lead row comes from better-sqlite3 as an array (raw mode), each column
 * found by its name in the statement (`rawByName`), and is mapped by name in one object literal
 * (`leadOf`): the row object better-sqlite3 would build key by key is a slow dictionary object,
 * and the engine reads several leads a send. test/db/sql/leads.test.ts fails when a column of the
 * schema is missing here.
 */
const LEAD_NAMES = [
  'seq',
  'id',
  'campaign_id',
  'account_id',
  'network_url',
  'full_name',
  'first_name',
  'last_name',
  'job_title',
  'company_name',
  'company_network',
  'website',
  'email',
  'location',
  'headline',
  'personalization',
  'work_experience',
  'tag',
  'tagged_at',
  'polite_close_pending_at',
  'stage',
  'excluded',
  'replied',
  'needs_reply',
  'replied_at',
  'last_inbound_message_at',
  'connection_request_accepted',
  'message_sent',
  'source',
  'provider_id',
  'chat_id',
  'next_action_at',
  'sequence_step',
  'invited_at',
  'connected_at',
  'last_sequence_sent_at',
  'send_attempts',
  'pending_reply_text',
  'agent_send_kind',
  'agent_send_text',
  'agent_turns',
  'invitation_withdrawn_at',
  'created_at',
  'updated_at',
] as const;
export const LEAD_COLUMNS = LEAD_NAMES.join(', ');

type LeadAt = Readonly<Record<(typeof LEAD_NAMES)[number], number>>;

export function leadOf(r: unknown[], at: LeadAt): LeadRow {
  return {
    seq: r[at.seq] as number,
    id: r[at.id] as string,
    campaignId: r[at.campaign_id] as string,
    accountId: r[at.account_id] as string | null,
    networkUrl: r[at.network_url] as string | null,
    fullName: r[at.full_name] as string | null,
    firstName: r[at.first_name] as string | null,
    lastName: r[at.last_name] as string | null,
    jobTitle: r[at.job_title] as string | null,
    companyName: r[at.company_name] as string | null,
    companyNetwork: r[at.company_network] as string | null,
    website: r[at.website] as string | null,
    email: r[at.email] as string | null,
    location: r[at.location] as string | null,
    headline: r[at.headline] as string | null,
    personalization: r[at.personalization] as string | null,
    workExperience: r[at.work_experience] as string,
    tag: r[at.tag] as string | null,
    taggedAt: r[at.tagged_at] as number | null,
    politeClosePendingAt: r[at.polite_close_pending_at] as number | null,
    stage: r[at.stage] as string,
    excluded: r[at.excluded] === 1,
    replied: r[at.replied] === 1,
    needsReply: r[at.needs_reply] === 1,
    repliedAt: r[at.replied_at] as number | null,
    lastInboundMessageAt: r[at.last_inbound_message_at] as number | null,
    connectionRequestAccepted: r[at.connection_request_accepted] === 1,
    messageSent: r[at.message_sent] === 1,
    source: r[at.source] as string,
    providerId: r[at.provider_id] as string | null,
    chatId: r[at.chat_id] as string | null,
    nextActionAt: r[at.next_action_at] as number | null,
    sequenceStep: r[at.sequence_step] as number,
    invitedAt: r[at.invited_at] as number | null,
    connectedAt: r[at.connected_at] as number | null,
    lastSequenceSentAt: r[at.last_sequence_sent_at] as number | null,
    sendAttempts: r[at.send_attempts] as number,
    pendingReplyText: r[at.pending_reply_text] as string | null,
    agentSendKind: r[at.agent_send_kind] as string | null,
    agentSendText: r[at.agent_send_text] as string | null,
    agentTurns: r[at.agent_turns] as number,
    invitationWithdrawnAt: r[at.invitation_withdrawn_at] as number | null,
    createdAt: r[at.created_at] as number,
    updatedAt: r[at.updated_at] as number,
  };
}

const LEAD = LEAD_COLUMNS;
const LEAD_D = LEAD_NAMES.map((c) => `l.${c}`).join(', ');

/** A statement whose rows are leads. */
export interface LeadRows<P extends unknown[]> {
  get(...params: P): LeadRow | undefined;
  all(...params: P): LeadRow[];
}

function leadRows<P extends unknown[]>(prepared: Statement<P>): LeadRows<P> {
  const { stmt, at } = rawByName(prepared, LEAD_NAMES);
  return {
    get: (...params) => {
      const row = stmt.get(...params);
      return row === undefined ? undefined : leadOf(row, at);
    },
    all: (...params) => stmt.all(...params).map((row) => leadOf(row, at)),
  };
}

/**
 * Up to `limit` leads of each campaign in the JSON array `ids` that match `due` (a condition on
 * the leads_due index, alias `d`), in one statement: one index seek per campaign inside SQLite,
 * so a tick over 200 running campaigns costs one statement, not 200.
 */
const ofMany = (due: string) =>
  `SELECT ${LEAD_D} FROM leads l WHERE l.seq IN (SELECT s.seq FROM json_each(@ids) j, leads s WHERE s.seq IN (
     SELECT d.seq FROM leads d WHERE d.campaign_id = j.value AND ${due} ORDER BY d.next_action_at LIMIT (SELECT @limit)))`;

export interface LeadStatements {
  byId: LeadRows<[string]>;
  /** Leads with a polite close pending, oldest first: ordered so, SQLite seeks the polite-close index past its nulls. */
  closing: LeadRows<[{ limit: number }]>;
  scheduledOfMany: LeadRows<[{ ids: string; now: number; limit: number }]>;
  freshOfMany: LeadRows<[{ ids: string; limit: number }]>;
  /** Per campaign of the JSON array `ids`: when its earliest lead with work after `now` comes due (null if none). */
  nextScheduled: Statement<[{ ids: string; now: number }], { id: string; at: number | null }>;
  /** Of the campaigns in the JSON array `ids`, those with no lead that has work left. */
  withoutWorkLeft: Statement<[{ ids: string }], string>;
  anyOfCampaign: Statement<[string], number>;
  workLeftInCampaign: Statement<[string], number>;
  closingInCampaign: Statement<[string], number>;
  /** Sets a lead's due time unless it changed since it was read (`from`, or null). */
  moveDueFromNull: Statement<[{ leadId: string; to: number | null }]>;
  moveDueFromAt: Statement<[{ leadId: string; from: number; to: number | null }]>;
  /** Makes a lead scheduled later due now (1: before any sim time); a lead due now, new, or with no work left is left alone. */
  wake: Statement<[string]>;
  byUrl: LeadRows<[string]>;
  byProviderId: LeadRows<[string]>;
}

export const leadStatements: (db: Db) => LeadStatements = perDb((db) => {
  const c = db.$client;
  const rows = <P extends unknown[]>(sql: string) => leadRows<P>(c.prepare<P>(sql));
  const one = (sql: string) => c.prepare<[string], number>(sql).pluck();
  return {
    byId: rows<[string]>(`SELECT ${LEAD} FROM leads WHERE id = ?`),
    closing: rows<[{ limit: number }]>(
      `SELECT ${LEAD} FROM leads WHERE polite_close_pending_at IS NOT NULL ORDER BY polite_close_pending_at LIMIT (SELECT @limit)`,
    ),
    scheduledOfMany: rows<[{ ids: string; now: number; limit: number }]>(ofMany('d.next_action_at > 0 AND d.next_action_at <= @now')),
    freshOfMany: rows<[{ ids: string; limit: number }]>(ofMany('d.next_action_at = 0')),
    nextScheduled: c.prepare<[{ ids: string; now: number }], { id: string; at: number | null }>(
      `SELECT j.value AS id, (SELECT min(l.next_action_at) FROM leads l WHERE l.campaign_id = j.value AND l.next_action_at > @now) AS at
       FROM json_each(@ids) j`,
    ),
    withoutWorkLeft: c
      .prepare<[{ ids: string }], string>(
        'SELECT j.value FROM json_each(@ids) j WHERE NOT EXISTS (SELECT 1 FROM leads l WHERE l.campaign_id = j.value AND l.next_action_at IS NOT NULL)',
      )
      .pluck(),
    anyOfCampaign: one('SELECT 1 FROM leads WHERE campaign_id = ? LIMIT 1'),
    workLeftInCampaign: one('SELECT 1 FROM leads WHERE campaign_id = ? AND next_action_at IS NOT NULL LIMIT 1'),
    closingInCampaign: one('SELECT 1 FROM leads WHERE polite_close_pending_at IS NOT NULL AND campaign_id = ? LIMIT 1'),
    moveDueFromNull: c.prepare('UPDATE leads SET next_action_at = @to WHERE id = @leadId AND next_action_at IS NULL'),
    moveDueFromAt: c.prepare('UPDATE leads SET next_action_at = @to WHERE id = @leadId AND next_action_at = @from'),
    wake: c.prepare<[string]>('UPDATE leads SET next_action_at = 1 WHERE id = ? AND next_action_at > 1'),
    byUrl: rows<[string]>(`SELECT ${LEAD} FROM leads WHERE network_url = ?`),
    byProviderId: rows<[string]>(`SELECT ${LEAD} FROM leads WHERE provider_id = ?`),
  };
});

/** Writes changes to one lead (a statement prepared per set of changed columns: the engine writes leads on every send). */
export const updateLeadById = updaterById(leads);

/**
 * What each search index holds (migration 0011 created them on exactly these expressions, and
 * 0031 made them partial, `WHERE <expression> <> ''`; a query uses an expression index only when
 * it compares the identical expression, and a partial one only when it states the same
 * condition). The name is what lists show (composeFullName); the last name falls back to what
 * follows the first space of the full name, for leads imported with one name column. A lead
 * with a blank key (no name, no company) is not in that index: naming it later, as enrichment
 * does, is one insert per index rather than a move out of the blank keys.
 */
export const SEARCH_EXPRESSIONS = {
  leads_search_name: "coalesce(nullif(trim(full_name), ''), trim(coalesce(trim(first_name), '') || ' ' || coalesce(trim(last_name), '')))",
  leads_search_last_name: "coalesce(nullif(trim(last_name), ''), nullif(substr(trim(full_name), instr(trim(full_name), ' ') + 1), trim(full_name)))",
  leads_search_company: 'trim(company_name)',
} as const;

/** A search range: the campaign, `from` (inclusive) to `to` (exclusive), and how many rows to read. */
export type SearchRange = [campaignId: string, from: string, to: string, limit: number];

export interface LeadSearchStatements {
  /** Per search index: the campaign's leads whose expression (ASCII case folded) is in the range, in its order then seq. */
  byExpression: Statement<SearchRange, Record<string, unknown>>[];
  /** The campaign's leads whose profile URL is in the range, in URL order. */
  byUrlRange: Statement<SearchRange, Record<string, unknown>>;
  /** The campaign's lead with this profile URL (at most one). */
  byUrl: Statement<[campaignId: string, url: string], Record<string, unknown>>;
}

/**
 * The lead search's statements, prepared once per connection (`select` is the SELECT list,
 * columns named as in code). Each reads a range of an index that starts with the campaign, up
 * to the limit. Every value is bound as `(SELECT ?)`: under STAT4 a value bound where the
 * planner may look makes SQLite compile the statement again on every call, and the plan
 * (each index's range, no sort) does not depend on the values.
 */
export function prepareLeadSearch(db: Db, select: string): LeadSearchStatements {
  const c = db.$client;
  const range = (key: string, where = '') =>
    c.prepare<SearchRange, Record<string, unknown>>(
      `SELECT ${select} FROM leads WHERE campaign_id = (SELECT ?)${where} AND ${key} >= (SELECT ?) AND ${key} < (SELECT ?) ORDER BY ${key}, seq LIMIT (SELECT ?)`,
    );
  return {
    // The partial index's condition, stated as the index states it (a prefix is never blank, so it drops no match).
    byExpression: Object.values(SEARCH_EXPRESSIONS).map((expr) => range(`${expr} COLLATE NOCASE`, ` AND ${expr} <> ''`)),
    byUrlRange: range('network_url'),
    byUrl: c.prepare(`SELECT ${select} FROM leads WHERE campaign_id = (SELECT ?) AND network_url = (SELECT ?)`),
  };
}

/** The lead fields a profile lookup may fill, as the lead holds them. */
export interface EnrichableFields {
  firstName: string | null;
  lastName: string | null;
  fullName: string | null;
  headline: string | null;
  jobTitle: string | null;
  companyName: string | null;
  location: string | null;
}

/*
 * Enrichment's statements: the lead's fillable fields, read inside the write transaction that
 * fills them (so what it reads is what it writes over: the fill itself is `updateLeadById`, with
 * only the columns that change, and an index whose key is unchanged is left alone); and the lead's
 * enrichment record kept beside it (lead_enrichment).
 */
export const enrichmentStatements = perDb((db) => {
  const c = db.$client;
  return {
    fields: c.prepare<[string], EnrichableFields>(
      'SELECT first_name AS firstName, last_name AS lastName, full_name AS fullName, headline, job_title AS jobTitle, company_name AS companyName, location FROM leads WHERE id = ?',
    ),
    /** Marks an existing record enriched (a lead whose earlier lookups failed); no record, no change. */
    reset: c.prepare<[{ leadId: string; at: number }]>(
      'UPDATE lead_enrichment SET failures = 0, last_error = NULL, enriched_at = @at, updated_at = @at WHERE lead_id = @leadId',
    ),
    enriched: c.prepare<[{ leadId: string; at: number }]>(
      `INSERT INTO lead_enrichment (lead_id, failures, last_error, enriched_at, updated_at) VALUES (@leadId, 0, NULL, @at, @at)
       ON CONFLICT (lead_id) DO UPDATE SET failures = 0, last_error = NULL, enriched_at = @at, updated_at = @at`,
    ),
  };
});
