import type Database from 'better-sqlite3';

/**
 * A gate that triggers can ask about: an SQL function `name()` that answers 1 on a connection
 * only while `open` runs there. A table's triggers refuse writes unless it answers 1, and the
 * module that exports the gate's `open` is importable only by the table's one writer (a
 * dependency rule), so no other module can write the table, by drizzle or raw SQL.
 */
export interface SqlGate {
  /** Registers the SQL function on a connection; the connection does it before migrating. */
  install(client: Database.Database): void;
  /** Runs `write` with the gate open on this connection. Synchronous, so nothing else runs meanwhile. */
  open<T>(client: Database.Database, write: () => T): T;
}

export function sqlGate(name: string): SqlGate {
  /** Per connection: how many writes are open (they may nest). */
  const opened = new WeakMap<Database.Database, number>();
  return {
    install: (client) => {
      client.function(name, { deterministic: false }, () => ((opened.get(client) ?? 0) > 0 ? 1 : 0));
    },
    open: (client, write) => {
      opened.set(client, (opened.get(client) ?? 0) + 1);
      try {
        return write();
      } finally {
        opened.set(client, (opened.get(client) ?? 1) - 1);
      }
    },
  };
}
