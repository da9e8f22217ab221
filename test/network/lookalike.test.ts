import { describe, expect, it } from 'vitest';
import type { LookalikeInput, Profile } from '../../src/core/network/provider.js';
import { CITIES } from '../../src/network/sim/words.js';
import { type SimulatedNetwork, similarity, simPerson, slugFromNetworkUrl } from '../../src/network/sim/index.js';
import { makeNetwork, rejection, url } from './helpers.js';

const SEED = 'ada-lovelace';
const base: LookalikeInput = { seed: url(SEED), jobTitleKeywords: [], countries: [], cursor: null, limit: 100 };

async function drain(net: SimulatedNetwork, input: LookalikeInput): Promise<Profile[]> {
  const all: Profile[] = [];
  let cursor: string | null = null;
  do {
    const page = await net.lookalikeCandidates({ ...input, cursor });
    all.push(...page.candidates);
    cursor = page.cursor;
  } while (cursor !== null);
  return all;
}

const traitsOf = (p: Profile) => simPerson(slugFromNetworkUrl(p.networkUrl)!).traits;
const countryOf = (p: Profile) => CITIES[traitsOf(p).city]!.country;

describe('simulated lookalike candidates', () => {
  it('ranks a finite pool by similarity to the seed and reaches exhaustion', async () => {
    const { net } = makeNetwork();
    const seed = simPerson(SEED).traits;
    const all = await drain(net, base);
    expect(all.length).toBeGreaterThan(100);
    expect(all.length).toBeLessThan(2000);
    expect(new Set(all.map((p) => p.networkUrl)).size).toBe(all.length);
    expect(all.map((p) => p.networkUrl)).not.toContain(url(SEED));
    const scores = all.map((p) => similarity(seed, traitsOf(p)));
    for (let i = 1; i < scores.length; i++) expect(scores[i]!).toBeLessThanOrEqual(scores[i - 1]!);
    // The top of the list shares the seed's function; the tail is mostly strangers.
    expect(all.slice(0, 20).every((p) => traitsOf(p).fn === seed.fn)).toBe(true);
    expect(scores[0]!).toBeGreaterThan(scores[scores.length - 1]! + 0.3);
  });

  it('is deterministic and accepts the seed as URL, slug or provider id', async () => {
    const { net } = makeNetwork();
    const first = await net.lookalikeCandidates({ ...base, limit: 25 });
    const providerId = simPerson(SEED).profile.providerId;
    for (const seed of [SEED, 'Ada-Lovelace', providerId, 'https://uk.linkedin.com/in/ada-lovelace/']) {
      expect(await makeNetwork().net.lookalikeCandidates({ ...base, seed, limit: 25 })).toEqual(first);
    }
    const second = await net.lookalikeCandidates({ ...base, limit: 25, cursor: first.cursor });
    const both = await net.lookalikeCandidates({ ...base, limit: 50 });
    expect(both.candidates).toEqual([...first.candidates, ...second.candidates]);
  });

  it('filters by partial job-title keyword and by country', async () => {
    const { net } = makeNetwork();
    const all = await drain(net, { ...base, jobTitleKeywords: ['  ENGINEER', 'cto'], countries: ['de', 'FR'] });
    expect(all.length).toBeGreaterThan(10);
    for (const p of all) {
      expect(p.jobTitle.toLowerCase()).toMatch(/engineer|cto/);
      expect(['DE', 'FR']).toContain(countryOf(p));
    }
    const broad = await drain(net, base);
    expect(all.length).toBeLessThan(broad.length);
  });

  it('treats filter order and case as the same query (so extensions continue)', async () => {
    const { net } = makeNetwork();
    const a = await net.lookalikeCandidates({ ...base, jobTitleKeywords: ['Sales', 'vp'], countries: ['us', 'GB'], limit: 10 });
    const b = await net.lookalikeCandidates({ ...base, jobTitleKeywords: ['VP', 'sales'], countries: ['GB', 'US'], limit: 10, cursor: null });
    expect(b).toEqual(a);
    const next = await net.lookalikeCandidates({ ...base, jobTitleKeywords: ['VP', 'sales'], countries: ['GB', 'US'], limit: 10, cursor: a.cursor });
    expect(next.candidates[0]).not.toEqual(a.candidates[0]);
  });

  it('is exhausted at once when no title or country can match', async () => {
    const { net } = makeNetwork();
    expect(await net.lookalikeCandidates({ ...base, jobTitleKeywords: ['astronaut'] })).toEqual({ candidates: [], cursor: null });
    expect(await net.lookalikeCandidates({ ...base, countries: ['ZZ'] })).toEqual({ candidates: [], cursor: null });
  });

  it('rejects websites, bad countries and foreign cursors', async () => {
    const { net } = makeNetwork();
    for (const seed of ['acme.com', 'https://acme.com/about']) {
      const err = await rejection(net.lookalikeCandidates({ ...base, seed }));
      expect(err.code).toBe('validation_error');
      expect(err.details.fields).toEqual(['seed']);
    }
    const badCountry = await rejection(net.lookalikeCandidates({ ...base, countries: ['DE', 'Germany'] }));
    expect(badCountry.details.fields).toEqual(['countries[1]']);
    const page = await net.lookalikeCandidates({ ...base, limit: 5 });
    const foreign = await rejection(net.lookalikeCandidates({ ...base, seed: 'grace-hopper', cursor: page.cursor }));
    expect(foreign.details.fields).toEqual(['cursor']);
  });
});
