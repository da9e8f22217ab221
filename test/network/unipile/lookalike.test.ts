import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { accounts } from '../../../src/db/schema.js';
import { countryName, seedIdentifier } from '../../../src/network/unipile/lookalike.js';
import { rejection } from '../helpers.js';
import { ada, profileUrl, useSetup } from './helpers.js';

const t = useSetup();
beforeEach(() => {
  t.server.locations.set('germany', '101282230');
  t.server.locations.set('france', '105015875');
  t.server.locations.set('berlin, germany', '106967730');
  t.server.addPerson({
    provider_id: 'ACoSeed',
    public_identifier: 'seed-sam',
    first_name: 'Sam',
    headline: 'VP Sales at Seedco',
    location: 'Berlin, Germany',
    work_experience: [{ position: 'VP Sales', company: 'Seedco', start: '2020-01', end: null, current: true, skills: [] }],
  });
  const add = (i: number, headline: string, locationId: string) =>
    t.server.addPerson({
      provider_id: `ACoC${i}`,
      public_identifier: `cand-${i}`,
      first_name: 'Cand',
      last_name: `N${i}`,
      headline,
      location: 'X',
      locationId,
    });
  for (let i = 0; i < 60; i++) add(i, `VP Sales at Co${i}`, '106967730');
  for (let i = 60; i < 70; i++) add(i, `VP Sales at Co${i}`, '105015875');
  for (let i = 70; i < 75; i++) add(i, `Head of Growth at Co${i}`, '101282230');
  // The seed itself matches its own search; it must never be a candidate.
  t.server.people.find((p) => p.provider_id === 'ACoSeed')!.locationId = '106967730';
});

describe('lookalike candidates', () => {
  it("searches the seed's title and location, pages with a cursor, and never returns the seed", async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await t.provider.lookalikeCandidates({ account: ada, seed: profileUrl('seed-sam'), jobTitleKeywords: [], countries: [], cursor, limit: 25 });
      ids.push(...page.candidates.map((c) => c.providerId));
      cursor = page.cursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(new Set(ids).size).toBe(60);
    expect(ids).not.toContain('ACoSeed');
    // The seed was looked up once; later pages reuse the search the cursor carries.
    expect(t.server.requestsTo('GET', /\/users\/seed-sam$/)).toHaveLength(1);
    const searches = t.server.requestsTo('POST', /\/linkedin\/search$/);
    expect(searches[0]?.json).toEqual({ api: 'classic', category: 'people', advanced_keywords: { title: '"VP Sales"' }, location: ['106967730'] });
    expect(searches[2]?.json).toEqual(searches[0]?.json);
  });

  it('uses the given keywords and countries instead, and keeps only matching titles', async () => {
    const page = await t.provider.lookalikeCandidates({
      account: ada,
      seed: 'seed-sam',
      jobTitleKeywords: ['Growth', ' head of growth '],
      countries: ['de', 'FR'],
      cursor: null,
      limit: 50,
    });
    expect(page.candidates.map((c) => c.providerId).sort()).toEqual(['ACoC70', 'ACoC71', 'ACoC72', 'ACoC73', 'ACoC74']);
    expect(page.candidates[0]).toMatchObject({ jobTitle: 'Head of Growth', companyName: 'Co70', networkUrl: profileUrl('cand-70'), website: null });
    expect(t.server.requestsTo('GET', /\/linkedin\/search\/parameters$/).map((r) => r.query.get('keywords'))).toEqual(['Germany', 'France']);
    expect(t.server.requestsTo('POST', /\/linkedin\/search$/)[0]?.json).toMatchObject({
      advanced_keywords: { title: 'growth OR "head of growth"' },
      location: ['101282230', '105015875'],
    });
  });

  it('continues an extend whose filters differ only in order and case, and refuses a foreign cursor', async () => {
    const first = await t.provider.lookalikeCandidates({
      account: ada,
      seed: 'seed-sam',
      jobTitleKeywords: ['vp', 'sales'],
      countries: ['DE', 'FR'],
      cursor: null,
      limit: 6,
    });
    expect(first.cursor).not.toBeNull();
    const next = await t.provider.lookalikeCandidates({
      account: ada,
      seed: 'SEED-SAM',
      jobTitleKeywords: ['Sales', 'VP'],
      countries: ['fr', 'de'],
      cursor: first.cursor,
      limit: 6,
    });
    expect([...first.candidates, ...next.candidates].map((c) => c.providerId)).toEqual(Array.from({ length: 10 }, (_, i) => `ACoC${60 + i}`));
    expect(next.cursor).toBeNull();
    const err = await rejection(
      t.provider.lookalikeCandidates({ account: ada, seed: 'seed-sam', jobTitleKeywords: ['cto'], countries: [], cursor: first.cursor, limit: 20 }),
    );
    expect(err.details.fields).toEqual(['cursor']);
  });

  it('is exhausted at once when no country resolves to a LinkedIn location', async () => {
    const page = await t.provider.lookalikeCandidates({ account: ada, seed: 'seed-sam', jobTitleKeywords: [], countries: ['ZZ'], cursor: null, limit: 20 });
    expect(page).toEqual({ candidates: [], cursor: null });
    expect(t.server.requestsTo('POST', /\/linkedin\/search$/)).toHaveLength(0);
  });

  it('refuses websites, domains and bad country codes', async () => {
    for (const seed of ['https://acme.com', 'acme.com', 'https://www.linkedin.com/company/acme', '']) {
      const err = await rejection(t.provider.lookalikeCandidates({ account: ada, seed, jobTitleKeywords: [], countries: [], cursor: null, limit: 5 }));
      expect(err.details.fields).toEqual(['seed']);
    }
    const err = await rejection(
      t.provider.lookalikeCandidates({ account: ada, seed: 'seed-sam', jobTitleKeywords: [], countries: ['DE', 'Germany'], cursor: null, limit: 5 }),
    );
    expect(err.details.fields).toEqual(['countries[1]']);
    expect(t.server.requests).toHaveLength(0);
  });

  it('runs without an account on a connected linked one, and needs one', async () => {
    const page = await t.provider.lookalikeCandidates({ seed: 'seed-sam', jobTitleKeywords: [], countries: [], cursor: null, limit: 5 });
    // The seed matches its own search and is dropped from the page, which keeps its cursor.
    expect(page.candidates).toHaveLength(4);
    expect(page.cursor).not.toBeNull();
    // Sales Navigator accounts are preferred for account-less runs.
    expect(t.server.requests[0]?.query.get('account_id')).toBe('UNI_NAV');
    t.ctx.db.update(accounts).set({ status: 'disconnected' }).where(eq(accounts.status, 'connected')).run();
    const err = await rejection(t.provider.lookalikeCandidates({ seed: 'seed-sam', jobTitleKeywords: [], countries: [], cursor: null, limit: 5 }));
    expect(err.code).toBe('account_disconnected');
  });

  it('reads seeds as URLs, slugs or provider ids', () => {
    expect(seedIdentifier('https://de.linkedin.com/in/Seed-Sam/')).toBe('seed-sam');
    expect(seedIdentifier('linkedin.com/in/seed-sam')).toBe('seed-sam');
    expect(seedIdentifier('ACoAAB12xYz')).toBe('ACoAAB12xYz');
    expect(seedIdentifier('www.acme.com')).toBeNull();
    expect(countryName('DE')).toBe('Germany');
    expect(countryName('ZZ')).not.toBe('Germany');
  });
});
