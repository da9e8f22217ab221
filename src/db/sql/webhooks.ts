import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';
import { perDb } from '../prepared.js';

/* The durable webhook outbox: the engine records an event for every acceptance and reply. */

export interface EventValues {
  id: string;
  type: string;
  createdAt: number;
  payload: string;
}

export const webhookStatements: (db: Db) => { insertEvent: Statement<[EventValues]> } = perDb((db) => ({
  insertEvent: db.$client.prepare<[EventValues]>('INSERT INTO webhook_events (id, type, created_at, payload) VALUES (@id, @type, @createdAt, @payload)'),
}));
