import type Database from 'better-sqlite3';
import { sqlGate } from './sql-gate.js';

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
const gate = sqlGate('campaign_state_writer');

/** Registers the gate's SQL function; the connection does it before migrating. */
export const installCampaignStateGate = (client: Database.Database): void => gate.install(client);

/** Runs `write` with the gate open on this connection. Synchronous, so nothing else runs meanwhile. */
export const asCampaignStateWriter = <T>(client: Database.Database, write: () => T): T => gate.open(client, write);
