import { describe, expect, it } from 'vitest';
import type { SearchPeopleInput, SearchResult } from '../../src/core/network/provider.js';
import { SEARCH_CAPS, type SimulatedNetwork } from '../../src/network/sim/index.js';
import { account, classicOnly, makeNetwork, rejection } from './helpers.js';

async function allPages(net: SimulatedNetwork, input: Omit<SearchPeopleInput, 'cursor'>): Promise<{ pages: number; results: SearchResult[] }> {
  const results: SearchResult[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await net.searchPeople({ ...input, cursor });
    results.push(...page.results);
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== null);
  return { pages, results };
}

describe('simulated search', () => {
  it('pages through a generic query up to the classic cap without duplicates', async () => {
    const { net } = makeNetwork();
    const { pages, results } = await allPages(net, { account, type: 'classic', query: 'growth hacking', limit: 50 });
    expect(pages).toBe(SEARCH_CAPS.classic / 50);
    expect(results).toHaveLength(SEARCH_CAPS.classic);
    expect(new Set(results.map((r) => r.networkUrl)).size).toBe(SEARCH_CAPS.classic);
    expect(new Set(results.map((r) => r.providerId)).size).toBe(SEARCH_CAPS.classic);
  });

  it('is a deterministic function of query, type, cursor and limit', async () => {
    const a = makeNetwork().net;
    const b = makeNetwork('2031-05-05T00:00:00Z').net;
    const first = await a.searchPeople({ account, type: 'classic', query: 'Head of Sales', limit: 10 });
    const again = await b.searchPeople({ account, type: 'classic', query: 'head of sales ', limit: 10 });
    expect(again).toEqual(first);
    const next = await a.searchPeople({ account, type: 'classic', query: 'Head of Sales', limit: 10, cursor: first.cursor });
    expect(await b.searchPeople({ account, type: 'classic', query: 'Head of Sales', limit: 10, cursor: first.cursor })).toEqual(next);
    const bigPage = await a.searchPeople({ account, type: 'classic', query: 'Head of Sales', limit: 20 });
    expect(bigPage.results).toEqual([...first.results, ...next.results]);
    const salesNav = await a.searchPeople({ account, type: 'sales_nav', query: 'Head of Sales', limit: 10 });
    expect(salesNav.results).not.toEqual(first.results);
  });

  it('returns people whose title, company and place match the keywords', async () => {
    const { net } = makeNetwork();
    const { results } = await allPages(net, { account, type: 'classic', query: 'CTO fintech Berlin', limit: 50 });
    expect(results.length).toBeGreaterThan(20);
    expect(results.length).toBeLessThan(SEARCH_CAPS.classic);
    for (const r of results) {
      expect(r.jobTitle).toBe('CTO');
      expect(r.location).toBe('Berlin, Germany');
      expect(['Ledgerly', 'Finova', 'Paystream', 'Clearvault']).toContain(r.companyName);
    }
    const engineers = await net.searchPeople({ account, type: 'classic', query: 'senior engineers', limit: 50 });
    for (const r of engineers.results) expect(r.jobTitle).toMatch(/^Senior .*Engineer$/);
  });

  it('finds the same person on lookup as in the search result', async () => {
    const { net } = makeNetwork();
    const page = await net.searchPeople({ account, type: 'sales_nav', query: 'data scientist london', limit: 5 });
    for (const r of page.results) {
      const p = await net.lookupProfile({ account, networkUrl: r.networkUrl, depth: 'basic' });
      expect({ fullName: p.fullName, jobTitle: p.jobTitle, companyName: p.companyName, location: p.location, providerId: p.providerId }).toEqual({
        fullName: r.fullName,
        jobTitle: r.jobTitle,
        companyName: r.companyName,
        location: r.location,
        providerId: r.providerId,
      });
    }
  });

  it('returns an empty last page when the keywords contradict each other', async () => {
    const { net } = makeNetwork();
    expect(await net.searchPeople({ account, type: 'classic', query: 'Berlin Paris', limit: 10 })).toEqual({ results: [], cursor: null });
  });

  it('reads keywords from a search URL', async () => {
    const { net } = makeNetwork();
    const classic = await net.searchPeople({
      account,
      type: 'classic',
      url: 'https://www.linkedin.com/search/results/people/?keywords=cmo%20madrid',
      limit: 10,
    });
    const salesNav = await net.searchPeople({
      account,
      type: 'sales_nav',
      url: 'https://www.linkedin.com/sales/search/people?query=(keywords%3Acmo%20madrid)',
      limit: 10,
    });
    for (const r of [...classic.results, ...salesNav.results]) {
      expect(r.jobTitle).toBe('CMO');
      expect(r.location).toBe('Madrid, Spain');
    }
    expect(classic.results).toHaveLength(10);
  });

  it('clamps the page size to the type limit', async () => {
    const { net } = makeNetwork();
    expect((await net.searchPeople({ account, type: 'classic', query: 'sales', limit: 500 })).results).toHaveLength(50);
    expect((await net.searchPeople({ account, type: 'sales_nav', query: 'sales', limit: 500 })).results).toHaveLength(100);
    expect((await net.searchPeople({ account, type: 'classic', query: 'sales', limit: 0 })).results).toHaveLength(1);
  });

  it('requires Sales Navigator for sales_nav searches', async () => {
    const { net } = makeNetwork();
    const err = await rejection(net.searchPeople({ account: classicOnly, type: 'sales_nav', query: 'cto', limit: 10 }));
    expect(err.code).toBe('sales_nav_required');
    await expect(net.searchPeople({ account: classicOnly, type: 'classic', query: 'cto', limit: 10 })).resolves.toBeDefined();
  });

  it('rejects cursors from another search and malformed cursors', async () => {
    const { net } = makeNetwork();
    const page = await net.searchPeople({ account, type: 'classic', query: 'cto', limit: 10 });
    for (const cursor of [page.cursor, 'garbage', 'Zm9vOjE']) {
      const err = await rejection(net.searchPeople({ account, type: 'classic', query: 'cfo', limit: 10, cursor }));
      expect(err.code).toBe('validation_error');
      expect(err.details.fields).toEqual(['cursor']);
    }
  });

  it('needs exactly one of query and url', async () => {
    const { net } = makeNetwork();
    expect((await rejection(net.searchPeople({ account, type: 'classic', limit: 10 }))).code).toBe('validation_error');
    expect((await rejection(net.searchPeople({ account, type: 'classic', query: 'a', url: 'https://x.y', limit: 10 }))).code).toBe('validation_error');
  });
});
