import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { perDb } from '../prepared.js';

/*
 * The step runner's statements on `lead_positions`, `lead_step_variants`, `step_events` and
 * `step_stats` (src/core/sequences/store.ts is their one caller): the engine moves a lead's
 * position, records a step and counts it for every step a lead passes, so they are prepared once
 * per connection on better-sqlite3's own `prepare`. An event's type is written into the statement,
 * not bound: `step_events_skips` is a partial index on it, and with a bound value SQLite would
 * plan the statement again on every call.
 */

export interface PositionRow {
  leadId: string;
  campaignId: string;
  agentId: string;
  stepId: string | null;
  enteredAt: number;
  endReason: string | null;
  endedAt: number | null;
}

export interface EventRow {
  seq: number;
  leadId: string;
  campaignId: string;
  agentId: string;
  stepId: string;
  kind: string;
  variant: string;
  event: string;
  reason: string | null;
  at: number;
}

export interface PlaceValues {
  leadId: string;
  campaignId: string;
  agentId: string;
  stepId: string | null;
  at: number;
  endReason: string | null;
  endedAt: number | null;
}

type Counted = 'sent' | 'skipped' | 'accepted' | 'replied' | 'bounced';

export interface SequenceStatements {
  position: Statement<[string], PositionRow>;
  /** Puts the lead at a step, or ends it there, whatever position it had. */
  place: Statement<[PlaceValues]>;
  /** A first position; one already there is kept. */
  start: Statement<[PlaceValues]>;
  move: Statement<[{ leadId: string; stepId: string; at: number }]>;
  end: Statement<[{ leadId: string; reason: string; at: number }]>;
  variant: Statement<[string, string], string>;
  insertVariant: Statement<[string, string, string, number]>;
  insertEvent: Statement<[Omit<EventRow, 'seq'>]>;
  /** Adds one to a step's count for a variant, by kind of event. */
  count: Record<Counted, Statement<[string, string, string, string]>>;
  /** 1 when the lead has an event of this kind already. */
  has: Record<'accepted' | 'replied', Statement<[string], number>>;
  /** The lead's last invitation sent. */
  lastInvite: Statement<[string], EventRow>;
  /** The last invitation, message, InMail or email sent to the lead at or before a time. */
  lastReaching: Statement<[string, number], EventRow>;
  /** The last email sent to the lead at or before a time. */
  lastEmail: Statement<[string, number], EventRow>;
}

const EVENT_COLUMNS = 'seq, lead_id AS leadId, campaign_id AS campaignId, agent_id AS agentId, step_id AS stepId, kind, variant, event, reason, at';

export const sequenceStatements: (db: Db) => SequenceStatements = perDb((db) => {
  const c = db.$client;
  const insertPosition = `INSERT INTO lead_positions (lead_id, campaign_id, agent_id, step_id, entered_at, end_reason, ended_at, updated_at)
    VALUES (@leadId, @campaignId, @agentId, @stepId, @at, @endReason, @endedAt, @at)`;
  const count = (column: Counted) =>
    c.prepare<[string, string, string, string]>(
      `INSERT INTO step_stats (agent_id, campaign_id, step_id, variant, ${column}) VALUES (?, ?, ?, ?, 1)
       ON CONFLICT (agent_id, campaign_id, step_id, variant) DO UPDATE SET ${column} = ${column} + 1`,
    );
  const has = (event: 'accepted' | 'replied') =>
    c.prepare<[string], number>(`SELECT 1 FROM step_events WHERE lead_id = ? AND event = '${event}' LIMIT 1`).pluck();
  return {
    position: c.prepare<[string], PositionRow>(
      `SELECT lead_id AS leadId, campaign_id AS campaignId, agent_id AS agentId, step_id AS stepId, entered_at AS enteredAt,
       end_reason AS endReason, ended_at AS endedAt FROM lead_positions WHERE lead_id = ?`,
    ),
    place: c.prepare<[PlaceValues]>(
      `${insertPosition} ON CONFLICT (lead_id) DO UPDATE SET campaign_id = excluded.campaign_id, agent_id = excluded.agent_id,
       step_id = excluded.step_id, entered_at = excluded.entered_at, end_reason = excluded.end_reason, ended_at = excluded.ended_at,
       updated_at = excluded.updated_at`,
    ),
    start: c.prepare<[PlaceValues]>(`${insertPosition} ON CONFLICT (lead_id) DO NOTHING`),
    move: c.prepare('UPDATE lead_positions SET step_id = @stepId, entered_at = @at, updated_at = @at WHERE lead_id = @leadId AND ended_at IS NULL'),
    end: c.prepare(
      'UPDATE lead_positions SET step_id = NULL, end_reason = @reason, ended_at = @at, updated_at = @at WHERE lead_id = @leadId AND ended_at IS NULL',
    ),
    variant: c.prepare<[string, string], string>('SELECT variant FROM lead_step_variants WHERE lead_id = ? AND step_id = ?').pluck(),
    insertVariant: c.prepare<[string, string, string, number]>(
      'INSERT INTO lead_step_variants (lead_id, step_id, variant, drawn_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    insertEvent: c.prepare<[Omit<EventRow, 'seq'>]>(
      `INSERT INTO step_events (lead_id, campaign_id, agent_id, step_id, kind, variant, event, reason, at)
       VALUES (@leadId, @campaignId, @agentId, @stepId, @kind, @variant, @event, @reason, @at)`,
    ),
    count: { sent: count('sent'), skipped: count('skipped'), accepted: count('accepted'), replied: count('replied'), bounced: count('bounced') },
    has: { accepted: has('accepted'), replied: has('replied') },
    lastInvite: c.prepare<[string], EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM step_events WHERE lead_id = ? AND kind = 'invite' AND event = 'sent' ORDER BY seq DESC LIMIT 1`,
    ),
    lastReaching: c.prepare<[string, number], EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM step_events WHERE lead_id = ? AND event = 'sent' AND kind IN ('invite', 'message', 'inmail', 'email') AND at <= ?
       ORDER BY at DESC, seq DESC LIMIT 1`,
    ),
    lastEmail: c.prepare<[string, number], EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM step_events WHERE lead_id = ? AND event = 'sent' AND kind = 'email' AND at <= ? ORDER BY at DESC, seq DESC LIMIT 1`,
    ),
  };
});
