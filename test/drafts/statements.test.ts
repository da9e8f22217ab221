import { and, asc, eq, gt, sql, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/core/context.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { draftPage, draftRowAt, draftSeqExists, findDraftRow, pendingDraftCounts } from '../../src/core/drafts/store.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { drafts, leads } from '../../src/db/schema.js';
import { testCtx } from '../helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';

/** The drafts store's SQL (better-sqlite3's prepare) reads what the query builder reads. */
describe('drafts statements', () => {
  const seeded = () => {
    const ctx = testCtx({ workspace: reviewWorkspace(6) });
    for (let i = 0; i < 6; i++) draftFor(ctx, noteFor(`lead_r${i}`));
    draftFor(ctx, noteFor('lead_r0', { stepId: 'stp_msg', kind: 'message', subject: null }));
    const [first] = draftPage(ctx, {}, 0, 1);
    expect(updateDrafts(ctx, [{ id: first!.id, status: 'approved' }]).summary.updated).toBe(1);
    return ctx;
  };
  const builder = (ctx: Ctx, filter: { campaignId?: string; status?: string }, after: number, limit: number) => {
    const conds: SQL[] = [gt(drafts.seq, after)];
    if (filter.campaignId !== undefined) conds.push(eq(drafts.campaignId, filter.campaignId));
    if (filter.status !== undefined) conds.push(eq(drafts.status, filter.status));
    return ctx.db
      .select({
        draft: drafts,
        lead: {
          fullName: leads.fullName,
          firstName: leads.firstName,
          lastName: leads.lastName,
          jobTitle: leads.jobTitle,
          companyName: leads.companyName,
          headline: leads.headline,
          location: leads.location,
          personalization: leads.personalization,
          networkUrl: leads.networkUrl,
        },
      })
      .from(drafts)
      .innerJoin(leads, eq(leads.id, drafts.leadId))
      .where(and(...conds))
      .orderBy(asc(drafts.seq))
      .limit(limit)
      .all()
      .map(({ draft, lead }) => ({ ...draft, lead }));
  };

  it('pages every filter shape as the query builder does', () => {
    const ctx = seeded();
    const filters = [
      {},
      { campaignId: 'cmp_review' },
      { status: 'pending' as const },
      { campaignId: 'cmp_review', status: 'approved' as const },
      { campaignId: 'cmp_none' },
    ];
    for (const filter of filters) {
      for (const [after, limit] of [
        [0, 50],
        [0, 2],
        [3, 3],
      ] as const) {
        const got = draftPage(ctx, filter, after, limit);
        expect(got, JSON.stringify({ filter, after, limit })).toEqual(builder(ctx, filter, after, limit));
      }
    }
    expect(draftPage(ctx, {}, 0, 50)).toHaveLength(7);
  });

  it('reads a draft by id, slot and position, and the pending count per campaign', () => {
    const ctx = seeded();
    for (const row of ctx.db.select().from(drafts).all()) {
      expect(findDraftRow(ctx, row.id)).toStrictEqual(row);
      expect(draftRowAt(ctx, row.leadId, row.slot)).toStrictEqual(row);
      expect(draftSeqExists(ctx, row.seq)).toBe(true);
    }
    expect(findDraftRow(ctx, 'drf_missing')).toBeUndefined();
    expect(draftSeqExists(ctx, 9_999)).toBe(false);
    expect(pendingDraftCounts(ctx)).toEqual(
      ctx.db
        .select({ campaignId: drafts.campaignId, pending: sql<number>`count(*)` })
        .from(drafts)
        .where(eq(drafts.status, 'pending'))
        .groupBy(drafts.campaignId)
        .all(),
    );
    expect(pendingDraftCounts(ctx)).toEqual([{ campaignId: 'cmp_review', pending: 6 }]);
  });
});
