import { z } from 'zod';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import { ACTOR_TYPES } from './actor.js';
import { auditStore, type AuditRow } from './store.js';

export const AuditEvent = z.object({
  id: z.string().describe('aud_…'),
  actor: z.object({ type: z.enum(ACTOR_TYPES), id: z.string(), name: z.string() }).describe('Who: a member (usr_…), an API key (key_…) or an OAuth client.'),
  action: z.string().describe('The tool called (add_leads_batch) or the action taken outside the tools (members.add).'),
  targetIds: z.array(z.string()).describe('The ids the write named or created.'),
  summary: z.string(),
  at: IsoTimestamp,
});
export type AuditEvent = z.infer<typeof AuditEvent>;

export const auditEventOf = (row: AuditRow): AuditEvent => ({
  id: row.id,
  actor: { type: row.actorType as AuditEvent['actor']['type'], id: row.actorId, name: row.actorName },
  action: row.action,
  targetIds: JSON.parse(row.targets) as string[],
  summary: row.summary,
  at: iso(row.at),
});

export interface AuditQuery {
  actorId?: string | undefined;
  targetId?: string | undefined;
  /** ISO 8601: events at or after. */
  since?: string | undefined;
  /** ISO 8601: events before. */
  until?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

const msOf = (value: string | undefined): number | undefined => (value === undefined ? undefined : Date.parse(value));

/**
 * The trail, newest first, filtered by actor, target and time, in keyset pages. A cursor is
 * signed over its filter, so it cannot be replayed with another one.
 */
export function listAuditEvents(ctx: Ctx, cursorSecret: string, query: AuditQuery): { events: AuditEvent[]; nextCursor: string | null } {
  const filter = { actorId: query.actorId, targetId: query.targetId, since: msOf(query.since), until: msOf(query.until) };
  const scope = `audit:${JSON.stringify(filter)}`;
  let beforeSeq: number | undefined;
  if (query.cursor !== undefined) {
    const [seq] = decodeCursor(cursorSecret, scope, query.cursor);
    if (typeof seq !== 'number') throw invalidCursor();
    beforeSeq = seq;
  }
  const rows = auditStore.page(ctx.db, { ...filter, beforeSeq }, query.limit + 1);
  const page = pageOf(rows, query.limit, (last) => encodeCursor(cursorSecret, scope, [last.seq]));
  return { events: page.items.map(auditEventOf), nextCursor: page.nextCursor };
}
