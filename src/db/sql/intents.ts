import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { inserterOf, perDb } from '../prepared.js';
import { engineIntents } from '../schema.js';

/*
 * The engine's statements on `engine_intents`: every send records an intent and settles it.
 * `state = 'pending'` is written into each statement, not bound: it is the condition of the
 * partial index engine_intents_pending, and with a bound value SQLite compiles the statement
 * again on every call to see whether the index applies (a pending check cost 7.5 µs, 2.7 so).
 */

export type IntentRow = typeof engineIntents.$inferSelect;

export interface SettleValues {
  id: string;
  state: string;
  settledAt: number;
  /** A field given null keeps its value (coalesce), as a partial update would. */
  chatId: string | null;
  messageId: string | null;
  errorCode: string | null;
}

export interface IntentStatements {
  /** 1 when the lead has an intent still pending. */
  pendingOfLead: Statement<[string], number>;
  /** 1 when the campaign has an intent still pending. */
  pendingOfCampaign: Statement<[string], number>;
  /** Marks a pending intent settled; changes 0 when it was settled already. */
  settle: Statement<[SettleValues]>;
  /** When the account's latest intent was made. */
  lastOfAccount: Statement<[string], number>;
  /** The minutes of the account's calls on a UTC day (account_call_minutes), comma-joined; undefined before its first. */
  minutesOfDay: Statement<[string, number], string>;
  /** Another account whose calls of the day are at exactly these minutes: one seek in account_call_minutes_day. */
  twinOfMinutes: Statement<[{ me: string; day: number; minutes: string }], string>;
  /** Adds a call at `minute` (of the day, as text: a number would be bound as a real, 600.0) to the account's day. */
  addCallMinute: Statement<[{ account: string; day: number; minute: string }]>;
  /**
   * The leads the account touched since `from` with a send of one of `kinds` (a JSON array: the
   * visits and likes; calls that did not fail) and has not invited yet, while they may still be
   * invited: the touches running ahead of its invitations. Each lead once, at most `upTo` of them
   * (one more than the account may still invite this week): the caller needs only to know whether
   * the leads other than one reach that.
   */
  touchedNotInvited: Statement<[{ account: string; from: number; kinds: string; upTo: number }], string>;
}

export const intentStatements: (db: Db) => IntentStatements = perDb((db) => {
  const c = db.$client;
  return {
    pendingOfLead: c.prepare<[string], number>("SELECT 1 FROM engine_intents WHERE lead_id = ? AND state = 'pending' LIMIT 1").pluck(),
    pendingOfCampaign: c.prepare<[string], number>("SELECT 1 FROM engine_intents WHERE state = 'pending' AND campaign_id = ? LIMIT 1").pluck(),
    settle: c.prepare<[SettleValues]>(
      `UPDATE engine_intents SET state = @state, settled_at = @settledAt, chat_id = coalesce(@chatId, chat_id),
       message_id = coalesce(@messageId, message_id), error_code = coalesce(@errorCode, error_code)
       WHERE id = @id AND state = 'pending'`,
    ),
    lastOfAccount: c.prepare<[string], number>('SELECT created_at FROM engine_intents WHERE account_id = ? ORDER BY created_at DESC LIMIT 1').pluck(),
    minutesOfDay: c.prepare<[string, number], string>('SELECT minutes FROM account_call_minutes WHERE account_id = ? AND day = ?').pluck(),
    twinOfMinutes: c
      .prepare<[{ me: string; day: number; minutes: string }], string>(
        'SELECT account_id FROM account_call_minutes WHERE day = @day AND minutes = @minutes AND account_id != @me LIMIT 1',
      )
      .pluck(),
    addCallMinute: c.prepare<[{ account: string; day: number; minute: string }]>(
      `INSERT INTO account_call_minutes (account_id, day, minutes, calls) VALUES (@account, @day, @minute, 1)
       ON CONFLICT (account_id, day) DO UPDATE SET minutes = minutes || ',' || excluded.minutes, calls = calls + 1`,
    ),
    touchedNotInvited: c
      .prepare<[{ account: string; from: number; kinds: string; upTo: number }], string>(
        // leads_fresh holds only the leads the conditions on l keep (migration 0036): most touched
        // leads are invited by now, and are found missing from that small index without a read of their row.
        `SELECT DISTINCT i.lead_id FROM engine_intents i JOIN leads l INDEXED BY leads_fresh ON l.id = i.lead_id
         WHERE i.account_id = @account AND i.created_at >= @from AND i.kind IN (SELECT value FROM json_each(@kinds)) AND i.state != 'failed'
         AND l.invited_at IS NULL AND l.connection_request_accepted = 0 AND l.excluded = 0 AND l.replied = 0
         AND l.stage = 'new' LIMIT (SELECT @upTo)`,
      )
      .pluck(),
  };
});

type KindsOfMany = Statement<[{ ids: string; from: number; to: number }], { accountId: string; kind: string; n: number }>;

/** A kind written into SQL: the code's own intent names (lower case and underscores), never input. */
const KIND_NAME = /^[a-z][a-z_]*$/;

const kindsStatements = perDb(() => new Map<string, KindsOfMany>());

/**
 * Send records of `kinds` per account of `ids` (a JSON array) in [from, to), calls that did not
 * fail: one statement per list of kinds and connection. The kinds are written into it as
 * literals, and only the accounts are bound: with both lists bound through json_each, SQLite
 * took about 50 µs for one account where this takes 7 (the safety rules ask it with every
 * account's counters).
 */
export function kindsOfMany(db: Db, kinds: readonly string[]): KindsOfMany {
  const key = kinds.join(',');
  const cache = kindsStatements(db);
  let stmt = cache.get(key);
  if (stmt === undefined) {
    if (kinds.length === 0 || kinds.some((k) => !KIND_NAME.test(k))) throw new Error(`kindsOfMany: not a list of intent kinds: ${JSON.stringify(kinds)}`);
    stmt = db.$client.prepare(
      `SELECT account_id AS accountId, kind, count(*) AS n FROM engine_intents
       WHERE account_id IN (SELECT value FROM json_each(@ids)) AND kind IN (${kinds.map((k) => `'${k}'`).join(', ')})
       AND created_at >= @from AND created_at < @to AND state != 'failed'
       GROUP BY account_id, kind`,
    ) as KindsOfMany;
    cache.set(key, stmt);
  }
  return stmt;
}

export const insertIntent = inserterOf(engineIntents);
