import { and, eq, sql } from 'drizzle-orm';
import type { Ctx } from '../../src/core/context.js';
import type { FaultPoint } from '../../src/core/faults.js';
import { launchLookalike, type LaunchOutcome, type LookalikeRequest } from '../../src/core/lookalike/launch.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { creditBalance, creditLedger, leads, lookalikeJobs } from '../../src/db/schema.js';
import type { LookalikeInput, LookalikePage, NetworkProvider } from '../../src/core/network/provider.js';
import { lookalikePool } from '../../src/network/sim/search.js';

export const SEED = 'https://www.linkedin.com/in/ada-lovelace';

/**
 * The simulator's ranked pool for Ada's lookalikes under these filters, as profile URLs: what a
 * job draws, in order (the worker asks the simulator, so this is an independent oracle).
 */
export function poolOf(titles: string[] = [], countries: string[] = []): string[] {
  const jobTitleKeywords = [...new Set(titles.map((t) => t.trim().toLowerCase()))].sort();
  const codes = [...new Set(countries.map((c) => c.toUpperCase()))].sort();
  return lookalikePool({ seedSlug: 'ada-lovelace', jobTitleKeywords, countries: codes }).slugs.map((s) => `https://www.linkedin.com/in/${s}`);
}

export function launch(ctx: Ctx, over: Partial<LookalikeRequest> = {}): LaunchOutcome['result'] {
  return launchOutcome(ctx, over).result;
}

export function launchOutcome(ctx: Ctx, over: Partial<LookalikeRequest> = {}): LaunchOutcome {
  const ws = getWorkspace(ctx);
  if (!ws) throw new Error('no workspace');
  return launchLookalike(ctx, ws, { seed: SEED, jobTitleKeywords: [], countries: [], numberOfLeads: 50, protectAcrossCampaigns: true, ...over });
}

export function setLookalikeBalances(ctx: Ctx, lookalikeCredits: number, lookalikeTopUpCredits: number): void {
  ctx.db.update(creditBalance).set({ lookalikeCredits, lookalikeTopUpCredits }).where(eq(creditBalance.id, 1)).run();
  // Keep the ledger's invariant (balance = sum of deltas) true for the new starting point.
  for (const [bucket, value] of [
    ['lookalike_credits', lookalikeCredits],
    ['lookalike_top_up_credits', lookalikeTopUpCredits],
  ] as const) {
    const sum = ledgerSum(ctx, { bucket });
    if (sum !== value)
      ctx.db
        .insert(creditLedger)
        .values({ at: ctx.clock.now(), bucket, delta: value - sum, reason: 'adjustment', ref: null })
        .run();
  }
}

export function balances(ctx: Ctx) {
  const row = ctx.db.select().from(creditBalance).where(eq(creditBalance.id, 1)).get();
  if (!row) throw new Error('no balance row');
  return { credits: row.credits, topUpCredits: row.topUpCredits, lookalikeCredits: row.lookalikeCredits, lookalikeTopUpCredits: row.lookalikeTopUpCredits };
}

export function ledgerSum(ctx: Ctx, where: { bucket?: string; reason?: string; ref?: string }): number {
  const conds = [
    where.bucket ? eq(creditLedger.bucket, where.bucket) : undefined,
    where.reason ? eq(creditLedger.reason, where.reason) : undefined,
    where.ref ? eq(creditLedger.ref, where.ref) : undefined,
  ];
  return (
    ctx.db
      .select({ n: sql<number>`coalesce(sum(${creditLedger.delta}), 0)` })
      .from(creditLedger)
      .where(and(...conds))
      .get()?.n ?? 0
  );
}

export const ledgerRows = (ctx: Ctx, ref: string) => ctx.db.select().from(creditLedger).where(eq(creditLedger.ref, ref)).all();

export const jobsOf = (ctx: Ctx, campaignId: string) =>
  ctx.db.select().from(lookalikeJobs).where(eq(lookalikeJobs.campaignId, campaignId)).orderBy(lookalikeJobs.seq).all();

export const jobById = (ctx: Ctx, id: string) => ctx.db.select().from(lookalikeJobs).where(eq(lookalikeJobs.id, id)).get();

/** The campaign's lead URLs in insertion order. */
export const leadUrls = (ctx: Ctx, campaignId: string): string[] =>
  ctx.db
    .select({ url: leads.networkUrl })
    .from(leads)
    .where(eq(leads.campaignId, campaignId))
    .orderBy(leads.seq)
    .all()
    .map((r) => r.url ?? '');

/**
 * Wraps a provider so a test controls its lookalike pages: `hold(n)` makes call n (1-based)
 * wait until released, which freezes a worker between two pages as a crash would; `fail(n, e)`
 * makes call n throw.
 */
export class ControlledNetwork {
  calls: LookalikeInput[] = [];
  private readonly holds = new Map<number, { release: () => void; reached: Promise<void>; markReached: () => void; gate: Promise<void> }>();
  private readonly failures = new Map<number, unknown>();

  constructor(private readonly inner: NetworkProvider) {}

  hold(call: number): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let markReached!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const reached = new Promise<void>((r) => (markReached = r));
    this.holds.set(call, { release, reached, markReached, gate });
    return { reached, release };
  }

  fail(call: number, error: unknown): void {
    this.failures.set(call, error);
  }

  /** A provider for a context: lookalike calls come here, everything else goes to `inner`. */
  provider(): NetworkProvider {
    const inner = this.inner;
    return new Proxy(inner, {
      get: (target, prop, receiver) => {
        if (prop === 'lookalikeCandidates') return (input: LookalikeInput) => this.lookalike(input);
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  private async lookalike(input: LookalikeInput): Promise<LookalikePage> {
    this.calls.push(input);
    const n = this.calls.length;
    const hold = this.holds.get(n);
    if (hold) {
      hold.markReached();
      await hold.gate;
    }
    if (this.failures.has(n)) throw this.failures.get(n);
    return this.inner.lookalikeCandidates(input);
  }
}

/** Makes the named fault points fail (each time, or only the first `times`), as a real write failure there would. */
export function failAt(ctx: Ctx, points: readonly FaultPoint[], times = Infinity): void {
  let left = times;
  ctx.faults = {
    hit(point) {
      if (points.includes(point) && left-- > 0) throw new Error(`injected failure at ${point}`);
    },
  };
}
