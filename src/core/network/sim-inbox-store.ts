import { and, asc, inArray, isNull, lte } from 'drizzle-orm';
import type { Db } from '../../db/connection.js';
import { simInbox } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import type { InboundEvent } from './provider.js';
import { inboundEvent, inboundRow } from './inbound-rows.js';
import type { SimInboxStore } from '../../network/sim/inbox.js';

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
      .values(inboundRow(event))
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
      .map(inboundEvent);
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
