import { and, asc, inArray, isNull, lte } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { simInbox } from '../../db/schema.js';
import type { Clock } from '../../core/clock.js';
import type { InboundEvent } from '../provider.js';
import type { SimInboxStore } from './inbox.js';

type Row = typeof simInbox.$inferSelect;

function toEvent(row: Row): InboundEvent {
  const base = { id: row.id, accountId: row.accountId, networkUrl: row.networkUrl, providerId: row.providerId, at: row.at };
  if (row.type === 'message_received') return { ...base, type: 'message_received', chatId: row.chatId ?? '', text: row.text ?? '' };
  return { ...base, type: 'invitation_accepted' };
}

/**
 * The durable SimInboxStore: scheduled acceptances and replies live in SQLite, so responses
 * already decided still arrive after a restart. Delivered rows are kept (marked, not deleted)
 * because the contract forbids scheduling an id twice, ever.
 */
export class SqliteSimInboxStore implements SimInboxStore {
  constructor(
    private readonly db: Db,
    /** Stamps `delivered_at`; only for inspection, ordering never depends on it. */
    private readonly clock: Clock,
  ) {}

  schedule(event: InboundEvent): boolean {
    const result = this.db
      .insert(simInbox)
      .values({
        id: event.id,
        type: event.type,
        at: event.at,
        accountId: event.accountId,
        networkUrl: event.networkUrl,
        providerId: event.providerId,
        chatId: event.type === 'message_received' ? event.chatId : null,
        text: event.type === 'message_received' ? event.text : null,
      })
      .onConflictDoNothing()
      .run();
    return result.changes === 1;
  }

  due(now: number, limit: number): InboundEvent[] {
    if (limit <= 0) return [];
    return this.db
      .select()
      .from(simInbox)
      .where(and(isNull(simInbox.deliveredAt), lte(simInbox.at, now)))
      .orderBy(asc(simInbox.at), asc(simInbox.id))
      .limit(limit)
      .all()
      .map(toEvent);
  }

  ack(ids: readonly string[]): void {
    const at = this.clock.now();
    // SQLite caps bound parameters; acknowledge in slices well under the limit.
    for (let i = 0; i < ids.length; i += 500) {
      const slice = ids.slice(i, i + 500);
      this.db.update(simInbox).set({ deliveredAt: at }).where(and(inArray(simInbox.id, slice), isNull(simInbox.deliveredAt))).run();
    }
  }
}
