import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { columnsOf, perDb, quoted, selectList } from '../prepared.js';
import { agents, campaigns } from '../schema.js';

/*
 * Statements on `campaigns` (and the agent each one is assigned) that run per send, per inbound
 * event or per lead added: the engine's view of a campaign, and the stat counters. (The status
 * transitions are the state machine's own, in src/core/campaigns/state-machine.ts.)
 */

export type AgentRow = typeof agents.$inferSelect;

export interface CampaignWithAgent {
  id: string;
  status: string;
  agent: AgentRow | null;
}

/** The agent's columns in a campaign row, prefixed `a_`; null when no agent is assigned. */
const AGENT_KEYS = columnsOf(agents).map((c) => c.key);
function agentOf(row: Record<string, unknown>): AgentRow | null {
  if (row.a_id === null) return null;
  const agent: Record<string, unknown> = {};
  for (const k of AGENT_KEYS) agent[k] = row[`a_${k}`];
  return agent as AgentRow;
}
const withAgent = (row: Record<string, unknown>): CampaignWithAgent => ({ id: row.id as string, status: row.status as string, agent: agentOf(row) });

const CAMPAIGN_AGENT = `SELECT c.id AS id, c.status AS status, ${selectList(agents, 'a', 'a_')} FROM campaigns c LEFT JOIN agents a ON a.id = c.assigned_template_id`;

export type OutreachCounter = 'connectionRequestsSent' | 'connectionRequestsAccepted' | 'messagesSent' | 'repliesReceived';
const COUNTERS: readonly OutreachCounter[] = ['connectionRequestsSent', 'connectionRequestsAccepted', 'messagesSent', 'repliesReceived'];
const column = (key: string): string => {
  const c = columnsOf(campaigns).find((x) => x.key === key);
  if (!c) throw new Error(`campaigns has no column ${key}`);
  return quoted(c.name);
};

export type CampaignStatusRow = Pick<
  typeof campaigns.$inferSelect,
  'status' | 'importing' | 'importingHolder' | 'importingHost' | 'importingPid' | 'importingUntil'
>;

export interface CampaignStatements {
  /** Every running campaign with its agent, in creation order. */
  running(): CampaignWithAgent[];
  withAgent(id: string): CampaignWithAgent | undefined;
  /** The status and the importing lease (whether it is held is the state machine's to say). */
  statusOf(id: string): CampaignStatusRow | undefined;
  /** The account of the campaign's agent (no row without an agent). */
  agentAccount: Statement<[string], { accountId: string | null }>;
  idAndName: Statement<[string], { id: string; name: string }>;
  /** What the engine keeps with a campaign beside its agent: its senders (`senderAccountIds` as stored, a JSON array), its approval and its mailboxes. */
  sending: Statement<[string], { senders: string; approval: string; mailboxes: string }>;
  /** Adds one to a stat and sets updated_at. */
  count: Record<OutreachCounter, Statement<[{ campaignId: string; updatedAt: number }]>>;
}

export const campaignStatements: (db: Db) => CampaignStatements = perDb((db) => {
  const c = db.$client;
  // The status is written in, not bound: campaigns_status is (status, seq), and a bound value
  // there would have SQLite plan the statement again on every call.
  const running = c.prepare<[], Record<string, unknown>>(`${CAMPAIGN_AGENT} WHERE c.status = 'CAMPAIGN_IN_PROGRESS' ORDER BY c.seq`);
  const byId = c.prepare<[string], Record<string, unknown>>(`${CAMPAIGN_AGENT} WHERE c.id = ?`);
  const statusOf = c.prepare<[string], Omit<CampaignStatusRow, 'importing'> & { importing: number }>(
    `SELECT status, importing, importing_holder AS importingHolder, importing_host AS importingHost, importing_pid AS importingPid,
       importing_until AS importingUntil FROM campaigns WHERE id = ?`,
  );
  return {
    running: () => running.all().map(withAgent),
    withAgent: (id) => {
      const row = byId.get(id);
      return row === undefined ? undefined : withAgent(row);
    },
    statusOf: (id) => {
      const row = statusOf.get(id);
      return row === undefined ? undefined : { ...row, importing: row.importing === 1 };
    },
    agentAccount: c.prepare('SELECT a.account_id AS accountId FROM campaigns c JOIN agents a ON a.id = c.assigned_template_id WHERE c.id = ?'),
    idAndName: c.prepare('SELECT id, name FROM campaigns WHERE id = ?'),
    sending: c.prepare<[string], { senders: string; approval: string; mailboxes: string }>(
      'SELECT sender_account_ids AS senders, approval, mailbox_ids AS mailboxes FROM campaigns WHERE id = ?',
    ),
    count: Object.fromEntries(
      COUNTERS.map((k) => [k, c.prepare(`UPDATE campaigns SET ${column(k)} = ${column(k)} + 1, updated_at = @updatedAt WHERE id = @campaignId`)]),
    ) as CampaignStatements['count'],
  };
});
