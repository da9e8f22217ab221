import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/auth/keys.js';
import { DEFAULT_LIMITS, RATE_CLASS_NAMES, RATE_CLASSES } from '../../src/core/ratelimit/config.js';
import { workspace } from '../../src/db/schema.js';
import type { Outcome } from '../../src/tools/pipeline.js';
import { testCtx } from '../helpers.js';
import { call, parseLimitField, probeTool } from './probe.js';

const failed = (o: Outcome) => {
  if (o.ok) throw new Error(`expected a failure, got ${o.status}`);
  return o;
};

describe('per-route classes, through the one pipeline', () => {
  it.each(RATE_CLASS_NAMES.map((c) => [c, RATE_CLASSES[c].perMinute] as const))(
    '%s: exactly %i pass in a minute, the next is 429 with the right Retry-After, and passes after it',
    async (rateClass, n) => {
      const ctx = testCtx();
      const tool = probeTool(rateClass);
      for (let i = 1; i <= n; i++) {
        const o = await call(ctx, tool);
        expect(o.ok).toBe(true);
        const limits = parseLimitField(o.headers.RateLimit);
        expect(limits[rateClass]!.r).toBe(n - i);
        expect(limits.global!.r).toBe(120 - i);
      }
      expect(tool.runs()).toBe(n);

      const retry = Math.ceil(60 / n);
      const refused = failed(await call(ctx, tool));
      expect(refused.error.code).toBe('rate_limited');
      expect(refused.error.details).toEqual({ retryAfterSeconds: retry });
      expect(refused.headers['Retry-After']).toBe(String(retry));
      expect(parseLimitField(refused.headers['RateLimit-Policy'])).toEqual({ global: { q: 120, w: 60 }, [rateClass]: { q: n, w: 60 } });
      expect(parseLimitField(refused.headers.RateLimit)[rateClass]).toEqual({ r: 0, t: retry });
      // The refusal charged nothing: not the global bucket, not the handler.
      expect(parseLimitField(refused.headers.RateLimit).global!.r).toBe(120 - n);
      expect(tool.runs()).toBe(n);

      // One millisecond short of Retry-After it is still refused; at Retry-After it passes, once.
      ctx.clock.advance(retry * 1000 - 1);
      expect(failed(await call(ctx, tool)).error.code).toBe('rate_limited');
      ctx.clock.advance(1);
      expect((await call(ctx, tool)).ok).toBe(true);
      expect(failed(await call(ctx, tool)).error.code).toBe('rate_limited');
      expect(tool.runs()).toBe(n + 1);
    },
  );

  it('global: exactly 120 calls a minute per key on tools without a class; the 121st waits 1 s', async () => {
    const ctx = testCtx();
    const tool = probeTool();
    for (let i = 0; i < 120; i++) expect((await call(ctx, tool)).ok).toBe(true);
    const refused = failed(await call(ctx, tool));
    expect(refused.error.code).toBe('rate_limited');
    expect(refused.error.details.retryAfterSeconds).toBe(1);
    expect(refused.headers['Retry-After']).toBe('1');
    expect(refused.error.message).toMatch(/120 requests a minute.*Retry after 1 second/);
    expect(parseLimitField(refused.headers['RateLimit-Policy'])).toEqual({ global: { q: 120, w: 60 } });
    ctx.clock.advance(1000);
    // Two tokens came back in that second.
    expect((await call(ctx, tool)).ok).toBe(true);
    expect((await call(ctx, tool)).ok).toBe(true);
    expect((await call(ctx, tool)).ok).toBe(false);
  });

  it('the global limit spans every class: a classed call is refused when the key is out of global tokens', async () => {
    const ctx = testCtx();
    const plain = probeTool();
    const adds = probeTool('leads_add');
    for (let i = 0; i < 120; i++) await call(ctx, plain);
    const refused = failed(await call(ctx, adds));
    expect(refused.error.code).toBe('rate_limited');
    // The class bucket was not charged by the refusal.
    expect(parseLimitField(refused.headers.RateLimit).leads_add).toEqual({ r: 60, t: undefined });
    expect(adds.runs()).toBe(0);
  });

  it('start and pause share one 30/minute bucket', async () => {
    const ctx = testCtx();
    const start = probeTool('campaign_start_pause', 'probe_start');
    const pause = probeTool('campaign_start_pause', 'probe_pause');
    for (let i = 0; i < 15; i++) {
      expect((await call(ctx, start)).ok).toBe(true);
      expect((await call(ctx, pause)).ok).toBe(true);
    }
    expect(failed(await call(ctx, start)).error.details.retryAfterSeconds).toBe(2);
    expect(failed(await call(ctx, pause)).error.details.retryAfterSeconds).toBe(2);
  });

  it('buckets are per API key', async () => {
    const ctx = testCtx();
    const other = createApiKey(ctx, 'test', 'other').key;
    const tool = probeTool('profile_lookup');
    for (let i = 0; i < 5; i++) await call(ctx, tool);
    expect((await call(ctx, tool)).ok).toBe(false);
    expect((await call(ctx, tool, {}, other)).ok).toBe(true);
  });

  it('runs after auth and the plan gate and before validation: a refused call with bad input is 429', async () => {
    const ctx = testCtx();
    const tool = probeTool('people_search');
    for (let i = 0; i < 6; i++) expect(failed(await call(ctx, tool, { bogus: 1 })).error.code).toBe('validation_error');
    expect(failed(await call(ctx, tool, { bogus: 1 })).error.code).toBe('rate_limited');
    expect(failed(await call(ctx, tool, {}, 'sk_test_not_a_key_0000000000000000000')).error.code).toBe('unauthorized');
  });

  it('a blocked plan is refused before the rate stage and charges nothing, but still reports the global policy', async () => {
    const ctx = testCtx();
    const tool = probeTool('lookalike');
    ctx.db.update(workspace).set({ plan: 'free' }).where(eq(workspace.id, 1)).run();
    for (let i = 0; i < 10; i++) {
      const o = failed(await call(ctx, tool));
      expect(o.error.code).toBe('plan_required');
      expect(parseLimitField(o.headers.RateLimit)).toEqual({ global: { r: 120 } });
    }
    ctx.db.update(workspace).set({ plan: 'paid' }).where(eq(workspace.id, 1)).run();
    for (let i = 0; i < 6; i++) expect((await call(ctx, tool)).ok).toBe(true);
  });

  it('limits come from the config section, over the spec defaults', async () => {
    const ctx = testCtx({ limits: { globalPerMinute: 4, perMinute: { leads_add: 2 } } });
    expect(ctx.limits.config.perMinute.lead_update).toBe(DEFAULT_LIMITS.perMinute.lead_update);
    const adds = probeTool('leads_add');
    expect((await call(ctx, adds)).ok).toBe(true);
    expect((await call(ctx, adds)).ok).toBe(true);
    expect(failed(await call(ctx, adds)).error.details.retryAfterSeconds).toBe(30);
    const plain = probeTool();
    expect((await call(ctx, plain)).ok).toBe(true);
    expect((await call(ctx, plain)).ok).toBe(true);
    expect(failed(await call(ctx, plain)).error.details.retryAfterSeconds).toBe(15);
  });

  it('keeps memory bounded: idle keys are evicted', async () => {
    const ctx = testCtx();
    const tool = probeTool('leads_add');
    const keys = Array.from({ length: 50 }, (_, i) => createApiKey(ctx, 'test', `k${i}`).key);
    for (const key of keys) await call(ctx, tool, {}, key);
    expect(ctx.limits.size).toBe(100);
    ctx.clock.advance(61_000);
    await call(ctx, tool);
    expect(ctx.limits.size).toBe(2);
  });
});
