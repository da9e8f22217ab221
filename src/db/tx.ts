import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { settleCache } from './cache-signal.js';
import type { Db } from './connection.js';
import { perDb } from './prepared.js';

/**
 * better-sqlite3's transaction wrapper, built once per connection around a function that runs
 * its argument: it prepares BEGIN, COMMIT, SAVEPOINT and their undo once, and no wrapper is
 * built per call. Called while a transaction is open it runs the argument in a savepoint.
 */
const wrapper = perDb((db) => db.$client.transaction(<T>(fn: () => T): T => fn()));

/**
 * Work that must commit with every outermost transaction of a connection: `begin` runs first
 * inside it, `end` last, with what `begin` returned; a throw from either rolls the whole
 * transaction back. The audit trail (src/core/audit) registers one, so an audit event commits
 * with the write it records or not at all. This module knows nothing of what the hook writes.
 */
export interface TransactionHook {
  begin(): unknown;
  end(started: unknown): void;
}

const hooks = new WeakMap<Db, TransactionHook>();

/** Registers the connection's transaction hook (one per connection; registering again replaces it). */
export function setTransactionHook(db: Db, hook: TransactionHook): void {
  hooks.set(db, hook);
}

/** Whether a transaction is open on the connection (SQLite may have rolled one back on its own). */
export const inTransaction = (db: Db): boolean => db.$client.inTransaction;

/**
 * Runs `fn` in one synchronous write transaction (BEGIN IMMEDIATE), or inside the one
 * already open, so verbs compose. better-sqlite3 refuses a callback that returns a promise,
 * which keeps network I/O out of transactions by construction.
 */
export function transaction<T>(db: Db, fn: () => T): T {
  if (db.$client.inTransaction) return fn();
  settleCache(db.$client);
  const hook = hooks.get(db);
  if (!hook) return wrapper(db).immediate(fn) as T;
  return wrapper(db).immediate(() => {
    const started = hook.begin();
    const result = fn();
    hook.end(started);
    return result;
  }) as T;
}

/**
 * Runs `fn` in a savepoint of the open transaction: when `fn` throws, its writes alone are
 * undone, the transaction stays open with everything written before, and the error goes on.
 * This is how a batch writes its items in one transaction yet fails one item alone.
 *
 * It refuses to run with no transaction open rather than start one: after SQLite has rolled
 * the whole transaction back (it does on some errors, e.g. SQLITE_FULL or SQLITE_IOERR), a
 * later item must not commit on its own as if the batch were still whole.
 */
export function savepoint<T>(db: Db, fn: () => T): T {
  if (!db.$client.inTransaction) throw new Error('savepoint() needs an open transaction; this one was rolled back or never begun');
  return wrapper(db)(fn) as T;
}

export type StepOutcome<T> = { ok: true; value: T } | { ok: false; err: unknown };

/**
 * Runs independent write steps in one transaction, one commit for all. If any step throws (or
 * the commit fails), the whole transaction is rolled back and each step runs again in a
 * transaction of its own, so a step's failure is its own and the others still commit. Steps
 * must only write to the database, since they may run twice.
 *
 * This is cheaper than a savepoint per step: SQLite keeps an undo journal for each open
 * savepoint, which for a few dozen steps outgrew memory and went to a temporary file.
 */
export function eachInOneTransaction<T>(db: Db, steps: readonly (() => T)[]): StepOutcome<T>[] {
  try {
    return transaction(db, () => steps.map((step) => ({ ok: true as const, value: step() })));
  } catch {
    return steps.map((step) => {
      try {
        return { ok: true as const, value: transaction(db, step) };
      } catch (err) {
        return { ok: false as const, err };
      }
    });
  }
}

/**
 * Runs write steps and then `last` in one transaction, one commit for all, where `last` must
 * commit with whatever of the steps committed (a read's cursor after the items it read). If a
 * step throws, the transaction is rolled back and run again, each step in a savepoint of its
 * own: a failing step's writes alone are undone and it is reported as failed, the others and
 * `last` commit together. A throw from `last`, or an error that ends the transaction (SQLite
 * rolls it back on its own on SQLITE_FULL), rolls back everything and goes on to the caller:
 * nothing of the batch is half-applied. Steps must only write to the database, since they may
 * run twice. The savepoints are paid only on the run that follows a failure.
 */
export function stepsThenLast<T, L>(db: Db, steps: readonly (() => T)[], last: () => L): { outcomes: StepOutcome<T>[]; last: L } {
  const all = (step: (fn: () => T) => StepOutcome<T>) => () => {
    const outcomes = steps.map(step);
    return { outcomes, last: last() };
  };
  // Inside an open transaction the first run is a savepoint, so a failure takes back its writes alone.
  const first = db.$client.inTransaction ? savepoint : transaction;
  let failed = false;
  try {
    return first(
      db,
      all((fn) => {
        try {
          return { ok: true, value: fn() };
        } catch (err) {
          failed = true;
          throw err;
        }
      }),
    );
  } catch (err) {
    if (!failed) throw err;
  }
  return first(
    db,
    all((fn) => {
      try {
        return { ok: true, value: savepoint(db, fn) };
      } catch (err) {
        if (!db.$client.inTransaction) throw err;
        return { ok: false, err };
      }
    }),
  );
}

export function countRows(db: Db, table: SQLiteTable, where?: SQL): number {
  const row = db.select({ n: sql<number>`count(*)` }).from(table).where(where).get();
  return row?.n ?? 0;
}

class Rehearsal extends Error {}

/**
 * Runs `fn` in a write transaction that is always rolled back, and returns what it returned:
 * a rehearsal (an import's dry run) that sees its own writes and leaves nothing behind.
 */
export function rehearse<T>(db: Db, fn: () => T): T {
  if (db.$client.inTransaction) throw new Error('rehearse() rolls back its transaction: run it outside any');
  settleCache(db.$client);
  let result: { value: T } | undefined;
  try {
    wrapper(db).immediate(() => {
      result = { value: fn() };
      throw new Rehearsal();
    });
  } catch (err) {
    if (!(err instanceof Rehearsal)) throw err;
  }
  return (result as { value: T }).value;
}
