import type { Ctx } from '../context.js';
import { newId } from '../ids.js';
import { deleteTask, expiredTaskIds, insertTask, type TaskRow, taskRowOf, updateWorkingTask } from './store.js';

/**
 * A tool call followed as a task (the MCP Tasks extension). The row is the task's truth: any
 * connection of the same key polls it, and it outlives a restart of the server.
 */
export type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';
export type { TaskRow };

/** How long a heartbeat may be missing before a running call counts as cut off by a restart. */
export const TASK_HEARTBEAT_MS = 10_000;
const STALE_AFTER_MS = 6 * TASK_HEARTBEAT_MS;
const SWEEP_BATCH = 100;

export function createTask(ctx: Ctx, apiKeyId: string, tool: string, ttlMs: number): TaskRow {
  const now = ctx.clock.now();
  const rows = expiredTaskIds(ctx, now, SWEEP_BATCH);
  for (const { id } of rows) deleteTask(ctx, id);
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
  insertTask(ctx, row);
  return row;
}

/** A key's task, while it has not expired; another key's task does not exist for it. */
export function findTask(ctx: Ctx, apiKeyId: string, id: string): TaskRow | null {
  const row = taskRowOf(ctx, apiKeyId, id);
  return row && row.expiresAt > ctx.clock.now() ? row : null;
}

export function heartbeat(ctx: Ctx, id: string): void {
  updateWorkingTask(ctx, id, { heartbeatAt: ctx.clock.now() });
}

/** Ends a working task; a cancelled one stays cancelled. */
function settle(ctx: Ctx, id: string, fields: Partial<TaskRow> & { status: TaskStatus }): void {
  const now = ctx.clock.now();
  updateWorkingTask(ctx, id, { ...fields, following: null, updatedAt: now, heartbeatAt: now });
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
  updateWorkingTask(ctx, id, { following: bodyJson, statusMessage: message, updatedAt: now, heartbeatAt: now });
}

export function noteProgress(ctx: Ctx, id: string, message: string): void {
  updateWorkingTask(ctx, id, { statusMessage: message, updatedAt: ctx.clock.now() });
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
