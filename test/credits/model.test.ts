import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { campaigns, creditBalance, creditLedger, leads } from '../../src/db/schema.js';
import { toolByName } from '../../src/tools/index.js';
import { authenticate, invokeTool } from '../../src/tools/pipeline.js';
import { fixture, TEST_KEY, testCtx } from '../helpers.js';

/**
 * A model test of the credit and idempotency guarantees under random interleavings of adds,
 * batch adds, deletes and retries (with and without keys, with reused keys):
 * - the balance equals the seeded balance minus the ledger charges, per bucket, never negative;
 * - every created lead is charged exactly once, and only created leads are charged;
 * - at most one call per idempotency key ever charges;
 * - a retained key replays its first answer byte for byte, and conflicts for other requests;
 * - campaign totals equal their rows.
 */

const CAMPAIGNS = ['cmp_q4', 'cmp_failed'] as const;
const URLS = [
  ...['p0', 'p1', 'p2', 'p3', 'p4'].map((s) => `https://www.linkedin.com/in/${s}`),
  'https://uk.linkedin.com/in/P1/',
  'https://www.linkedin.com/in/ada-lovelace',
  'https://www.linkedin.com/in/do-not-contact',
  'https://www.linkedin.com/company/nope',
];
const KEYS = [undefined, 'k0', 'k1', 'k2', 'k3'] as const;

type Call = { tool: string; args: Record<string, unknown>; key: string | undefined };

const key = fc.constantFrom(...KEYS);
const campaignId = fc.constantFrom(...CAMPAIGNS);
const anUrl = fc.constantFrom(...URLS);
const op: fc.Arbitrary<{ kind: 'call'; call: Call } | { kind: 'retry'; back: number }> = fc.oneof(
  fc.record({ key, campaignId, networkUrl: anUrl }).map(({ key, campaignId, networkUrl }) => ({
    kind: 'call' as const,
    call: { tool: 'add_lead', args: { campaignId, networkUrl }, key },
  })),
  fc.record({ key, campaignId, urls: fc.array(anUrl, { minLength: 1, maxLength: 4 }) }).map(({ key, campaignId, urls }) => ({
    kind: 'call' as const,
    call: { tool: 'add_leads_batch', args: { campaignId, leads: urls.map((networkUrl) => ({ networkUrl })) }, key },
  })),
  fc.record({ key, campaignId, picks: fc.array(fc.nat(6), { minLength: 1, maxLength: 3 }) }).map(({ key, campaignId, picks }) => ({
    kind: 'call' as const,
    // Indices into the campaign's current leads, resolved when the step runs; 6 and up names a lead that never existed.
    call: { tool: 'delete_leads_batch', args: { campaignId, picks }, key },
  })),
  fc.nat(20).map((back) => ({ kind: 'retry' as const, back })),
);

/** What a retained key is bound to and answers. */
interface Stored {
  request: string;
  json: string;
}

describe('credits and idempotency model', () => {
  it('never charges twice, never goes negative, and keeps the ledger, totals and replays exact', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(4), fc.nat(3), fc.array(op, { minLength: 1, maxLength: 25 }), async (credits, topUp, ops) => {
        const w = fixture();
        w.credits = { credits, topUpCredits: topUp, lookalikeCredits: 0, lookalikeTopUpCredits: 0 };
        const ctx = testCtx({ workspace: w });
        const history: Call[] = [];
        const stored = new Map<string, Stored>();
        const chargingCalls = new Map<string, number>();
        const chargedLeads = new Set<string>();

        const ledger = () => ctx.db.select().from(creditLedger).where(eq(creditLedger.reason, 'lead_created')).all();
        const resolve = (call: Call): Record<string, unknown> => {
          if (call.tool !== 'delete_leads_batch') return call.args;
          const ids = ctx.db
            .select({ id: leads.id })
            .from(leads)
            .where(eq(leads.campaignId, call.args.campaignId as string))
            .all()
            .map((l) => l.id);
          const picks = call.args.picks as number[];
          // Resolved once, then frozen, so a retry sends the very same body.
          const leadIds = picks.map((p) => ids[p] ?? `lead_never${p}`);
          call.args = { campaignId: call.args.campaignId, leadIds };
          return call.args;
        };

        for (const step of ops) {
          const call = step.kind === 'call' ? { ...step.call } : history[history.length - 1 - (step.back % Math.max(history.length, 1))];
          if (!call) continue;
          const args = 'picks' in call.args ? resolve(call) : call.args;
          history.push(call);
          const chargesBefore = ledger().length;
          // A minute between calls, as a client keeping to the limits would: batch adds allow 10 a
          // minute, and a run of up to 25 calls at one fake instant was refused by the rate limit
          // (which comes before idempotency) instead of answering what this model checks.
          ctx.clock.advance(60_000);
          const auth = authenticate(ctx, { apiKey: TEST_KEY }, { requestId: 'model' });
          if (!auth.ok) throw auth.error;
          const outcome = await invokeTool(ctx, toolByName.get(call.tool)!, { caller: auth.caller, input: args, idempotencyKey: call.key });
          const newCharges = ledger().slice(chargesBefore);
          const request = JSON.stringify([call.tool, args]);

          // Input validation runs before the idempotency stage, so a bad input never touches a key.
          const validInput = toolByName.get(call.tool)!.input.safeParse(args).success;
          if (!validInput) expect(!outcome.ok && outcome.error.code).toBe('validation_error');
          if (call.key !== undefined && validInput) {
            const prior = stored.get(call.key);
            if (prior && prior.request === request) {
              expect(outcome.ok && outcome.json).toBe(prior.json);
              expect(newCharges).toEqual([]);
            } else if (prior) {
              expect(!outcome.ok && outcome.error.code).toBe('conflict');
              expect(newCharges).toEqual([]);
            } else if (outcome.ok && toolByName.get(call.tool)!.keepKey?.(outcome.body as never) !== false) {
              stored.set(call.key, { request, json: outcome.json });
            }
            if (newCharges.length > 0) chargingCalls.set(call.key, (chargingCalls.get(call.key) ?? 0) + 1);
          }

          // Charges are exactly the leads this call reports created.
          const body = outcome.ok ? (outcome.body as any) : null;
          const created: string[] =
            body === null || outcome.ok === false || outcome.headers['Idempotent-Replayed']
              ? []
              : call.tool === 'add_lead'
                ? body.status === 'created'
                  ? [body.leadId]
                  : []
                : call.tool === 'add_leads_batch'
                  ? body.results.filter((r: any) => r.status === 'created').map((r: any) => r.leadId)
                  : [];
          expect(newCharges.map((c) => c.ref).sort()).toEqual([...created].sort());
          if (body && call.tool !== 'delete_leads_batch' && !outcome.headers['Idempotent-Replayed']) expect(body.creditsCharged).toBe(created.length);
          for (const id of created) {
            expect(chargedLeads.has(id)).toBe(false);
            chargedLeads.add(id);
          }

          const balance = ctx.db.select().from(creditBalance).get()!;
          expect(balance.credits).toBeGreaterThanOrEqual(0);
          expect(balance.topUpCredits).toBeGreaterThanOrEqual(0);
          const all = ledger();
          expect(balance.credits).toBe(credits - all.filter((l) => l.bucket === 'credits').length);
          expect(balance.topUpCredits).toBe(topUp - all.filter((l) => l.bucket === 'top_up_credits').length);
          // Normal credits go first: top-up is touched only once normal credits are gone.
          if (all.some((l) => l.bucket === 'top_up_credits')) expect(balance.credits).toBe(0);
          for (const c of CAMPAIGNS) {
            const rows = ctx.db.select().from(leads).where(eq(leads.campaignId, c)).all().length;
            expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, c)).get()!.totalLeads).toBe(rows);
          }
        }
        for (const n of chargingCalls.values()) expect(n).toBe(1);
        ctx.db.$client.close();
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
