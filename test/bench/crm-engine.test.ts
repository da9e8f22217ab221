import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../bench/lib/app.js';
import { runCrmEngine } from '../../bench/lib/crm.js';
import { crmTargets } from '../../bench/lib/report.js';

/**
 * The CRM sync's engine case on a small campaign, so `npm run bench` does not rot and CI checks
 * what the lockstep method stands on: the two engines, one with the sync and one without, run the
 * same people on the same seed, so each tick pair does the same sends, and only the sync side
 * queues pushes. A figure whose two sides did different work would compare nothing.
 */
describe('bench: the CRM sync against the engine alone, in lockstep', () => {
  it('runs both sides through the same sends, tick for tick, and queues pushes on one side only', async () => {
    const r = await runCrmEngine(repoRoot(), { leads: 90, days: 4, rounds: 2 });
    expect(r.rounds).toBe(2);
    expect(r.runRatios).toHaveLength(2);
    expect(r.callsOff).toBeGreaterThan(0);
    expect(r.callsOn).toBe(r.callsOff);
    expect(r.pairs).toBeGreaterThan(0);
    expect(r.pushes).toBeGreaterThan(0);
    expect(r.offUs).toBeGreaterThan(0);
    expect(r.ratio).toBeCloseTo(r.onUs / r.offUs, 9);
    const [target] = crmTargets(r);
    expect(target?.id).toBe('crm-engine-cost');
    expect(target?.measured).toContain(`${r.pairs.toLocaleString('en-US')} tick pairs in lockstep over 2 runs`);
  }, 300_000);
});
