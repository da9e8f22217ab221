import { and, asc, eq, gt, sql, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/core/context.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { draftPage, draftPageSql, draftRowAt, draftSeqExists, findDraftRow, pendingDraftCounts } from '../../src/core/drafts/store.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { asDraftsWriter } from '../../src/db/drafts-writer.js';
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

  it('pages each filter on its own index, with the cursor in the index, even after ANALYZE', () => {
    const ctx = seeded();
    // Statistics where the queue is mostly history (decided drafts of another campaign) and drafts
    // far outnumber leads (a lead has one per step and per agent reply): what tempts a planner to
    // scan the leads and sort, or the primary key and filter.
    const c = ctx.db.$client;
    const lead = c.prepare(
      "INSERT INTO leads (id, campaign_id, network_url, first_name, stage, source, created_at, updated_at) VALUES (?, 'cmp_q4', ?, 'Stat', 'new', 'manual', 0, 0)",
    );
    const draft = c.prepare(
      "INSERT INTO drafts (id, campaign_id, lead_id, step_id, slot, variant, kind, text, rendered_text, status, created_at, updated_at) VALUES (?, 'cmp_q4', ?, ?, ?, 'A', 'message', 'Hi', 'Hi', 'pending', 0, 0)",
    );
    // Only the drafts store may write drafts (the gate), and a draft starts pending: the history
    // is written as the store would, then rejected.
    asDraftsWriter(c, () =>
      c.transaction(() => {
        for (let i = 0; i < 40; i++) {
          lead.run(`lead_stat${i}`, `https://www.linkedin.com/in/stat-${i}`);
          for (let step = 0; step < 50; step++) draft.run(`drf_stat${i}x${step}`, `lead_stat${i}`, `stp_${step}`, `step:stp_${step}`);
        }
        c.prepare("UPDATE drafts SET status = 'rejected' WHERE campaign_id = 'cmp_q4'").run();
      })(),
    );
    const plans = () => ({
      none: c.prepare(`EXPLAIN QUERY PLAN ${draftPageSql(false, false)}`).all({ after: 0, limit: 51 }),
      campaign: c.prepare(`EXPLAIN QUERY PLAN ${draftPageSql(true, false)}`).all({ after: 0, limit: 51, campaignId: 'cmp_review' }),
      status: c.prepare(`EXPLAIN QUERY PLAN ${draftPageSql(false, true)}`).all({ after: 0, limit: 51, status: 'pending' }),
      both: c.prepare(`EXPLAIN QUERY PLAN ${draftPageSql(true, true)}`).all({ after: 0, limit: 51, campaignId: 'cmp_review', status: 'pending' }),
    });
    const expected = {
      none: 'SEARCH d USING INTEGER PRIMARY KEY (rowid>?)',
      campaign: 'SEARCH d USING INDEX drafts_campaign (campaign_id=? AND seq>?)',
      status: 'SEARCH d USING INDEX drafts_status (status=? AND seq>?)',
      both: 'SEARCH d USING INDEX drafts_campaign_status (campaign_id=? AND status=? AND seq>?)',
    };
    const details = (p: ReturnType<typeof plans>) =>
      Object.fromEntries(Object.entries(p).map(([k, rows]) => [k, (rows as { detail: string }[]).map((r) => r.detail)]));
    for (const stats of ['none', 'ANALYZE'] as const) {
      if (stats === 'ANALYZE') c.exec('ANALYZE');
      const got = details(plans());
      for (const [shape, step] of Object.entries(expected)) {
        expect(got[shape], `${shape} (${stats}): ${JSON.stringify(got[shape])}`).toContain(step);
        // Each lead by its key, never a scan.
        expect(got[shape], `${shape} (${stats})`).toContain('SEARCH l USING INDEX leads_id_unique (id=?)');
        expect(got[shape]!.join(' '), `${shape} (${stats})`).not.toMatch(/SCAN (d|l|drafts|leads)\b|TEMP B-TREE/);
      }
    }
    // And the pages still read what the query builder reads.
    expect(draftPage(ctx, { campaignId: 'cmp_review', status: 'pending' }, 0, 50).map((d) => d.id)).toEqual(
      draftPage(ctx, {}, 0, 50)
        .filter((d) => d.campaignId === 'cmp_review' && d.status === 'pending')
        .map((d) => d.id),
    );
  });
});
