import { beforeAll, describe, expect, it } from 'vitest';
import { generateLeads } from '../../src/core/seed/fixture.js';
import { listLeads, type ListLeadsInput } from '../../src/core/leads/list.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { testCtx } from '../helpers.js';
import { captureQueries, freshHandle, queryPlan } from '../plans.js';
import { ALLOWED_QUERIES, type ModelQuery } from './data.js';
import { restoreCampaign } from '../../src/core/campaigns/state-machine.js';

/**
 * The query plans behind every (filter, sort) pair, on 20,000 generated leads beside another
 * campaign's: each list query is one index search on that pair's keyset index, bounded by the
 * campaign, the filter and the sort range, and never a table scan or a sort (TEMP B-TREE). So a
 * page reads about `limit` index entries whatever the campaign's size; the bench measures it.
 */
const INDEX: Record<string, string> = {
  'none|createdAt': 'leads_created',
  'none|lastInboundMessageAt': 'leads_inbound',
  'tag|createdAt': 'leads_tag_created',
  'tag|taggedAt': 'leads_tag_tagged',
  'replied|createdAt': 'leads_replied_created',
  'replied|repliedAt': 'leads_replied_replied',
  'replied|lastInboundMessageAt': 'leads_replied_inbound',
  'needsReply|createdAt': 'leads_needs_reply_created',
  'excluded|createdAt': 'leads_excluded_created',
};
const COLUMN = { createdAt: 'created_at', taggedAt: 'tagged_at', repliedAt: 'replied_at', lastInboundMessageAt: 'last_inbound_message_at' };

const ctx = testCtx();
let secret: string;

beforeAll(() => {
  const now = ctx.clock.now();
  restoreCampaign(ctx, { id: 'cmp_big', name: 'Big', status: 'READY_TO_SEND', createdAt: now, updatedAt: now });
  restoreCampaign(ctx, { id: 'cmp_side', name: 'Side', status: 'READY_TO_SEND', createdAt: now, updatedAt: now });
  generateLeads(ctx.db, 'cmp_side', 5_000);
  generateLeads(ctx.db, 'cmp_big', 20_000);
  secret = getWorkspace(ctx)!.cursorSecret;
});

const filterOf = (q: ModelQuery) => (['tag', 'replied', 'needsReply', 'excluded'] as const).find((f) => q[f] !== undefined) ?? 'none';

/** The plans of page one and of the page after it, and of that page's cursor check. */
function pagePlans(q: ModelQuery): { lists: string[][]; check: string[] } {
  const input = { campaignId: 'cmp_big', ...q, sort: q.sort ?? 'createdAt', limit: 7 } as ListLeadsInput;
  // A fresh handle on the connection, so the statements listLeads prepares once per handle are prepared, and captured, here.
  const fresh = { ...ctx, db: freshHandle(ctx.db) };
  const seen = captureQueries(fresh.db, () => {
    const next = listLeads(fresh, secret, input).nextCursor;
    expect(next).not.toBeNull();
    listLeads(fresh, secret, { ...input, cursor: next! });
  });
  const lists = seen.filter((c) => /from "leads"/.test(c.sql) && /order by/i.test(c.sql));
  const check = seen.find((c) => /count\(\*\)/.test(c.sql))!;
  return { lists: lists.map((c) => queryPlan(ctx.db, c)), check: queryPlan(ctx.db, check) };
}

describe('list_leads query plans', () => {
  it.each(ALLOWED_QUERIES.map((q) => [JSON.stringify(q), q] as const))('%s searches its keyset index on every page', (_name, q) => {
    const sort = q.sort ?? 'createdAt';
    const index = INDEX[`${filterOf(q)}|${sort}`]!;
    const { lists, check } = pagePlans(q);
    // Page one: one query. A later page: the ties of the cursor's sort value, then the older values.
    expect(lists).toHaveLength(3);
    for (const plan of lists) {
      expect(plan, plan.join('\n')).toHaveLength(1);
      expect(plan[0]).toMatch(new RegExp(`^SEARCH leads USING (COVERING )?INDEX ${index} \\(campaign_id=\\?`));
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE|^SCAN/m);
    }
    const col = COLUMN[sort];
    expect(lists[1]![0]).toContain(`${col}=? AND seq<?`);
    expect(lists[2]![0]).toContain(`${col}<?`);
    // The cursor check is a primary-key lookup.
    expect(check).toEqual(['SEARCH leads USING INTEGER PRIMARY KEY (rowid=?)']);
  });

  it('matches the recorded plans, for review', async () => {
    const shown = ALLOWED_QUERIES.map(
      (q) =>
        `${JSON.stringify(q)}\n${pagePlans(q)
          .lists.map((p) => `  ${p.join(' | ')}`)
          .join('\n')}`,
    );
    await expect(`${shown.join('\n\n')}\n`).toMatchFileSnapshot('./__plans__/list-leads.txt');
  });
});
