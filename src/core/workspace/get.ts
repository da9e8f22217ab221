import { readCache } from '../../db/read-cache.js';
import type { workspace } from '../../db/schema.js';
import { workspaceStatements } from '../../db/sql/workspace.js';
import type { Ctx } from '../context.js';

export type Workspace = typeof workspace.$inferSelect;

export const WORKSPACE_ID = 1;

/** The hosted workspace, or null before `seed` or the first start created it. Read on every request (plan gate, cursor secret): cached while unchanged. */
export function getWorkspace(ctx: Ctx): Workspace | null {
  return readCache(ctx.db).get('workspace', () => workspaceStatements(ctx.db).workspace.get()) ?? null;
}

/** Plans that may not use the API at all (spec, Authentication rule 4). */
export const BLOCKED_PLANS = new Set(['free', 'trial']);
