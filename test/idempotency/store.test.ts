import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import {
  canonicalJson,
  finalizeKey,
  IDEMPOTENCY_TTL_MS,
  KEY_HEARTBEAT_MS,
  KEY_STALE_MS,
  markKeyBegun,
  releaseKey,
  requestFingerprint,
  reserveKey,
  sweepExpiredKeys,
} from '../../src/core/idempotency/store.js';
import { idempotencyRecords } from '../../src/db/schema.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { RateLimitReport } from '../../src/core/ratelimit/index.js';
import { addLeadTool } from '../../src/tools/add-lead.js';
import type { Caller } from '../../src/tools/define.js';
import { runIdempotent } from '../../src/tools/idempotency.js';
import { testCtx } from '../helpers.js';

const scope = (key: string, fingerprint = 'fp') => ({ apiKeyId: 'key_1', key, fingerprint });

describe('canonicalJson and requestFingerprint', () => {
  it('sorts object keys at every depth, keeps array order and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson('x"y')).toBe('"x\\"y"');
    expect(canonicalJson(null)).toBe('null');
  });

  it('differs when the method, route, a path parameter or the body differs', () => {
    const base = { method: 'POST', route: '/campaigns/:campaignId/leads', params: { campaignId: 'cmp_a' }, body: { networkUrl: 'u' } };
    const fp = requestFingerprint(base);
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ ...base, body: { networkUrl: 'u' } })).toBe(fp);
    for (const other of [
      { ...base, method: 'PATCH' },
      { ...base, route: '/campaigns/:campaignId/leads/batch' },
      { ...base, params: { campaignId: 'cmp_b' } },
      { ...base, body: { networkUrl: 'v' } },
      { ...base, body: { networkUrl: 'u', firstName: 'A' } },
      // A body field that looks like a path parameter is still body.
      { ...base, params: {}, body: { networkUrl: 'u', campaignId: 'cmp_a' } },
    ]) {
      expect(requestFingerprint(other)).not.toBe(fp);
    }
  });
});

describe('the idempotency store', () => {
  it('reserves, replays a finalised result, and conflicts on another fingerprint or while in flight', () => {
    const ctx = testCtx();
    expect(reserveKey(ctx, scope('k'), 'idempotencyKey')).toEqual({ kind: 'reserved' });
    expect(() => reserveKey(ctx, scope('k'), 'idempotencyKey')).toThrow(/still in progress/);
    expect(() => reserveKey(ctx, scope('k', 'other'), 'idempotencyKey')).toThrow(ApiError);
    finalizeKey(ctx, scope('k'), 200, '{"a":1}');
    expect(reserveKey(ctx, scope('k'), 'idempotencyKey')).toEqual({ kind: 'replay', status: 200, body: '{"a":1}' });
    expect(() => reserveKey(ctx, scope('k', 'other'), 'Idempotency-Key')).toThrow(/Idempotency-Key was already used/);
    // Another API key has its own namespace.
    expect(reserveKey(ctx, { ...scope('k'), apiKeyId: 'key_2' }, 'idempotencyKey')).toEqual({ kind: 'reserved' });
  });

  it('releases only its own in-flight reservation', () => {
    const ctx = testCtx();
    reserveKey(ctx, scope('k'), 'idempotencyKey');
    finalizeKey(ctx, scope('k'), 200, '{}');
    releaseKey(ctx, scope('k'));
    releaseKey(ctx, scope('k', 'other'));
    expect(ctx.db.select().from(idempotencyRecords).all()).toHaveLength(1);
    reserveKey(ctx, scope('j'), 'idempotencyKey');
    releaseKey(ctx, scope('j'));
    expect(
      ctx.db
        .select()
        .from(idempotencyRecords)
        .all()
        .map((r) => r.key),
    ).toEqual(['k']);
  });

  it('a begun reservation is released by its failed request, finalised by its successful one, and never taken over', () => {
    const ctx = testCtx();
    reserveKey(ctx, scope('b'), 'idempotencyKey');
    markKeyBegun(ctx, scope('b'));
    // The request failed after a write: the key is freed, so the retry runs again.
    releaseKey(ctx, scope('b'));
    expect(ctx.db.select().from(idempotencyRecords).all()).toEqual([]);
    reserveKey(ctx, scope('b'), 'idempotencyKey');
    markKeyBegun(ctx, scope('b'));
    finalizeKey(ctx, scope('b'), 200, '{"ok":true}');
    expect(reserveKey(ctx, scope('b'), 'idempotencyKey')).toEqual({ kind: 'replay', status: 200, body: '{"ok":true}' });
    // A begun key whose request never finished: unrenewed, it is refused, not taken over.
    reserveKey(ctx, scope('c'), 'idempotencyKey');
    markKeyBegun(ctx, scope('c'));
    ctx.clock.advance(KEY_STALE_MS);
    expect(() => reserveKey(ctx, scope('c'), 'idempotencyKey')).toThrow(/interrupted/);
    expect(() => reserveKey(ctx, scope('c', 'other'), 'idempotencyKey')).toThrow(/different request/);
    // An in-flight one that wrote nothing is taken over.
    reserveKey(ctx, scope('d'), 'idempotencyKey');
    ctx.clock.advance(KEY_STALE_MS);
    expect(reserveKey(ctx, scope('d'), 'idempotencyKey')).toEqual({ kind: 'reserved' });
  });

  it('sweeps expired records, on demand and on the way of each reservation', () => {
    const ctx = testCtx();
    for (let i = 0; i < 150; i++) {
      reserveKey(ctx, scope(`old-${i}`), 'idempotencyKey');
      finalizeKey(ctx, scope(`old-${i}`), 200, '{}');
    }
    ctx.clock.advance(IDEMPOTENCY_TTL_MS / 2);
    reserveKey(ctx, scope('young'), 'idempotencyKey');
    ctx.clock.advance(IDEMPOTENCY_TTL_MS / 2);
    // One reservation sweeps at most a bounded batch of the backlog.
    reserveKey(ctx, scope('new'), 'idempotencyKey');
    expect(ctx.db.select().from(idempotencyRecords).all()).toHaveLength(52);
    expect(sweepExpiredKeys(ctx)).toBe(50);
    expect(
      ctx.db
        .select()
        .from(idempotencyRecords)
        .all()
        .map((r) => r.key)
        .sort(),
    ).toEqual(['new', 'young']);
    expect(sweepExpiredKeys(ctx)).toBe(0);
  });
});

describe('a running request renews its key', () => {
  const run = { key: 'slow', keyField: 'idempotencyKey', input: { campaignId: 'cmp_q4', networkUrl: 'https://www.linkedin.com/in/slow' } };
  const callerOf = (ctx: ReturnType<typeof testCtx>): Caller => ({
    keyId: 'key_1',
    workspace: getWorkspace(ctx)!,
    requestId: 'req_1',
    rateLimits: new RateLimitReport(),
  });

  it('however long it runs, a retry meanwhile is "in progress", never a takeover; unrenewed, it is taken over', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const ctx = testCtx();
      const caller = callerOf(ctx);
      let finish!: (value: unknown) => void;
      const running = runIdempotent(ctx, addLeadTool, caller, run, () => new Promise((resolve) => (finish = resolve)));
      // Ten minutes pass while the request waits on the network: the pipeline renews the key every 10 s.
      for (let i = 0; i < 60; i++) {
        ctx.clock.advance(KEY_HEARTBEAT_MS);
        vi.advanceTimersByTime(KEY_HEARTBEAT_MS);
      }
      let second = 0;
      const retry = () =>
        runIdempotent(ctx, addLeadTool, caller, run, async () => {
          second++;
          return { leadId: 'lead_2', status: 'created', creditsCharged: 1 };
        });
      await expect(retry()).rejects.toThrow(/in progress/);
      finish({ leadId: 'lead_1', status: 'created', creditsCharged: 1 });
      await running;
      // Done: the retry replays the first result, and the renewals stopped with the request.
      expect(vi.getTimerCount()).toBe(0);
      expect(await retry()).toMatchObject({ replayed: true, body: { leadId: 'lead_1' } });
      expect(second).toBe(0);

      // A request whose process died renews nothing: two minutes on, its key is taken over.
      reserveKey(ctx, { apiKeyId: 'key_1', key: 'dead', fingerprint: 'fp' }, 'idempotencyKey');
      ctx.clock.advance(KEY_STALE_MS - 1);
      expect(() => reserveKey(ctx, { apiKeyId: 'key_1', key: 'dead', fingerprint: 'fp' }, 'idempotencyKey')).toThrow(/in progress/);
      ctx.clock.advance(1);
      expect(reserveKey(ctx, { apiKeyId: 'key_1', key: 'dead', fingerprint: 'fp' }, 'idempotencyKey')).toEqual({ kind: 'reserved' });
    } finally {
      vi.useRealTimers();
    }
  });
});
