import { eq } from 'drizzle-orm';
import { fast, perDb } from '../../db/prepared.js';
import { readCache } from '../../db/read-cache.js';
import { workspace } from '../../db/schema.js';
import type { Ctx } from '../context.js';

export type Workspace = typeof workspace.$inferSelect;

export const WORKSPACE_ID = 1;

/** Read on every request (plan gate, cursor secret): prepared once, and cached while unchanged. */
const workspaceRow = perDb((db) => fast(db.select().from(workspace).where(eq(workspace.id, WORKSPACE_ID)).prepare()));

/** The hosted workspace, or null before `seed` or the first start created it. */
export function getWorkspace(ctx: Ctx): Workspace | null {
  return readCache(ctx.db).get('workspace', () => workspaceRow(ctx.db).get()) ?? null;
}

/** Plans that may not use the API at all (spec, Authentication rule 4). */
export const BLOCKED_PLANS = new Set(['free', 'trial']);
