import { hash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { idempotencyRecords } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { failpoint } from '../faults.js';

/** The replay window (spec, Limits: Idempotency-Key). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A reservation older than this whose request never finished (the process died mid-request)
 * is abandoned, and the next request with the key takes it over. It is longer than the
 * 300 s MCP host timeout, so a live request is never taken over.
 */
export const IN_FLIGHT_LEASE_MS = 10 * 60 * 1000;

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

const scopeWhere = (scope: Pick<IdempotencyScope, 'apiKeyId' | 'key'>) =>
  and(eq(idempotencyRecords.apiKeyId, scope.apiKeyId), eq(idempotencyRecords.key, scope.key));

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
    const row = ctx.db.select().from(idempotencyRecords).where(scopeWhere(scope)).get();
    if (row && row.expiresAt > now) {
      const abandoned = row.state === 'in_flight' && now - row.createdAt >= IN_FLIGHT_LEASE_MS;
      if (!abandoned) {
        if (row.fingerprint !== scope.fingerprint) {
          throw new ApiError(
            'conflict',
            `This ${keyField} was already used for a different request (another route, campaign or body). Use a new key for a new request.`,
            { fields: [keyField] },
          );
        }
        if (row.state === 'in_flight') {
          throw new ApiError(
            'conflict',
            `A request with this ${keyField} is still in progress. Retry with the same key once it has finished to get its result.`,
            { fields: [keyField] },
          );
        }
        return { kind: 'replay', status: row.status ?? 200, body: row.body ?? 'null' };
      }
    }
    if (row) ctx.db.delete(idempotencyRecords).where(scopeWhere(scope)).run();
    ctx.db
      .insert(idempotencyRecords)
      .values({ ...scope, state: 'in_flight', createdAt: now, expiresAt: now + IDEMPOTENCY_TTL_MS })
      .run();
    return { kind: 'reserved' };
  });
}

const ownReservation = (scope: IdempotencyScope) =>
  and(scopeWhere(scope), eq(idempotencyRecords.fingerprint, scope.fingerprint), eq(idempotencyRecords.state, 'in_flight'));

/** Stores the outcome to replay: the exact bytes that were sent, so a replay is byte for byte. */
export function finalizeKey(ctx: Ctx, scope: IdempotencyScope, status: number, body: string): void {
  ctx.db.update(idempotencyRecords).set({ state: 'done', status, body }).where(ownReservation(scope)).run();
}

/** Frees the key: the request it was reserved for is not to be replayed, so a retry runs again. */
export function releaseKey(ctx: Ctx, scope: IdempotencyScope): void {
  ctx.db.delete(idempotencyRecords).where(ownReservation(scope)).run();
}

/** Deletes records past their window (at most `limit`, oldest first); returns how many went. */
export function sweepExpiredKeys(ctx: Ctx, limit = 10_000): number {
  const t = idempotencyRecords;
  return ctx.db.run(
    sql`DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM ${t} WHERE ${t.expiresAt} <= ${ctx.clock.now()} ORDER BY ${t.expiresAt} LIMIT ${limit})`,
  ).changes;
}
