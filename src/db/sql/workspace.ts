import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { columnsOf, perDb, quoted, rowsOf, type RowStatement } from '../prepared.js';
import { engineState, workspace } from '../schema.js';

/* The one-row tables read on every request or send: the workspace's settings and the engine's lease. */

export type WorkspaceRow = typeof workspace.$inferSelect;
/** The workspace's lifetime stats move on every send; they are read where shown (insights), not with the settings. */
type LifetimeStat = 'repliesReceived' | 'connectionRequestsSent' | 'connectionRequestsAccepted' | 'messagesSent';
const LIFETIME: ReadonlySet<string> = new Set<LifetimeStat>(['repliesReceived', 'connectionRequestsSent', 'connectionRequestsAccepted', 'messagesSent']);
/** The workspace without its lifetime stats: what every request reads (plan, secrets). */
export type WorkspaceSettings = Omit<WorkspaceRow, LifetimeStat>;
export type EngineStateRow = typeof engineState.$inferSelect;

const SETTINGS = columnsOf(workspace)
  .filter((c) => !LIFETIME.has(c.key))
  .map((c) => `${quoted(c.name)} AS ${quoted(c.key)}`)
  .join(', ');
const ENGINE_STATE = columnsOf(engineState)
  .map((c) => `${quoted(c.name)} AS ${quoted(c.key)}`)
  .join(', ');

export interface WorkspaceStatements {
  settings: RowStatement<[], WorkspaceSettings>;
  engineState: Statement<[], EngineStateRow>;
}

export const workspaceStatements: (db: Db) => WorkspaceStatements = perDb((db) => {
  const c = db.$client;
  return {
    settings: rowsOf(workspace, c.prepare(`SELECT ${SETTINGS} FROM workspace WHERE id = 1`)),
    engineState: c.prepare(`SELECT ${ENGINE_STATE} FROM engine_state WHERE id = 1`),
  };
});
