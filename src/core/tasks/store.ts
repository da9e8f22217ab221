import { and, eq, lt } from 'drizzle-orm';
import { mcpTasks } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/** SQL of the MCP tasks (./tasks.ts): one row per tool call followed as a task. */

type Conn = Pick<Ctx, 'db'>;

export type TaskRow = typeof mcpTasks.$inferSelect;

/** Up to `limit` tasks that expired before `now`. */
export const expiredTaskIds = (ctx: Conn, now: number, limit: number): { id: string }[] =>
  ctx.db.select({ id: mcpTasks.id }).from(mcpTasks).where(lt(mcpTasks.expiresAt, now)).limit(limit).all();

export function deleteTask(ctx: Conn, id: string): void {
  ctx.db.delete(mcpTasks).where(eq(mcpTasks.id, id)).run();
}

export function insertTask(ctx: Conn, row: TaskRow): void {
  ctx.db.insert(mcpTasks).values(row).run();
}

/** A key's task, expired or not. */
export const taskRowOf = (ctx: Conn, apiKeyId: string, id: string): TaskRow | undefined =>
  ctx.db
    .select()
    .from(mcpTasks)
    .where(and(eq(mcpTasks.id, id), eq(mcpTasks.apiKeyId, apiKeyId)))
    .get();

const stillWorking = (id: string) => and(eq(mcpTasks.id, id), eq(mcpTasks.status, 'working'));

/** Writes `fields` on a task while it is working; a task that has ended is left as it is. */
export function updateWorkingTask(ctx: Conn, id: string, fields: Partial<TaskRow>): void {
  ctx.db.update(mcpTasks).set(fields).where(stillWorking(id)).run();
}
