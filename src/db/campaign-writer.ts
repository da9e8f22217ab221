import type Database from 'better-sqlite3';

/**
 * The database half of "one writer of a campaign's state". Migration 0012 puts two triggers on
 * `campaigns`: a row is inserted, and `status` or the importing lease columns change, only while
 * `campaign_state_writer()` answers 1 on that connection. It answers 1 only inside
 * `asCampaignStateWriter`, and the dependency rules (.dependency-cruiser.cjs,
 * `campaign-state-writer`) let only the state machine (src/core/campaigns/state-machine.ts)
 * import this module; the connection imports it to register the function. So any other write,
 * drizzle or raw SQL, is refused by SQLite itself, and no other module can open the gate.
 *
 * A connection that never registered the function (the sqlite3 shell) cannot write those
 * columns at all: "no such function".
 */
const SQL_FUNCTION = 'campaign_state_writer';

/** Per connection: how many state-machine writes are open (they may nest). */
const open = new WeakMap<Database.Database, number>();

/** Registers the gate's SQL function; the connection does it before migrating. */
export function installCampaignStateGate(client: Database.Database): void {
  client.function(SQL_FUNCTION, { deterministic: false }, () => ((open.get(client) ?? 0) > 0 ? 1 : 0));
}

/** Runs `write` with the gate open on this connection. Synchronous, so nothing else runs meanwhile. */
export function asCampaignStateWriter<T>(client: Database.Database, write: () => T): T {
  open.set(client, (open.get(client) ?? 0) + 1);
  try {
    return write();
  } finally {
    open.set(client, (open.get(client) ?? 1) - 1);
  }
}
