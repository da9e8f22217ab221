import { and, asc, eq, gt, or } from 'drizzle-orm';
import { agents } from '../../db/schema.js';
import { countRows } from '../../db/tx.js';
import type { Ctx } from '../context.js';

/** SQL of the agents (./agents.ts): their rows, and the account each sends from. */

type Conn = Pick<Ctx, 'db'>;

export type AgentRow = typeof agents.$inferSelect;

/** One agent's whole row. */
export const agentRowById = (ctx: Conn, id: string): AgentRow | undefined => ctx.db.select().from(agents).where(eq(agents.id, id)).get();

/** Whether an agent has this id. */
export const agentIdExists = (ctx: Conn, id: string): boolean => countRows(ctx.db, agents, eq(agents.id, id)) > 0;

/** The account of an agent (what a campaign's agent sends from); undefined when there is no such agent, null when it has none. */
export const agentAccountId = (ctx: Conn, agentId: string): string | null | undefined =>
  ctx.db.select({ accountId: agents.accountId }).from(agents).where(eq(agents.id, agentId)).get()?.accountId;

/** Stores a new agent's row. */
export function insertAgentRow(ctx: Conn, row: AgentRow): void {
  ctx.db.insert(agents).values(row).run();
}

/** Writes the given columns of one agent. */
export function updateAgentRow(ctx: Conn, id: string, set: Partial<AgentRow>): void {
  ctx.db.update(agents).set(set).where(eq(agents.id, id)).run();
}

/**
 * Up to `take` agents in creation order (id breaks ties), after the position `after` (a
 * listing cursor's createdAt and id), or from the first without one.
 */
export function agentPageRows(ctx: Conn, after: { createdAt: number; id: string } | undefined, take: number): AgentRow[] {
  const conds = [];
  if (after !== undefined) conds.push(or(gt(agents.createdAt, after.createdAt), and(eq(agents.createdAt, after.createdAt), gt(agents.id, after.id))));
  return ctx.db
    .select()
    .from(agents)
    .where(and(...conds))
    .orderBy(asc(agents.createdAt), asc(agents.id))
    .limit(take)
    .all();
}
