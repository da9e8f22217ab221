import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { leads } from '../../src/db/schema.js';
import { generateLeads } from '../../src/core/seed/fixture.js';
import { captureQueriesAsync, queryPlan } from '../plans.js';
import { engineWorkspace, harness, url } from './helpers.js';

/**
 * The engine ticks every 20-250 ms whatever the campaigns' sizes, so its per-tick reads must
 * be index searches: a scan of the leads table costs about 300 ms at a million leads, and ran
 * on every tick (bench: every request's p99 rose to 200+ ms).
 */
describe('engine tick query plans', () => {
  it('finds pending polite closes through their index, oldest first, not by scanning the leads', async () => {
    const h = harness(engineWorkspace([{ slug: 'first' }, { slug: 'second' }], { status: 'READY_TO_SEND' }));
    generateLeads(h.ctx.db, 'cmp', 5_000);
    h.ctx.db
      .update(leads)
      .set({ politeClosePendingAt: 1 })
      .where(eq(leads.networkUrl, url('second')))
      .run();
    const seen = await captureQueriesAsync(h.ctx.db, () => h.tick());
    const polite = seen.filter((q) => /"?polite_close_pending_at"? is not null/i.test(q.sql));
    expect(polite).toHaveLength(1);
    const plan = queryPlan(h.ctx.db, polite[0]!);
    // The limit is a constant subquery (see src/db/sql/leads.ts); the leads are sought, never scanned.
    expect(
      plan.filter((line) => line !== 'SCALAR SUBQUERY 1' && line !== 'SCAN CONSTANT ROW'),
      plan.join('\n'),
    ).toEqual(['SEARCH leads USING INDEX leads_polite_close (polite_close_pending_at>?)']);
  });
});
