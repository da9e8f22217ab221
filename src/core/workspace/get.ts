import { eq } from 'drizzle-orm';
import { workspace } from '../../db/schema.js';
import type { Ctx } from '../context.js';

export type Workspace = typeof workspace.$inferSelect;

export const WORKSPACE_ID = 1;

/** The hosted workspace, or null before `seed` or the first start created it. */
export function getWorkspace(ctx: Ctx): Workspace | null {
  return ctx.db.select().from(workspace).where(eq(workspace.id, WORKSPACE_ID)).get() ?? null;
}

/** Plans that may not use the API at all (spec, Authentication rule 4). */
export const BLOCKED_PLANS = new Set(['free', 'trial']);
