import { and, eq, lt } from 'drizzle-orm';
import { mcpTasks } from '../../db/schema.js';
import type { Ctx } from '../context.js';
import { newId } from '../ids.js';

/**
 * A tool call followed as a task (the MCP Tasks extension). The row is the task's truth: any
 * connection of the same key polls it, and it outlives a restart of the server.
 */
export type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';
export type TaskRow = typeof mcpTasks.$inferSelect;

/** How long a heartbeat may be missing before a running call counts as cut off by a restart. */
export const TASK_HEARTBEAT_MS = 10_000;
const STALE_AFTER_MS = 6 * TASK_HEARTBEAT_MS;
const SWEEP_BATCH = 100;

export function createTask(ctx: Ctx, apiKeyId: string, tool: string, ttlMs: number): TaskRow {
  const now = ctx.clock.now();
  const rows = ctx.db.select({ id: mcpTasks.id }).from(mcpTasks).where(lt(mcpTasks.expiresAt, now)).limit(SWEEP_BATCH).all();
  for (const { id } of rows) ctx.db.delete(mcpTasks).where(eq(mcpTasks.id, id)).run();
  const row: TaskRow = {
    id: newId('task'),
    apiKeyId,
    tool,
    status: 'working',
    statusMessage: 'The call is running.',
    result: null,
    error: null,
    following: null,
    createdAt: now,
    updatedAt: now,
    heartbeatAt: now,
    expiresAt: now + ttlMs,
  };
  ctx.db.insert(mcpTasks).values(row).run();
  return row;
}

/** A key's task, while it has not expired; another key's task does not exist for it. */
export function findTask(ctx: Ctx, apiKeyId: string, id: string): TaskRow | null {
  const row = ctx.db
    .select()
    .from(mcpTasks)
    .where(and(eq(mcpTasks.id, id), eq(mcpTasks.apiKeyId, apiKeyId)))
    .get();
  return row && row.expiresAt > ctx.clock.now() ? row : null;
}

const stillWorking = (id: string) => and(eq(mcpTasks.id, id), eq(mcpTasks.status, 'working'));

export function heartbeat(ctx: Ctx, id: string): void {
  ctx.db.update(mcpTasks).set({ heartbeatAt: ctx.clock.now() }).where(stillWorking(id)).run();
}

/** Ends a working task; a cancelled one stays cancelled. */
function settle(ctx: Ctx, id: string, fields: Partial<TaskRow> & { status: TaskStatus }): void {
  const now = ctx.clock.now();
  ctx.db
    .update(mcpTasks)
    .set({ ...fields, following: null, updatedAt: now, heartbeatAt: now })
    .where(stillWorking(id))
    .run();
}

export function completeTask(ctx: Ctx, id: string, resultJson: string, isError: boolean): void {
  settle(ctx, id, { status: 'completed', result: resultJson, statusMessage: isError ? 'The call finished with an error.' : 'The call finished.' });
}

export function failTask(ctx: Ctx, id: string, code: number, message: string): void {
  settle(ctx, id, { status: 'failed', error: JSON.stringify({ code, message }), statusMessage: message });
}

/** The handler has answered and work it started goes on; the tool follows `body` on each poll. */
export function followTask(ctx: Ctx, id: string, bodyJson: string, message: string): void {
  const now = ctx.clock.now();
  ctx.db.update(mcpTasks).set({ following: bodyJson, statusMessage: message, updatedAt: now, heartbeatAt: now }).where(stillWorking(id)).run();
}

export function noteProgress(ctx: Ctx, id: string, message: string): void {
  ctx.db.update(mcpTasks).set({ statusMessage: message, updatedAt: ctx.clock.now() }).where(stillWorking(id)).run();
}

/** Cancels a working task; false when the key has no such task. A finished task stays as it is. */
export function cancelTask(ctx: Ctx, apiKeyId: string, id: string, message: string): boolean {
  if (!findTask(ctx, apiKeyId, id)) return false;
  settle(ctx, id, { status: 'cancelled', statusMessage: message });
  return true;
}

/**
 * A working call whose heartbeat stopped was running in a server process that is gone (work
 * that is followed has no heartbeat of its own: its state is read from the domain each poll).
 */
export function isOrphaned(ctx: Ctx, row: TaskRow): boolean {
  return row.status === 'working' && row.following === null && ctx.clock.now() - row.heartbeatAt > STALE_AFTER_MS;
}
