import { describe, expect, it } from 'vitest';
import { addLeadsBatch } from '../../src/core/leads/add.js';
import { leads } from '../../src/db/schema.js';
import { testCtx } from '../helpers.js';

describe('lead ids', () => {
  it('are in the order the leads were made, so the id index appends, and keep their public shape', () => {
    const ctx = testCtx();
    const batch = (tag: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ networkUrl: `https://www.linkedin.com/in/ids-${tag}-${i}`, firstName: 'Ada' }));
    const ids: string[] = [];
    for (const tag of ['a', 'b', 'c']) {
      const r = addLeadsBatch(ctx, 'cmp_q4', batch(tag, 20));
      expect(r.summary.created).toBe(20);
      ids.push(...r.results.map((x) => x.leadId as string));
      ctx.clock.advance(1);
    }
    for (const id of ids) expect(id).toMatch(/^lead_[0-9A-Za-z]{16}$/);
    expect(new Set(ids).size).toBe(60);
    // Each later batch's ids sort after every id of the batches before it.
    for (let b = 1; b < 3; b++) {
      const before = ids
        .slice(0, b * 20)
        .sort()
        .at(-1)!;
      for (const id of ids.slice(b * 20, b * 20 + 20)) expect(id > before).toBe(true);
    }
    const stored = ctx.db
      .select({ id: leads.id })
      .from(leads)
      .all()
      .map((r) => r.id);
    for (const id of ids) expect(stored).toContain(id);
  });
});
