import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import { accountDaily, accounts, activity, engineIntents } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/** SQL of the safety audit (./audit.ts): what it replays, per account, of the activity log and the engine's send records. */

type Conn = Pick<Ctx, 'db'>;

export type AccountRow = typeof accounts.$inferSelect;
export type AccountDailyRow = typeof accountDaily.$inferSelect;

/** Every account, in the order they were added. */
export const accountRowsInOrder = (ctx: Conn): AccountRow[] => ctx.db.select().from(accounts).orderBy(asc(accounts.seq)).all();

/** The account's events of `types` in the activity log that the engine recorded (an operator's manual sends left out). */
export const engineActivityOf = (ctx: Conn, accountId: string, types: string[]): { type: string; at: number }[] =>
  ctx.db
    .select({ type: activity.type, at: activity.at })
    .from(activity)
    .where(and(eq(activity.accountId, accountId), eq(activity.manual, false), inArray(activity.type, types)))
    .all();

/** When the account's send records of one kind were made, among those in one of `states`. */
export const intentTimesOf = (ctx: Conn, accountId: string, kind: string, states: string[]): { at: number }[] =>
  ctx.db
    .select({ at: engineIntents.createdAt })
    .from(engineIntents)
    .where(and(eq(engineIntents.accountId, accountId), eq(engineIntents.kind, kind), inArray(engineIntents.state, states)))
    .all();

/** The account's stored daily counters, every day. */
export const accountDailyRowsOf = (ctx: Conn, accountId: string): AccountDailyRow[] =>
  ctx.db.select().from(accountDaily).where(eq(accountDaily.accountId, accountId)).all();

/** The account's send records of one of `kinds` in one of `states`: when, and of which kind. */
export const intentsOfKinds = (ctx: Conn, accountId: string, kinds: string[], states: string[]): { at: number; kind: string }[] =>
  ctx.db
    .select({ at: engineIntents.createdAt, kind: engineIntents.kind })
    .from(engineIntents)
    .where(and(eq(engineIntents.accountId, accountId), inArray(engineIntents.kind, kinds), inArray(engineIntents.state, states)))
    .all();

/** Every send record of the account but those of `exceptKind`, oldest first: when, and of which kind. */
export const intentsInOrderExcept = (ctx: Conn, accountId: string, exceptKind: string): { at: number; kind: string }[] =>
  ctx.db
    .select({ at: engineIntents.createdAt, kind: engineIntents.kind })
    .from(engineIntents)
    .where(and(eq(engineIntents.accountId, accountId), ne(engineIntents.kind, exceptKind)))
    .orderBy(asc(engineIntents.createdAt))
    .all();
