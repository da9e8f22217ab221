import type Database from 'better-sqlite3';
import { sqlGate } from './sql-gate.js';

/**
 * The database half of "one writer of the drafts table". Migration 0019 puts triggers on
 * `drafts`: a row is inserted, changed or deleted only while `drafts_writer()` answers 1 on that
 * connection. It answers 1 only inside `asDraftsWriter`, and the dependency rules
 * (.dependency-cruiser.cjs, `drafts-writer`) let only the drafts store (src/core/drafts/store.ts)
 * import this module; the connection imports it to register the function. So any other write,
 * drizzle or raw SQL, is refused by SQLite itself, and no other module can open the gate.
 *
 * Further triggers of the same migration hold every write, the store's included, to the draft
 * state machine (DRAFT_TRANSITIONS in the store): a draft starts `pending` or `approved`, its
 * status moves only along a transition of that table, and only the send holding a draft's claim
 * marks it `sent`.
 *
 * A connection that never registered the function (the sqlite3 shell) cannot write drafts at
 * all: "no such function".
 */
const gate = sqlGate('drafts_writer');

/** Registers the gate's SQL function; the connection does it before migrating. */
export const installDraftsGate = (client: Database.Database): void => gate.install(client);

/** Runs `write` with the gate open on this connection. Synchronous, so nothing else runs meanwhile. */
export const asDraftsWriter = <T>(client: Database.Database, write: () => T): T => gate.open(client, write);
