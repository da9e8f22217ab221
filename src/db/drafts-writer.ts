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
 * The triggers refuse a wrong writer and decide nothing else: the draft state machine is held
 * by the store alone (DRAFT_TRANSITIONS), which is why no other module may write the table.
 *
 * A connection that never registered the function (the sqlite3 shell) cannot write drafts at
 * all: "no such function".
 */
const gate = sqlGate('drafts_writer');

/** Registers the gate's SQL function; the connection does it before migrating. */
export const installDraftsGate = (client: Database.Database): void => gate.install(client);

/** Runs `write` with the gate open on this connection. Synchronous, so nothing else runs meanwhile. */
export const asDraftsWriter = <T>(client: Database.Database, write: () => T): T => gate.open(client, write);
