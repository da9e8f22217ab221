import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { perDb, rowsOf, selectList, updaterById, type RowStatement } from '../prepared.js';
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

const LEAD = selectList(leads);
const LEAD_D = selectList(leads, 'l');

/**
 * Up to `limit` leads of each campaign in the JSON array `ids` that match `due` (a condition on
 * the leads_due index, alias `d`), in one statement: one index seek per campaign inside SQLite,
 * so a tick over 200 running campaigns costs one statement, not 200.
 */
const ofMany = (due: string) =>
  `SELECT ${LEAD_D} FROM leads l WHERE l.seq IN (SELECT s.seq FROM json_each(@ids) j, leads s WHERE s.seq IN (
     SELECT d.seq FROM leads d WHERE d.campaign_id = j.value AND ${due} ORDER BY d.next_action_at LIMIT (SELECT @limit)))`;

export interface LeadStatements {
  byId: RowStatement<[string], LeadRow>;
  /** Leads with a polite close pending, oldest first: ordered so, SQLite seeks the polite-close index past its nulls. */
  closing: RowStatement<[{ limit: number }], LeadRow>;
  scheduledOfMany: RowStatement<[{ ids: string; now: number; limit: number }], LeadRow>;
  freshOfMany: RowStatement<[{ ids: string; limit: number }], LeadRow>;
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
  byUrl: RowStatement<[string], LeadRow>;
  byProviderId: RowStatement<[string], LeadRow>;
}

export const leadStatements: (db: Db) => LeadStatements = perDb((db) => {
  const c = db.$client;
  const rows = <P extends unknown[]>(sql: string) => rowsOf<P, LeadRow>(leads, c.prepare<P, Record<string, unknown>>(sql));
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
    byUrl: rows<[string]>(`SELECT ${LEAD} FROM leads WHERE network_url = ?`),
    byProviderId: rows<[string]>(`SELECT ${LEAD} FROM leads WHERE provider_id = ?`),
  };
});

/** Writes changes to one lead (a statement prepared per set of changed columns: the engine writes leads on every send). */
export const updateLeadById = updaterById(leads);
