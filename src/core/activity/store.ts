import { and, gte, inArray, sql } from 'drizzle-orm';
import { activity } from '../../db/schema.js';
import type { Ctx } from '../context.js';

/** SQL of the activity table that the shared statements (src/db/sql/activity.ts) do not hold. */

/** How many events of each of `types` fell on each UTC day (`YYYY-MM-DD`) from `start` on (epoch ms). */
export function activityCountsByDay(ctx: Pick<Ctx, 'db'>, start: number, types: readonly string[]): { day: string; type: string; n: number }[] {
  return (
    ctx.db
      .select({ day: sql<string>`strftime('%Y-%m-%d', ${activity.at} / 1000, 'unixepoch')`, type: activity.type, n: sql<number>`count(*)` })
      .from(activity)
      // Both manual values, so the (manual, at) index serves the range.
      .where(and(inArray(activity.manual, [false, true]), gte(activity.at, start), inArray(activity.type, [...types])))
      .groupBy(sql`1`, activity.type)
      .all()
  );
}
