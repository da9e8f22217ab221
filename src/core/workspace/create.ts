import { randomBytes } from 'node:crypto';
import type { Ctx } from '../context.js';
import { transaction } from '../../db/tx.js';
import { ensureBalanceRow } from '../credits/store.js';
import { WORKSPACE_ID, getWorkspace } from './get.js';
import { insertWorkspaceRow } from './store.js';

/**
 * Creates an empty paid workspace when none exists, so that a key created on a fresh
 * database has a workspace to reach. It has no credits: the operator grants them
 * (`outreach credits add`). Seeding with --reset replaces it. Returns whether it created one.
 */
export function ensureWorkspace(ctx: Ctx): boolean {
  return transaction(ctx.db, () => {
    if (getWorkspace(ctx)) return false;
    insertWorkspaceRow(ctx, {
      id: WORKSPACE_ID,
      name: 'Workspace',
      plan: 'paid',
      planId: 'growth',
      cursorSecret: randomBytes(32).toString('base64url'),
      createdAt: ctx.clock.now(),
    });
    ensureBalanceRow(ctx.db);
    return true;
  });
}
