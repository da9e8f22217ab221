import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { listLeads, type ListLeadsInput } from '../../src/core/leads/list.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { generateLeads } from '../../src/core/seed/fixture.js';
import { campaigns, leads } from '../../src/db/schema.js';
import { countRows } from '../../src/db/tx.js';
import { testCtx } from '../helpers.js';
import { ALLOWED_QUERIES } from '../leads/data.js';
import { restoreCampaign } from '../../src/core/campaigns/state-machine.js';

const COUNT = 20_000;

function freshCtx() {
  const ctx = testCtx();
  const now = ctx.clock.now();
  restoreCampaign(ctx, { id: 'cmp_fx', name: 'Fixture', status: 'READY_TO_SEND', createdAt: now, updatedAt: now });
  return ctx;
}

const ctx = freshCtx();
let secret: string;

beforeAll(() => {
  expect(generateLeads(ctx.db, 'cmp_fx', COUNT)).toEqual({ from: 0, to: COUNT });
  secret = getWorkspace(ctx)!.cursorSecret;
});

const COLUMN = { createdAt: 'created_at', taggedAt: 'tagged_at', repliedAt: 'replied_at', lastInboundMessageAt: 'last_inbound_message_at' } as const;

/** The same list computed the slow way: a full sort and an OFFSET. */
function naivePage(q: (typeof ALLOWED_QUERIES)[number], offset: number, limit: number): string[] {
  const col = COLUMN[q.sort ?? 'createdAt'];
  const conds = [`campaign_id = 'cmp_fx'`, `${col} IS NOT NULL`];
  if (q.tag !== undefined) conds.push(`tag = '${q.tag}'`);
  if (q.replied !== undefined) conds.push(`replied = ${q.replied ? 1 : 0}`);
  if (q.needsReply !== undefined) conds.push(`needs_reply = ${q.needsReply ? 1 : 0}`);
  if (q.excluded !== undefined) conds.push('excluded = 1');
  const rows = ctx.db.$client
    .prepare(`SELECT id FROM leads NOT INDEXED WHERE ${conds.join(' AND ')} ORDER BY ${col} DESC, seq DESC LIMIT ? OFFSET ?`)
    .all(limit, offset) as { id: string }[];
  return rows.map((r) => r.id);
}

describe('fixture generator', () => {
  it('writes the leads and keeps totalLeads true', () => {
    expect(countRows(ctx.db, leads, eq(leads.campaignId, 'cmp_fx'))).toBe(COUNT);
    expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, 'cmp_fx')).get()!.totalLeads).toBe(COUNT);
  });

  it('gives every filter and sort of the list a real share of the leads', () => {
    for (const q of ALLOWED_QUERIES) {
      const col = COLUMN[q.sort ?? 'createdAt'];
      const all = naivePage(q, 0, COUNT);
      // 5%: at a million leads every list then has a page 1000 of 50, which the bench measures.
      expect(all.length, `${JSON.stringify(q)} (${col})`).toBeGreaterThan(COUNT / 20);
    }
    const share = (where: string) =>
      (ctx.db.$client.prepare(`SELECT count(*) AS n FROM leads WHERE campaign_id = 'cmp_fx' AND ${where}`).get() as { n: number }).n / COUNT;
    expect(share(`tag IS NOT NULL AND tagged_at IS NULL`)).toBeGreaterThan(0.01);
    expect(share(`source = 'search'`)).toBeGreaterThan(0.2);
    expect(share(`trim(coalesce(full_name, '')) = ''`)).toBeGreaterThan(0.1);
    expect(share(`replied = 0 AND replied_at IS NOT NULL`)).toBeGreaterThan(0.001);
    // Groups of 10 share one createdAt, as batch inserts do.
    expect(share(`created_at = (SELECT min(created_at) FROM leads WHERE campaign_id = 'cmp_fx')`) * COUNT).toBe(10);
  });

  it('lists pages identical to a full sort with OFFSET, deep into the campaign', () => {
    for (const q of ALLOWED_QUERIES) {
      const input = { campaignId: 'cmp_fx', ...q, sort: q.sort ?? 'createdAt', limit: 100 } as ListLeadsInput;
      const all = naivePage(q, 0, COUNT);
      const pages = Math.min(Math.ceil(all.length / 100), 25);
      expect(pages).toBeGreaterThan(1);
      let cursor: string | undefined;
      for (let page = 0; page < pages; page++) {
        const res = listLeads(ctx, secret, { ...input, cursor });
        expect(
          res.leads.map((l) => l.id),
          `${JSON.stringify(q)} page ${page}`,
        ).toEqual(all.slice(page * 100, page * 100 + 100));
        cursor = res.nextCursor!;
      }
      // A single OFFSET query agrees with the slice, so the slice is a fair reference.
      expect(naivePage(q, (pages - 1) * 100, 100)).toEqual(all.slice((pages - 1) * 100, pages * 100));
    }
  });

  it('its leads follow the representation rules', () => {
    const page = listLeads(ctx, secret, { campaignId: 'cmp_fx', sort: 'createdAt', limit: 100 });
    for (const lead of page.leads) {
      for (const value of Object.values(lead)) {
        if (typeof value !== 'string') continue;
        expect(value).not.toBe('');
        expect(value).toBe(value.trim());
      }
      expect(lead.fullName).toEqual(expect.any(String));
    }
  });

  it('appends after the fixture leads already there, and is deterministic', () => {
    const a = freshCtx();
    const b = freshCtx();
    expect(generateLeads(a.db, 'cmp_fx', 1500)).toEqual({ from: 0, to: 1500 });
    expect(generateLeads(a.db, 'cmp_fx', 500)).toEqual({ from: 1500, to: 2000 });
    expect(generateLeads(b.db, 'cmp_fx', 2000)).toEqual({ from: 0, to: 2000 });
    const digest = (c: typeof a) =>
      createHash('sha256')
        .update(
          JSON.stringify(
            c.db
              .select()
              .from(leads)
              .orderBy(leads.id)
              .all()
              .map(({ seq: _seq, ...row }) => row),
          ),
        )
        .digest('hex');
    expect(digest(a)).toBe(digest(b));
    expect(a.db.select({ n: sql<number>`count(distinct created_at)` }).from(leads).where(eq(leads.campaignId, 'cmp_fx')).get()!.n).toBe(200);
  });

  it('refuses an unknown campaign and writes nothing', () => {
    const c = freshCtx();
    expect(() => generateLeads(c.db, 'cmp_missing', 10)).toThrow(/cmp_missing/);
    expect(countRows(c.db, leads, eq(leads.campaignId, 'cmp_missing'))).toBe(0);
  });
});
