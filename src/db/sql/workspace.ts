import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { perDb, rowsOf, selectList, type RowStatement } from '../prepared.js';
import { engineState, workspace } from '../schema.js';

/* The one-row tables read on every request or send: the workspace and the engine's lease. */

export type WorkspaceRow = typeof workspace.$inferSelect;
export type EngineStateRow = typeof engineState.$inferSelect;

export interface WorkspaceStatements {
  workspace: RowStatement<[], WorkspaceRow>;
  engineState: Statement<[], EngineStateRow>;
}

export const workspaceStatements: (db: Db) => WorkspaceStatements = perDb((db) => {
  const c = db.$client;
  return {
    workspace: rowsOf(workspace, c.prepare(`SELECT ${selectList(workspace)} FROM workspace WHERE id = 1`)),
    engineState: c.prepare(`SELECT ${selectList(engineState)} FROM engine_state WHERE id = 1`),
  };
});
