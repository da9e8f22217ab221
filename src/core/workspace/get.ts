import { cached } from '../../db/cache.js';
import { workspaceStatements, type WorkspaceSettings } from '../../db/sql/workspace.js';
import type { Ctx } from '../context.js';

/** The hosted workspace as requests see it: its plan, flags and secrets (its lifetime stats are read by insights). */
export type Workspace = WorkspaceSettings;

export const WORKSPACE_ID = 1;

/** Read on every request (plan gate, cursor secret): kept while the `workspace` counter stands still (db/cache.ts). */
const kept = cached('workspace', (db) => workspaceStatements(db).settings.get() ?? null);

/** The hosted workspace, or null before `seed` or the first start created it. */
export function getWorkspace(ctx: Ctx): Workspace | null {
  return kept(ctx.db);
}
/** Plans that may not use the API at all (spec, Authentication rule 4). */
const BLOCKED_PLANS: ReadonlySet<string> = new Set(['free', 'trial']);

/**
 * Whether the workspace's plan may not use the API: `free` or `trial`, however the workspace
 * file spells it (`Free`, ` TRIAL `), so a capital letter does not open the API.
 */
export const planBlocksApi = (plan: string): boolean => BLOCKED_PLANS.has(plan.trim().toLowerCase());
