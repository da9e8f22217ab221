import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { Db } from '../src/db/connection.js';
import * as schema from '../src/db/schema.js';

export interface Captured {
  sql: string;
  params: unknown[];
}

/** Records the SELECTs of statements prepared from now on, until `restore`. */
function recordSelects(db: Db): { seen: Captured[]; restore: () => void } {
  const client = db.$client;
  const prepare = client.prepare;
  const seen: Captured[] = [];
  client.prepare = function (this: typeof client, sql: string) {
    const stmt = prepare.call(client, sql);
    for (const method of ['all', 'get'] as const) {
      const run = stmt[method].bind(stmt) as (...params: unknown[]) => unknown;
      (stmt as any)[method] = (...params: unknown[]) => {
        if (/^\s*select/i.test(sql)) seen.push({ sql, params });
        return run(...params);
      };
    }
    return stmt;
  } as typeof client.prepare;
  return { seen, restore: () => (client.prepare = prepare) };
}

/** Every SELECT statement `fn` runs on the database, with its parameters. */
export function captureQueries(db: Db, fn: () => void): Captured[] {
  const { seen, restore } = recordSelects(db);
  try {
    fn();
  } finally {
    restore();
  }
  return seen;
}

/** The same for an async `fn` (an engine tick); nothing else may use the database meanwhile. */
export async function captureQueriesAsync(db: Db, fn: () => Promise<unknown>): Promise<Captured[]> {
  const { seen, restore } = recordSelects(db);
  try {
    await fn();
  } finally {
    restore();
  }
  return seen;
}

/** EXPLAIN QUERY PLAN, one detail line per step. */
export function queryPlan(db: Db, q: Captured): string[] {
  return (db.$client.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as { detail: string }[]).map((r) => r.detail);
}

/** Another drizzle handle on the same connection: statements prepared once per handle are prepared anew through it. */
export const freshHandle = (db: Db): Db => drizzle(db.$client, { schema });
