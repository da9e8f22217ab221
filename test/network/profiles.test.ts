import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { SimulatedNetwork, slugFromNetworkUrl, slugFromProviderId, simPerson } from '../../src/network/sim/index.js';
import { decodeTraits, encodeTraits, nameFromSlug } from '../../src/network/sim/profiles.js';
import { account, makeNetwork, rejection, url } from './helpers.js';

describe('simulated profiles', () => {
  it('gives the same profile for the same slug across instances and clocks', async () => {
    const a = new SimulatedNetwork({ clock: new FakeClock(0) });
    const b = new SimulatedNetwork({ clock: new FakeClock(Date.parse('2030-01-01T00:00:00Z')) });
    const input = { account, networkUrl: url('grace-hopper-42'), depth: 'full' } as const;
    const first = await a.lookupProfile(input);
    expect(await b.lookupProfile(input)).toEqual(first);
    expect(await a.lookupProfile(input)).toEqual(first);
  });

  it('gives different people for different slugs', () => {
    const names = new Set(Array.from({ length: 50 }, (_, i) => JSON.stringify(simPerson(`person${i}`).profile)));
    expect(names.size).toBe(50);
  });

  it('reads names from name-like slugs', () => {
    expect(simPerson('ada-lovelace').profile).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', fullName: 'Ada Lovelace' });
    expect(simPerson('ada-lovelace-123').profile.fullName).toBe('Ada Lovelace');
    expect(simPerson('ada-lovelace-8b2a1f3c').profile.fullName).toBe('Ada Lovelace');
    expect(simPerson('josé-garcía').profile.fullName).toBe('José García');
    expect(nameFromSlug('jane-sim-send-fail')).toEqual({ first: 'Jane', last: null });
    expect(simPerson('jane-sim-send-fail').profile.firstName).toBe('Jane');
  });

  it('generates a name for slugs that are not names', () => {
    for (const slug of ['x7z9q', '12345', 'acme']) {
      expect(nameFromSlug(slug)).toBeNull();
      const p = simPerson(slug).profile;
      expect(p.firstName).toMatch(/^[A-Z][a-z]+$/);
      expect(p.lastName).toMatch(/^[A-Z][a-z]+$/);
      expect(p.fullName).toBe(`${p.firstName} ${p.lastName}`);
    }
  });

  it('returns about and experience only at full depth', async () => {
    const { net } = makeNetwork();
    const basic = await net.lookupProfile({ account, networkUrl: url('ada-lovelace'), depth: 'basic' });
    const full = await net.lookupProfile({ account, networkUrl: url('ada-lovelace'), depth: 'full' });
    expect(basic).not.toHaveProperty('about');
    expect(basic).not.toHaveProperty('experience');
    const { about, experience, ...rest } = full;
    expect(rest).toEqual(basic);
    expect(about === null || about.length > 20).toBe(true);
    expect(experience[0]).toMatchObject({ company: full.companyName, position: full.jobTitle, end: null });
  });

  it('keeps experience well-formed: 1 to 10 entries, newest first, YYYY-MM dates', () => {
    const counts = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const { experience } = simPerson(`someone-${i}x`).profile;
      counts.add(experience.length);
      expect(experience.length).toBeGreaterThanOrEqual(1);
      expect(experience.length).toBeLessThanOrEqual(10);
      for (const [k, job] of experience.entries()) {
        expect(job.start).toMatch(/^\d{4}-(0[1-9]|1[0-2])$/);
        if (k === 0) continue;
        expect(job.end).toMatch(/^\d{4}-(0[1-9]|1[0-2])$/);
        expect(job.end! <= experience[k - 1]!.start!).toBe(true);
        expect(job.start! < job.end!).toBe(true);
      }
    }
    expect(counts.has(10)).toBe(true);
  });

  it('extracts the slug from any form of profile URL', () => {
    for (const raw of [
      'https://www.linkedin.com/in/Ada-Lovelace',
      'http://linkedin.com/in/ada-lovelace/',
      'https://uk.linkedin.com/in/ada-lovelace?trk=x#top',
      'www.linkedin.com/in/ada-lovelace',
      ' https://www.linkedin.com/in/ada%2Dlovelace ',
    ]) {
      expect(slugFromNetworkUrl(raw)).toBe('ada-lovelace');
    }
    for (const raw of [
      'https://example.com/in/ada',
      'https://www.linkedin.com/company/acme',
      'not a url',
      'ftp://linkedin.com/in/ada',
      'https://www.linkedin.com/in/%E0%A4%A',
    ]) {
      expect(slugFromNetworkUrl(raw)).toBeNull();
    }
  });

  it('normalises the returned networkUrl and makes providerId stable and reversible', async () => {
    const { net } = makeNetwork();
    const p = await net.lookupProfile({ account, networkUrl: 'https://uk.linkedin.com/in/Ada-Lovelace/', depth: 'basic' });
    expect(p.networkUrl).toBe('https://www.linkedin.com/in/ada-lovelace');
    expect(p.providerId).toMatch(/^ACoAA[A-Za-z0-9_-]+$/);
    expect(slugFromProviderId(p.providerId)).toBe('ada-lovelace');
    expect(slugFromProviderId(`${p.providerId.slice(0, -1)}x`)).toBeNull();
    expect(slugFromProviderId('ACoAAnothing')).toBeNull();
  });

  it('round-trips trait codes and rejects ordinary suffixes', () => {
    const traits = { fn: 11, seniority: 7, company: 39, city: 29 };
    expect(decodeTraits(encodeTraits(traits, 16383))).toEqual(traits);
    expect(decodeTraits(encodeTraits({ fn: 0, seniority: 0, company: 0, city: 0 }, 0))).toEqual({ fn: 0, seniority: 0, company: 0, city: 0 });
    const accepted = Array.from({ length: 2000 }, (_, i) => (i * 7919).toString(36).padStart(8, 'a')).filter((s) => decodeTraits(s) !== null);
    expect(accepted.length).toBeLessThan(10);
  });

  it('rejects a URL that is not a personal profile', async () => {
    const { net } = makeNetwork();
    const err = await rejection(net.lookupProfile({ account, networkUrl: 'https://www.linkedin.com/company/acme', depth: 'basic' }));
    expect(err.code).toBe('validation_error');
    expect(err.details.fields).toEqual(['networkUrl']);
  });
});
