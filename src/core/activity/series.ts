import { z } from 'zod';
import { utcDay } from '../clock.js';
import type { Ctx } from '../context.js';
import type { ActivityType } from '../leads/enums.js';
import { activityCountsByDay } from './store.js';

export const SERIES_DAYS_MAX = 365;
const DAY_MS = 86_400_000;

export const ActivitySeries = z.object({
  days: z.array(
    z.object({
      date: z.string().describe('UTC day, YYYY-MM-DD.'),
      sends: z
        .number()
        .int()
        .describe('Connection requests and messages the engine sent that day (sequence and agent; not a person’s own sends, as in the insights).'),
      acceptances: z.number().int(),
      replies: z.number().int(),
    }),
  ),
});
export type ActivitySeries = z.infer<typeof ActivitySeries>;

const SENDS: ActivityType[] = ['connection_request_sent', 'message_sent', 'agent_replied', 'cta_sent'];
const BUCKET: Partial<Record<ActivityType, 'sends' | 'acceptances' | 'replies'>> = {
  connection_request_sent: 'sends',
  message_sent: 'sends',
  agent_replied: 'sends',
  cta_sent: 'sends',
  connection_accepted: 'acceptances',
  reply_received: 'replies',
};

/**
 * Sends, acceptances and replies per UTC day for the last `days` days up to today (sim
 * clock, as activity is stamped), oldest first, with empty days as zeros so a chart has no gaps.
 * The public activity list is paged event by event; this counts in SQL, one index range.
 */
export function activitySeries(ctx: Ctx, days: number): ActivitySeries {
  const today = Date.parse(`${utcDay(ctx.simClock.now())}T00:00:00Z`);
  const start = today - (days - 1) * DAY_MS;
  const rows = activityCountsByDay(ctx, start, [...SENDS, 'connection_accepted', 'reply_received']);
  const byDay = new Map<string, { sends: number; acceptances: number; replies: number }>();
  for (let i = 0; i < days; i++) byDay.set(utcDay(start + i * DAY_MS), { sends: 0, acceptances: 0, replies: 0 });
  for (const r of rows) {
    const bucket = BUCKET[r.type as ActivityType];
    const day = byDay.get(r.day);
    if (bucket && day) day[bucket] += r.n;
  }
  return { days: [...byDay].map(([date, counts]) => ({ date, ...counts })) };
}
