import { beforeAll, describe, expect, it } from 'vitest';
import { addLead } from '../../src/core/leads/add.js';
import { SEARCH_EXPRESSIONS, searchLeads } from '../../src/core/leads/search.js';
import { updateLead } from '../../src/core/outreach/state.js';
import { ApiError } from '../../src/core/errors.js';
import { generateLeads } from '../../src/core/seed/fixture.js';
import { restoreCampaign } from '../../src/core/campaigns/state-machine.js';
import { testCtx } from '../helpers.js';
import { captureQueries, freshHandle, queryPlan } from '../plans.js';

/**
 * search_leads: a prefix of the name, last name or company, or a profile URL or slug, within
 * one campaign. Each match is a range over an index that starts with the campaign, so a search
 * reads about `limit` entries however large the campaign is (the plans below, on 20,000 leads).
 */
const ctx = testCtx();
const names = (r: { leads: { fullName: string | null }[] }) => r.leads.map((l) => l.fullName);
const search = (query: string, limit = 20, campaignId = 'cmp_find') => searchLeads(ctx, { campaignId, query, limit });

beforeAll(() => {
  const now = ctx.clock.now();
  for (const [id, name] of [
    ['cmp_find', 'Find'],
    ['cmp_other', 'Other'],
    ['cmp_big', 'Big'],
  ] as const) {
    restoreCampaign(ctx, { id, name, status: 'READY_TO_SEND', createdAt: now, updatedAt: now });
  }
  const people = [
    { networkUrl: 'https://www.linkedin.com/in/mary-somerville', firstName: 'Mary', lastName: 'Somerville', companyName: 'Orbits Ltd' },
    { networkUrl: 'https://www.linkedin.com/in/emmy-noether', fullName: 'Emmy Noether', companyName: 'Symmetry GmbH' },
    { networkUrl: 'https://www.linkedin.com/in/mario-rossi', firstName: 'Mario', lastName: 'Rossi', companyName: 'Marina Srl' },
    { networkUrl: 'https://www.linkedin.com/in/ada-lovelace', firstName: 'Ada', lastName: 'Lovelace', companyName: 'Engines' },
  ];
  for (const p of people) addLead(ctx, 'cmp_find', p);
  addLead(ctx, 'cmp_other', { networkUrl: 'https://www.linkedin.com/in/mary-other', firstName: 'Mary', lastName: 'Other', companyName: 'Orbits Ltd' });
  generateLeads(ctx.db, 'cmp_other', 2_000);
  generateLeads(ctx.db, 'cmp_big', 20_000);
});

describe('search_leads', () => {
  it('finds by the start of the name, the last name or the company, in any case, in this campaign only', () => {
    expect(names(search('mar'))).toEqual(['Mario Rossi', 'Mary Somerville']);
    expect(names(search('Mary Som'))).toEqual(['Mary Somerville']);
    expect(names(search('  mary   SOM '))).toEqual(['Mary Somerville']);
    expect(names(search('somer'))).toEqual(['Mary Somerville']);
    expect(names(search('noeth'))).toEqual(['Emmy Noether']);
    expect(names(search('orbits'))).toEqual(['Mary Somerville']);
    // "Mar" is also the start of Marina Srl, Mario's company: each lead once.
    expect(search('mar').leads.map((l) => l.id)).toHaveLength(2);
    expect(names(search('zz'))).toEqual([]);
  });

  it('finds by profile URL, with or without its scheme, and by the start of its slug', () => {
    expect(names(search('https://www.linkedin.com/in/ada-lovelace/'))).toEqual(['Ada Lovelace']);
    expect(names(search('linkedin.com/in/Ada-Lovelace'))).toEqual(['Ada Lovelace']);
    expect(names(search('ada-love'))).toEqual(['Ada Lovelace']);
    expect(names(search('https://www.linkedin.com/in/mary-other'))).toEqual([]);
  });

  it('returns at most limit leads, and says when there are more', () => {
    const some = search('m', 1);
    expect(some.leads).toHaveLength(1);
    expect(some.more).toBe(true);
    expect(search('mary').more).toBe(false);
  });

  it('refuses an empty or overlong query and an unknown campaign', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err instanceof ApiError ? [err.code, err.details.fields] : String(err);
      }
      return 'no error';
    };
    expect(code(() => search('   '))).toEqual(['validation_error', ['query']]);
    expect(code(() => search('x'.repeat(201)))).toEqual(['validation_error', ['query']]);
    expect(code(() => search('mary', 20, 'cmp_nope'))[0]).toBe('not_found');
  });

  it('keeps a lead out of a search index while its key is blank, and puts it in once the key is given', () => {
    // The indexes are partial (migration 0031): a lead known only by its URL is in none of them,
    // so naming it later is an insert into each. Read through each index, which holds only what it indexes.
    const indexed = (index: string, expr: string) =>
      ctx.db.$client.prepare(`SELECT count(*) FROM leads INDEXED BY ${index} WHERE campaign_id = 'cmp_blank' AND ${expr} <> ''`).pluck().get() as number;
    const counts = () => Object.entries(SEARCH_EXPRESSIONS).map(([index, expr]) => indexed(index, expr));
    const now = ctx.clock.now();
    restoreCampaign(ctx, { id: 'cmp_blank', name: 'Blank', status: 'READY_TO_SEND', createdAt: now, updatedAt: now });
    const { leadId: id } = addLead(ctx, 'cmp_blank', { networkUrl: 'https://www.linkedin.com/in/nameless-one' });
    addLead(ctx, 'cmp_blank', { networkUrl: 'https://www.linkedin.com/in/blank-two', firstName: '  ', companyName: ' ' });
    expect(counts()).toEqual([0, 0, 0]);
    expect(search('nameless', 20, 'cmp_blank').leads.map((l) => l.id)).toEqual([id]);
    updateLead(ctx.db, id, { firstName: 'Hedy', lastName: 'Lamarr', companyName: 'Frequency Hopping' });
    expect(counts()).toEqual([1, 1, 1]);
    expect(names(search('hedy', 20, 'cmp_blank'))).toEqual(['Hedy Lamarr']);
    expect(names(search('lama', 20, 'cmp_blank'))).toEqual(['Hedy Lamarr']);
    expect(names(search('freq', 20, 'cmp_blank'))).toEqual(['Hedy Lamarr']);
    const index = ctx.db.$client.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'leads_search_company'").pluck().get();
    expect(index).toContain(`WHERE ${SEARCH_EXPRESSIONS.leads_search_company} <> ''`);
  });

  it('reads each match as a range over an index starting with the campaign, never a scan or a sort', () => {
    const plans = (query: string) => {
      // A fresh handle on the connection, so the statements search prepares once per handle are prepared, and captured, here.
      const fresh = { ...ctx, db: freshHandle(ctx.db) };
      return (
        captureQueries(fresh.db, () => {
          expect(searchLeads(fresh, { campaignId: 'cmp_big', query, limit: 20 }).leads.length).toBeGreaterThan(0);
        })
          .filter((q) => /from "?leads"?/i.test(q.sql))
          // Values are bound as constant subqueries (see src/db/sql/leads.ts): those steps read no table.
          .map((q) =>
            queryPlan(ctx.db, q)
              .filter((line) => !/^SCALAR SUBQUERY \d+$/.test(line) && line !== 'SCAN CONSTANT ROW')
              .join(' | '),
          )
      );
    };
    const byText = plans('A');
    expect(byText).toHaveLength(4);
    const indexes = ['leads_search_name', 'leads_search_last_name', 'leads_search_company', 'leads_campaign_url'];
    byText.forEach((plan, i) => {
      expect(plan).toMatch(new RegExp(`^SEARCH leads USING (COVERING )?INDEX ${indexes[i]} \\(campaign_id=\\? AND .*>\\? AND .*<\\?\\)$`));
    });
    const url = (ctx.db.$client.prepare("SELECT network_url AS u FROM leads WHERE campaign_id = 'cmp_big' LIMIT 1").get() as { u: string }).u;
    expect(plans(url)).toEqual(['SEARCH leads USING INDEX leads_campaign_url (campaign_id=? AND network_url=?)']);
  });
});
