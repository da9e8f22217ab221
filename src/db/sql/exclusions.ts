import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { perDb } from '../prepared.js';

/* The workspace exclusion list: every lead a batch, a Lookalike page or the engine places looks it up. */

export const exclusionStatements: (db: Db) => { has: Statement<[string], number> } = perDb((db) => ({
  has: db.$client.prepare<[string], number>('SELECT 1 FROM exclusions WHERE network_url = ?').pluck(),
}));
