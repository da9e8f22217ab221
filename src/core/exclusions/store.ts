import { and, asc, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import { exclusions } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/**
 * SQL of the workspace exclusion list: its rows, a page of them, and the writes that put a URL
 * on it or take it off. The lookup of one URL that every placed lead makes is prepared in
 * src/db/sql/exclusions.ts.
 */

type Conn = Pick<Ctx, 'db'>;

export type ExclusionRow = typeof exclusions.$inferSelect;

/** The whole list, oldest first. */
export const exclusionRows = (ctx: Conn): ExclusionRow[] =>
  ctx.db.select().from(exclusions).orderBy(asc(exclusions.createdAt), asc(exclusions.networkUrl)).all();

/** Up to `limit` URLs of the list, in no particular order. */
export const exclusionUrlsUpTo = (ctx: Conn, limit: number): { networkUrl: string }[] =>
  ctx.db.select({ networkUrl: exclusions.networkUrl }).from(exclusions).limit(limit).all();

/** Whether this URL is on the list. */
export const exclusionKnown = (ctx: Conn, networkUrl: string): boolean =>
  ctx.db.select({ u: exclusions.networkUrl }).from(exclusions).where(eq(exclusions.networkUrl, networkUrl)).get() !== undefined;

/** Puts a URL on the list (`now` as its time); nothing when it is there already. */
export function addExclusionUrl(ctx: Conn, networkUrl: string, now: number): void {
  ctx.db.insert(exclusions).values({ networkUrl, createdAt: now }).onConflictDoNothing().run();
}

/** Takes a URL off the list; the number of rows deleted (0 when it was not on it). */
export const deleteExclusionUrl = (ctx: Conn, networkUrl: string): number =>
  ctx.db.delete(exclusions).where(eq(exclusions.networkUrl, networkUrl)).run().changes;

/**
 * Up to `limit` entries, newest first (by time, then URL), those after the cursor's entry
 * (`after`, its time and URL) when given.
 */
export function exclusionPageRows(ctx: Conn, after: { at: number; url: string } | undefined, limit: number): ExclusionRow[] {
  const older: SQL | undefined = after
    ? or(lt(exclusions.createdAt, after.at), and(eq(exclusions.createdAt, after.at), lt(exclusions.networkUrl, after.url)))
    : undefined;
  return ctx.db.select().from(exclusions).where(older).orderBy(desc(exclusions.createdAt), desc(exclusions.networkUrl)).limit(limit).all();
}
