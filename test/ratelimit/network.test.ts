import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { Ctx } from '../../src/core/context.js';
import { ApiError } from '../../src/core/errors.js';
import {
  admitPeopleSearch,
  admitProfileLookup,
  checkAccountSpacing,
  dailyUsage,
  RateLimitReport,
  rateLimitHeaders,
  reserveDailyQuota,
} from '../../src/core/ratelimit/index.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { accountDaily } from '../../src/db/schema.js';
import { silentLogger } from '../../src/log.js';
import { createContext } from '../../src/server.js';
import { fixture, testCtx } from '../helpers.js';
import { parseLimitField } from './probe.js';

const ada = { id: 'acc_ada', hasSalesNavigator: false };
const nav = { id: 'acc_nav', hasSalesNavigator: true };
const NOON = '2026-11-21T12:00:00Z';

/** The ApiError `fn` throws; fails the test if it returns. */
function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

const stored = (ctx: Ctx, accountId: string, day: string) =>
  ctx.db
    .select()
    .from(accountDaily)
    .where(and(eq(accountDaily.accountId, accountId), eq(accountDaily.day, day)))
    .get();

describe('per-account spacing', () => {
  it('lookup: one accepted lookup per 20 s per account; Retry-After counts to the next one', () => {
    const ctx = testCtx();
    admitProfileLookup(ctx, ada).settle(1);
    const err = thrown(() => admitProfileLookup(ctx, ada));
    expect(err.code).toBe('rate_limited');
    expect(err.details).toEqual({ retryAfterSeconds: 20 });
    expect(err.message).toMatch(/one profile lookup every 20 seconds/);
    // Another account is not held back.
    admitProfileLookup(ctx, nav).settle(1);
    ctx.clock.advance(7_500);
    expect(thrown(() => admitProfileLookup(ctx, ada)).details.retryAfterSeconds).toBe(13);
    ctx.clock.advance(12_499);
    expect(thrown(() => admitProfileLookup(ctx, ada)).details.retryAfterSeconds).toBe(1);
    ctx.clock.advance(1);
    expect(admitProfileLookup(ctx, ada).granted).toBe(1);
  });

  it('search: one page per 15 s per account', () => {
    const ctx = testCtx();
    admitPeopleSearch(ctx, ada, 25).settle(25);
    expect(thrown(() => admitPeopleSearch(ctx, ada, 25)).details).toEqual({ retryAfterSeconds: 15 });
    // Lookups and searches are spaced separately.
    admitProfileLookup(ctx, ada).settle(1);
    ctx.clock.advance(15_000);
    expect(admitPeopleSearch(ctx, ada, 25).granted).toBe(25);
  });

  it('counts accepted requests only: a refused one does not push the next one back', () => {
    const ctx = testCtx();
    checkAccountSpacing(ctx, 'profile_lookup', 'acc_ada');
    ctx.clock.advance(19_000);
    expect(() => checkAccountSpacing(ctx, 'profile_lookup', 'acc_ada')).toThrow(ApiError);
    ctx.clock.advance(1_000);
    checkAccountSpacing(ctx, 'profile_lookup', 'acc_ada');
  });

  it('a request the network refused (refuse) gives back its units and its spacing: it was not accepted', () => {
    const ctx = testCtx();
    const permit = admitPeopleSearch(ctx, ada, 25);
    expect(dailyUsage(ctx, 'searchResults', ada).used).toBe(25);
    permit.refuse();
    expect(dailyUsage(ctx, 'searchResults', ada).used).toBe(0);
    // The next page is not held back by the refused one.
    admitPeopleSearch(ctx, ada, 25).settle(25);
    expect(thrown(() => admitPeopleSearch(ctx, ada, 25)).details).toEqual({ retryAfterSeconds: 15 });
    // Refusing after settling changes nothing; settling keeps the spacing.
    const lookup = admitProfileLookup(ctx, ada);
    lookup.settle(0);
    lookup.refuse();
    expect(thrown(() => admitProfileLookup(ctx, ada)).code).toBe('rate_limited');
  });

  it('a spacing refusal reserves no quota', () => {
    const ctx = testCtx();
    admitProfileLookup(ctx, ada).settle(1);
    for (let i = 0; i < 5; i++) thrown(() => admitProfileLookup(ctx, ada));
    expect(dailyUsage(ctx, 'profileLookups', ada).used).toBe(1);
  });

  it('0 seconds in the config turns spacing off', () => {
    const ctx = testCtx({ limits: { accountSpacingSeconds: { profile_lookup: 0 } } });
    for (let i = 0; i < 10; i++) admitProfileLookup(ctx, ada).settle(1);
    admitPeopleSearch(ctx, ada, 10).settle(10);
    expect(() => admitPeopleSearch(ctx, ada, 10)).toThrow(ApiError);
  });
});

describe('daily network quotas', () => {
  const noSpacing = { accountSpacingSeconds: { profile_lookup: 0, people_search: 0 } };

  it.each([
    ['classic', ada, 80],
    ['Sales Navigator', nav, 150],
  ] as const)('lookups (%s): exactly %i a day; the next is network_daily_quota until UTC midnight', (_what, account, cap) => {
    const ctx = testCtx({ limits: noSpacing, clock: new FakeClock(Date.parse(NOON)) });
    for (let i = 0; i < cap; i++) admitProfileLookup(ctx, account).settle(1);
    const err = thrown(() => admitProfileLookup(ctx, account));
    expect(err.code).toBe('network_daily_quota');
    expect(err.details).toEqual({ retryAfterSeconds: 12 * 3600 });
    expect(err.message).toContain(`${cap} profile lookups`);
    expect(stored(ctx, account.id, '2026-11-21')?.profileLookups).toBe(cap);
  });

  it('resets at UTC midnight: refused one millisecond before, admitted at 00:00:00.000', () => {
    const ctx = testCtx({ limits: { ...noSpacing, daily: { profileLookups: { classic: 3 } } } });
    ctx.clock.set('2026-11-21T23:59:00Z');
    for (let i = 0; i < 3; i++) admitProfileLookup(ctx, ada).settle(1);
    expect(thrown(() => admitProfileLookup(ctx, ada)).details.retryAfterSeconds).toBe(60);
    ctx.clock.set('2026-11-21T23:59:59.999Z');
    expect(thrown(() => admitProfileLookup(ctx, ada)).details.retryAfterSeconds).toBe(1);
    ctx.clock.set('2026-11-22T00:00:00.000Z');
    admitProfileLookup(ctx, ada).settle(1);
    expect(dailyUsage(ctx, 'profileLookups', ada)).toMatchObject({ day: '2026-11-22', used: 1, remaining: 2, limit: 3 });
    expect(stored(ctx, 'acc_ada', '2026-11-21')?.profileLookups).toBe(3);
  });

  it('the cap follows the account flag: an account that gains Sales Navigator gets 150 at once', () => {
    const ctx = testCtx({ limits: noSpacing });
    for (let i = 0; i < 80; i++) admitProfileLookup(ctx, ada).settle(1);
    expect(() => admitProfileLookup(ctx, ada)).toThrow(ApiError);
    expect(admitProfileLookup(ctx, { ...ada, hasSalesNavigator: true }).granted).toBe(1);
  });

  it('a lookup settled with 0 (the network call failed) gives its unit back; settling twice does nothing', () => {
    const ctx = testCtx();
    const permit = admitProfileLookup(ctx, ada);
    expect(dailyUsage(ctx, 'profileLookups', ada).used).toBe(1);
    permit.settle(0);
    permit.settle(0);
    expect(dailyUsage(ctx, 'profileLookups', ada).used).toBe(0);
  });

  it.each([
    ['classic', ada, 1000],
    ['Sales Navigator', nav, 1500],
  ] as const)('search (%s): counted in results returned, capped at %i a day', (_what, account, cap) => {
    const ctx = testCtx({ limits: noSpacing });
    // A page that came back short is charged for what it returned, not for what was asked.
    const first = admitPeopleSearch(ctx, account, 50);
    expect(first.granted).toBe(50);
    first.settle(37);
    expect(dailyUsage(ctx, 'searchResults', account).used).toBe(37);
    let used = 37;
    while (cap - used >= 50) {
      admitPeopleSearch(ctx, account, 50).settle(50);
      used += 50;
    }
    // The last page is clamped to what is left today, so the cap is never passed.
    const last = admitPeopleSearch(ctx, account, 50);
    expect(last.granted).toBe(cap - used);
    last.settle(last.granted);
    expect(dailyUsage(ctx, 'searchResults', account)).toMatchObject({ used: cap, remaining: 0 });
    const err = thrown(() => admitPeopleSearch(ctx, account, 50));
    expect(err.code).toBe('network_daily_quota');
    expect(err.message).toContain(`${cap} search results`);
  });

  it('reservations hold the cap for requests in flight together', () => {
    const ctx = testCtx({ limits: { ...noSpacing, daily: { searchResults: { classic: 60 } } } });
    const a = admitPeopleSearch(ctx, ada, 50);
    const b = admitPeopleSearch(ctx, ada, 50);
    expect([a.granted, b.granted]).toEqual([50, 10]);
    expect(() => admitPeopleSearch(ctx, ada, 50)).toThrow(ApiError);
    a.settle(20);
    b.settle(10);
    expect(admitPeopleSearch(ctx, ada, 50).granted).toBe(30);
  });

  it('in-app search shares the people quota through reserveDailyQuota, without API spacing', () => {
    const ctx = testCtx({ limits: { daily: { searchResults: { classic: 100 } } } });
    reserveDailyQuota(ctx, 'searchResults', ada, 60).settle(60);
    reserveDailyQuota(ctx, 'searchResults', ada, 60).settle(40);
    expect(thrown(() => admitPeopleSearch(ctx, ada, 10)).code).toBe('network_daily_quota');
  });

  it('reports the policies that applied, for the RateLimit headers', () => {
    const ctx = testCtx({ clock: new FakeClock(Date.parse(NOON)) });
    const report = new RateLimitReport();
    admitProfileLookup(ctx, nav, report).settle(1);
    const headers = rateLimitHeaders(report.states);
    expect(parseLimitField(headers['RateLimit-Policy'])).toEqual({
      profile_lookup_spacing: { q: 1, w: 20 },
      profile_lookup_daily: { q: 150, w: 86400 },
    });
    expect(parseLimitField(headers.RateLimit)).toEqual({
      profile_lookup_spacing: { r: 0, t: 20 },
      profile_lookup_daily: { r: 149, t: 43200 },
    });
    // A lookup refused by the spacing still reports the daily quota, unchanged.
    ctx.clock.advance(5_000);
    const refused = new RateLimitReport();
    thrown(() => admitProfileLookup(ctx, nav, refused));
    expect(parseLimitField(rateLimitHeaders(refused.states).RateLimit)).toEqual({
      profile_lookup_daily: { r: 149, t: 43195 },
      profile_lookup_spacing: { r: 0, t: 15 },
    });
  });

  it('a workspace file seeds the quotas on the real UTC day, and the engine counters on the engine day, when the two differ', () => {
    const clock = new FakeClock(Date.parse(NOON));
    // The engine's clock two days ahead, as after a run at --sim-speed before a `seed --reset`.
    const simClock = new FakeClock(Date.parse(NOON) + 2 * 86_400_000);
    const ctx = createContext({ dbPath: ':memory:', env: 'development', simSpeed: 1, config: {} }, silentLogger(), clock, simClock);
    const file = fixture() as { accounts: { id: string; today?: Record<string, number> }[] };
    file.accounts = file.accounts.map((a) => (a.id === 'acc_ada' ? { ...a, today: { profileLookups: 80, searchResults: 1000, messagesSent: 3 } } : a));
    loadWorkspace(ctx, WorkspaceFile.parse(file), { reset: false });
    expect(dailyUsage(ctx, 'profileLookups', ada)).toMatchObject({ day: '2026-11-21', used: 80, remaining: 0 });
    expect(thrown(() => admitProfileLookup(ctx, ada)).code).toBe('network_daily_quota');
    expect(thrown(() => admitPeopleSearch(ctx, ada, 10)).code).toBe('network_daily_quota');
    expect(stored(ctx, 'acc_ada', '2026-11-23')).toMatchObject({ messagesSent: 3, profileLookups: 0, searchResults: 0 });
    expect(stored(ctx, 'acc_ada', '2026-11-21')).toMatchObject({ messagesSent: 0, profileLookups: 80, searchResults: 1000 });
    ctx.db.$client.close();
  });

  describe('persisted per account and UTC day', () => {
    let dir: string | undefined;
    afterEach(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    });

    it('survives a restart: a new process on the same database still refuses, until midnight', () => {
      dir = mkdtempSync(join(tmpdir(), 'outreach-quota-'));
      const dbPath = join(dir, 'outreach.db');
      const clock = new FakeClock(Date.parse(NOON));
      const settings = { dbPath, env: 'development' as const, simSpeed: 1, config: { limits: { daily: { profileLookups: { classic: 2 } } } } };

      const first = createContext(settings, silentLogger(), clock);
      loadWorkspace(first, WorkspaceFile.parse(fixture()), { reset: false });
      admitProfileLookup(first, ada).settle(1);
      clock.advance(20_000);
      admitProfileLookup(first, ada).settle(1);
      first.db.$client.close();

      // The restart forgets the in-memory spacing, but not the day's count.
      const second = createContext(settings, silentLogger(), clock);
      const err = thrown(() => admitProfileLookup(second, ada));
      expect(err.code).toBe('network_daily_quota');
      clock.set('2026-11-22T00:00:00Z');
      expect(admitProfileLookup(second, ada).granted).toBe(1);
      second.db.$client.close();
    });
  });
});
