import type { Db } from '../../db/connection.js';
import { simInboxStatements } from '../../db/sql/sim-inbox.js';
import type { SimMailStore } from '../../network/mail/sim.js';
import { simMailDeliver, simMailSince } from '../mailboxes/store.js';

/** The simulated mail server's memory in SQLite (table sim_mail; counts in sim_tallies), so what it decided survives a restart. */
export class SqliteSimMailStore implements SimMailStore {
  constructor(private readonly db: Db) {}

  deliver(mailboxId: string, visibleAt: number, raw: string): void {
    simMailDeliver({ db: this.db }, mailboxId, visibleAt, raw);
  }

  since(mailboxId: string, afterUid: number, now: number, limit: number): { uid: number; raw: string }[] {
    return simMailSince({ db: this.db }, mailboxId, afterUid, now, limit);
  }

  tally(key: string): number {
    return simInboxStatements(this.db).tally.get({ key }) ?? 1;
  }
}
