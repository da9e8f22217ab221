import type { Db } from '../../db/connection.js';
import { simInboxStatements } from '../../db/sql/sim-inbox.js';
import type { Clock } from '../clock.js';
import type { InboundEvent } from './provider.js';
import { inboundEvent, inboundRow } from './inbound-rows.js';
import type { SimInboxStore } from '../../network/sim/inbox.js';

/**
 * The durable SimInboxStore (its statements: src/db/sql/sim-inbox.ts): scheduled acceptances and replies live in SQLite, so responses
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
    return simInboxStatements(this.db).schedule.run(inboundRow(event)).changes === 1;
  }

  due(now: number, limit: number): InboundEvent[] {
    if (limit <= 0) return [];
    return simInboxStatements(this.db).due.all({ now, limit }).map(inboundEvent);
  }

  ack(ids: readonly string[]): void {
    if (ids.length === 0) return;
    simInboxStatements(this.db).ack.run({ at: this.clock.now(), ids: JSON.stringify(ids) });
  }

  tally(key: string): number {
    return simInboxStatements(this.db).tally.get({ key }) ?? 1;
  }
}
