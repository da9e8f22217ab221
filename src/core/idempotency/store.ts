import { hash } from 'node:crypto';
import { perDb } from '../../db/prepared.js';
import type { idempotencyRecords } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { failpoint } from '../faults.js';

/** The replay window (spec, Limits: Idempotency-Key). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How often a process renews the reservations of the requests it is running (the pipeline's
 * timer, see heartbeatKey), and how long a reservation may go unrenewed before its request
 * counts as dead: the process stopped mid-request. Such a reservation is taken over by the next
 * request with the key only if its request had written nothing (state `in_flight`). One that had
 * begun its work (state `begun`, set in the transaction of its first write) may have sent a
 * message or created something, and running it again could do so twice; it answers 409 until
 * the key expires. A live request renews its reservation however long it runs, so it is never
 * taken over; two minutes is twelve missed renewals.
 */
export const KEY_HEARTBEAT_MS = 10_000;
export const KEY_STALE_MS = 2 * 60 * 1000;

/** How many expired records one reservation sweeps on its way, so no single request pays for a backlog. */
const SWEEP_BATCH = 100;

/** Who used the key, the key, and what request it was used for. */
export interface IdempotencyScope {
  apiKeyId: string;
  key: string;
  fingerprint: string;
}

export type Reservation = { kind: 'reserved' } | { kind: 'replay'; status: number; body: string };

/** JSON with object keys sorted at every depth; array order is kept, because it is significant. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What a key is bound to: method, route template, path parameters and body. Any difference,
 * another route or the same route on another campaign included, is a different request.
 */
export function requestFingerprint(request: { method: string; route: string; params: Record<string, unknown>; body: unknown }): string {
  return hash('sha256', canonicalJson(request), 'hex');
}

type RecordRow = typeof idempotencyRecords.$inferSelect;

/** The records' statements, prepared once per connection: a write with a key runs three of them. */
const statements = perDb((db) => {
  const c = db.$client;
  return {
    get: c.prepare<[{ apiKeyId: string; key: string }], RecordRow>(
      `SELECT api_key_id AS apiKeyId, key, fingerprint, state, status, body, created_at AS createdAt, heartbeat_at AS heartbeatAt, expires_at AS expiresAt
       FROM idempotency_records WHERE api_key_id = @apiKeyId AND key = @key`,
    ),
    remove: c.prepare<[{ apiKeyId: string; key: string }]>('DELETE FROM idempotency_records WHERE api_key_id = @apiKeyId AND key = @key'),
    reserve: c.prepare<[IdempotencyScope & { createdAt: number; expiresAt: number }]>(
      `INSERT INTO idempotency_records (api_key_id, key, fingerprint, state, created_at, heartbeat_at, expires_at)
       VALUES (@apiKeyId, @key, @fingerprint, 'in_flight', @createdAt, @createdAt, @expiresAt)`,
    ),
    heartbeat: c.prepare<[IdempotencyScope & { now: number }]>(
      "UPDATE idempotency_records SET heartbeat_at = @now WHERE api_key_id = @apiKeyId AND key = @key AND fingerprint = @fingerprint AND state IN ('in_flight', 'begun')",
    ),
    begin: c.prepare<[IdempotencyScope]>(
      "UPDATE idempotency_records SET state = 'begun' WHERE api_key_id = @apiKeyId AND key = @key AND fingerprint = @fingerprint AND state = 'in_flight'",
    ),
    finalize: c.prepare<[IdempotencyScope & { status: number; body: string }]>(
      `UPDATE idempotency_records SET state = 'done', status = @status, body = @body
       WHERE api_key_id = @apiKeyId AND key = @key AND fingerprint = @fingerprint AND state IN ('in_flight', 'begun')`,
    ),
    release: c.prepare<[IdempotencyScope]>(
      "DELETE FROM idempotency_records WHERE api_key_id = @apiKeyId AND key = @key AND fingerprint = @fingerprint AND state IN ('in_flight', 'begun')",
    ),
    sweep: c.prepare<[{ now: number; limit: number }]>(
      'DELETE FROM idempotency_records WHERE rowid IN (SELECT rowid FROM idempotency_records WHERE expires_at <= @now ORDER BY expires_at LIMIT @limit)',
    ),
  };
});

const scopeKey = (scope: IdempotencyScope) => ({ apiKeyId: scope.apiKeyId, key: scope.key });
const scopeParams = (scope: IdempotencyScope): IdempotencyScope => ({ apiKeyId: scope.apiKeyId, key: scope.key, fingerprint: scope.fingerprint });

/**
 * Reserves the key for a request about to run, or answers how a retry must be served: a replay
 * of the stored success, or 409 `conflict` (another request, or still in flight), which leaves
 * the stored record as it is. One IMMEDIATE transaction makes check-and-insert atomic across
 * connections; any other failure means the key could not be recorded.
 */
export function reserveKey(ctx: Ctx, scope: IdempotencyScope, keyField: string): Reservation {
  const now = ctx.clock.now();
  return transaction(ctx.db, () => {
    failpoint(ctx, 'idempotency.reserve', scope.key);
    sweepExpiredKeys(ctx, SWEEP_BATCH);
    const row = statements(ctx.db).get.get(scopeKey(scope));
    if (row && row.expiresAt > now) {
      const stale = now - (row.heartbeatAt ?? row.createdAt) >= KEY_STALE_MS;
      // A reservation whose request died before writing anything is taken over: nothing was done.
      const abandoned = row.state === 'in_flight' && stale;
      if (!abandoned) {
        if (row.fingerprint !== scope.fingerprint) {
          throw new ApiError(
            'conflict',
            `This ${keyField} was already used for a different request (another route, campaign or body). Use a new key for a new request.`,
            { fields: [keyField] },
          );
        }
        if (row.state === 'begun' && stale) {
          throw new ApiError(
            'conflict',
            `The request with this ${keyField} was interrupted (the server stopped) after it had begun its work, so its result was not kept. It is not run again under this key, as that could do the work twice: check what it did (the campaign's leads, the conversation), then use a new key for anything still to do.`,
            { fields: [keyField] },
          );
        }
        if (row.state !== 'done') {
          throw new ApiError(
            'conflict',
            `A request with this ${keyField} is still in progress. Retry with the same key once it has finished to get its result.`,
            { fields: [keyField] },
          );
        }
        return { kind: 'replay', status: row.status ?? 200, body: row.body ?? 'null' };
      }
    }
    if (row) statements(ctx.db).remove.run(scopeKey(scope));
    statements(ctx.db).reserve.run({ ...scopeParams(scope), createdAt: now, expiresAt: now + IDEMPOTENCY_TTL_MS });
    return { kind: 'reserved' };
  });
}

/**
 * Marks the reservation as begun: its request has written something. Called in the transaction
 * of that first write, so a crash leaves either nothing done and the key `in_flight`, or the
 * write and the key `begun`, never one without the other.
 */
export function markKeyBegun(ctx: Ctx, scope: IdempotencyScope): void {
  statements(ctx.db).begin.run(scopeParams(scope));
}

/** Renews the reservation of a request this process is still running (see KEY_HEARTBEAT_MS). */
export function heartbeatKey(ctx: Ctx, scope: IdempotencyScope): void {
  statements(ctx.db).heartbeat.run({ ...scopeParams(scope), now: ctx.clock.now() });
}

/** Stores the outcome to replay: the exact bytes that were sent, so a replay is byte for byte. */
export function finalizeKey(ctx: Ctx, scope: IdempotencyScope, status: number, body: string): void {
  failpoint(ctx, 'idempotency.finalize', scope.key);
  statements(ctx.db).finalize.run({ ...scopeParams(scope), status, body });
}

/** Frees the key: the request it was reserved for is not to be replayed, so a retry runs again. */
export function releaseKey(ctx: Ctx, scope: IdempotencyScope): void {
  statements(ctx.db).release.run(scopeParams(scope));
}

/** Deletes records past their window (at most `limit`, oldest first); returns how many went. */
export function sweepExpiredKeys(ctx: Ctx, limit = 10_000): number {
  return statements(ctx.db).sweep.run({ now: ctx.clock.now(), limit }).changes;
}
