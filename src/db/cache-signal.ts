import type Database from 'better-sqlite3';

/**
 * The cache's one signal (./cache.ts): a generation per group of tables, per connection, that
 * moves when the group may have changed. This module knows connections only (no drizzle handle),
 * so the connection can install it without importing the cache.
 */
export type Counter = 'campaigns' | 'accounts' | 'mailboxes' | 'exclusions' | 'keys' | 'workspace' | 'credits' | 'daily';

/** Which writes move which group. Columns: only a change of these (an UPDATE OF) moves it. */
const WATCHED: readonly { table: string; group: Counter; columns?: readonly string[] }[] = [
  // A campaign's stats move with every send and nothing kept depends on them: only the columns
  // kept with a campaign (status, agent, senders, approval) move the group.
  { table: 'campaigns', group: 'campaigns', columns: ['status', 'assigned_template_id', 'sender_account_ids', 'approval'] },
  { table: 'agents', group: 'campaigns' },
  { table: 'accounts', group: 'accounts' },
  // Every column, the inbox's cursor too: a kept row is the whole row.
  { table: 'mailboxes', group: 'mailboxes' },
  { table: 'exclusions', group: 'exclusions' },
  { table: 'api_keys', group: 'keys' },
  // The workspace's lifetime counters move with every send; its settings are what is kept.
  {
    table: 'workspace',
    group: 'workspace',
    columns: ['id', 'name', 'plan', 'plan_id', 'plan_active', 'white_label_isolated', 'blocked', 'cursor_secret', 'webhook_secret', 'created_at'],
  },
  { table: 'credit_balance', group: 'credits' },
  // The accounts' daily counters: nothing is kept from them, but the engine reuses the counters it
  // read earlier in a tick only while this group stands still (a send of any writer moves it).
  { table: 'account_daily', group: 'daily' },
];

const GROUPS: readonly Counter[] = ['campaigns', 'accounts', 'mailboxes', 'exclusions', 'keys', 'workspace', 'credits', 'daily'];

/** One connection's generations. */
export class Signal {
  private readonly gens = new Map<Counter, number>(GROUPS.map((g) => [g, 1]));
  /** Groups written inside the open transaction: moved once more when it ends. */
  private readonly touchedInTx = new Set<Counter>();
  private dataVersion = -1;
  private checked = false;

  constructor(
    private readonly client: Database.Database,
    private readonly dataVersionStmt: Database.Statement<[], number>,
  ) {}

  /** The group may have changed on this connection. */
  touch(group: Counter): void {
    this.gens.set(group, (this.gens.get(group) ?? 0) + 1);
    if (this.client.inTransaction) this.touchedInTx.add(group);
  }

  private moveAll(): void {
    for (const g of GROUPS) this.gens.set(g, (this.gens.get(g) ?? 0) + 1);
  }

  /**
   * Outside a transaction: the one that wrote the groups in `touchedInTx` has ended, committed or
   * rolled back, so they move once more and nothing loaded in it is served. Every lookup calls
   * it, and so does `transaction()` (src/db/tx.ts) before it begins one, so the next transaction
   * does not take the last one's writes for its own.
   */
  settle(): void {
    if (this.touchedInTx.size === 0 || this.client.inTransaction) return;
    for (const g of this.touchedInTx) this.gens.set(g, (this.gens.get(g) ?? 0) + 1);
    this.touchedInTx.clear();
  }

  version(group: Counter): number | undefined {
    this.settle();
    const inTransaction = this.client.inTransaction;
    if (inTransaction || !this.checked) {
      if (!inTransaction) {
        this.checked = true;
        queueMicrotask(() => {
          this.checked = false;
        });
      }
      const version = this.dataVersionStmt.get() as number;
      if (version !== this.dataVersion) {
        if (this.dataVersion !== -1) this.moveAll();
        this.dataVersion = version;
      }
    }
    if (inTransaction && this.touchedInTx.has(group)) return undefined;
    return this.gens.get(group);
  }
}

const signals = new WeakMap<Database.Database, Signal>();

/**
 * Gives a connection its cache signal: the SQL function and the TEMP triggers that call it.
 * Run before any iterator is open on the connection (SQLite refuses to change the schema while
 * one is): `openDatabase` calls it after migrating; a connection opened another way (a test's,
 * the bench's) gets it on its first lookup. A table the database lacks is not watched.
 */
export function watchCacheWrites(client: Database.Database): void {
  if (signals.has(client)) return;
  const signal = new Signal(client, client.prepare<[], number>('PRAGMA data_version').pluck());
  client.function('cache_touched', { deterministic: false }, (group: unknown) => {
    signal.touch(group as Counter);
    return null;
  });
  const tables = new Set(client.prepare<[], string>("SELECT name FROM main.sqlite_master WHERE type = 'table'").pluck().all());
  for (const { table, group, columns } of WATCHED) {
    if (!tables.has(table)) continue;
    const events = [
      ['insert', 'INSERT'],
      ['delete', 'DELETE'],
      ['update', columns ? `UPDATE OF ${columns.map((c) => `"${c}"`).join(', ')}` : 'UPDATE'],
    ] as const;
    for (const [name, event] of events) {
      client.exec(`CREATE TEMP TRIGGER IF NOT EXISTS cache_${table}_${name} AFTER ${event} ON main."${table}" BEGIN SELECT cache_touched('${group}'); END`);
    }
  }
  signals.set(client, signal);
}

export function signalOf(client: Database.Database): Signal {
  let signal = signals.get(client);
  if (!signal) {
    watchCacheWrites(client);
    signal = signals.get(client) as Signal;
  }
  return signal;
}

/** See `Signal.settle`; a connection the cache never watched has nothing to settle. */
export const settleCache = (client: Database.Database): void => signals.get(client)?.settle();
