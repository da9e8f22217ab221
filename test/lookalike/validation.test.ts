import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaigns, lookalikeJobs } from '../../src/db/schema.js';
import { countRows } from '../../src/db/tx.js';
import { callTool, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';
import { setLookalikeBalances } from './helpers.js';
import { COUNTRY_CODE_COUNT, isCountryCode } from '../../src/core/lookalike/countries.js';

/**
 * Every bound of the create_lookalike_campaign input, over REST and MCP: each bad body is 400
 * validation_error naming the field and writes nothing; each body at a bound is accepted.
 */
const SEED = 'https://www.linkedin.com/in/ada-lovelace';
const titles = (n: number, len = 5) => Array.from({ length: n }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(len - 2)}`);
const ISO_25 = [
  'US',
  'GB',
  'DE',
  'FR',
  'NL',
  'BE',
  'ES',
  'IT',
  'PT',
  'IE',
  'SE',
  'NO',
  'DK',
  'FI',
  'PL',
  'CZ',
  'AT',
  'CH',
  'CA',
  'AU',
  'NZ',
  'JP',
  'SG',
  'IN',
  'BR',
];

const invalid: [string, Record<string, unknown>, string][] = [
  ['no seed', {}, 'seed'],
  ['an empty seed', { seed: '' }, 'seed'],
  ['a domain seed', { seed: 'acme.com' }, 'seed'],
  ['a website seed', { seed: 'https://acme.com/about' }, 'seed'],
  ['a company page seed', { seed: 'https://www.linkedin.com/company/acme' }, 'seed'],
  ['a search link seed', { seed: 'https://www.linkedin.com/search/results/people/?keywords=cto' }, 'seed'],
  ['an email seed', { seed: 'ada@acme.com' }, 'seed'],
  ['a seed with spaces', { seed: 'ada lovelace' }, 'seed'],
  ['a non-string seed', { seed: 42 }, 'seed'],
  ['16 job titles', { seed: SEED, jobTitleKeywords: titles(16) }, 'jobTitleKeywords'],
  ['an 81-character job title', { seed: SEED, jobTitleKeywords: ['cto', 'y'.repeat(81)] }, 'jobTitleKeywords[1]'],
  ['an 81-character job title string', { seed: SEED, jobTitleKeywords: 'y'.repeat(81) }, 'jobTitleKeywords'],
  ['a blank job title', { seed: SEED, jobTitleKeywords: ['  '] }, 'jobTitleKeywords[0]'],
  ['a numeric job title', { seed: SEED, jobTitleKeywords: [5] }, 'jobTitleKeywords'],
  ['26 countries', { seed: SEED, countries: [...ISO_25, 'MX'] }, 'countries'],
  ['UK, which ISO does not assign', { seed: SEED, countries: ['DE', 'UK'] }, 'countries[1]'],
  ['EU', { seed: SEED, countries: ['EU'] }, 'countries[0]'],
  ['ZZ', { seed: SEED, countries: ['ZZ'] }, 'countries[0]'],
  ['a three-letter code', { seed: SEED, countries: ['DEU'] }, 'countries[0]'],
  ['a country name', { seed: SEED, countries: ['Germany'] }, 'countries[0]'],
  ['countries as a string', { seed: SEED, countries: 'DE' }, 'countries'],
  ['numberOfLeads 0', { seed: SEED, numberOfLeads: 0 }, 'numberOfLeads'],
  ['numberOfLeads 10001', { seed: SEED, numberOfLeads: 10_001 }, 'numberOfLeads'],
  ['numberOfLeads 2.5', { seed: SEED, numberOfLeads: 2.5 }, 'numberOfLeads'],
  ['numberOfLeads as a string', { seed: SEED, numberOfLeads: '5' }, 'numberOfLeads'],
  ['a malformed campaignId', { seed: SEED, campaignId: 'cmp q4' }, 'campaignId'],
  ['a non-boolean protection flag', { seed: SEED, leadDuplicateProtectionAcrossCampaigns: 'yes' }, 'leadDuplicateProtectionAcrossCampaigns'],
  ['an unknown key', { seed: SEED, name: 'My list' }, 'name'],
];

const valid: [string, Record<string, unknown>, { requestedLeadTarget: number }][] = [
  ['a profile URL seed', { seed: 'https://uk.linkedin.com/in/Ada-Lovelace/?trk=x', numberOfLeads: 1 }, { requestedLeadTarget: 1 }],
  ['a profile URL without a scheme', { seed: 'www.linkedin.com/in/ada-lovelace', numberOfLeads: 1 }, { requestedLeadTarget: 1 }],
  ['a slug seed', { seed: 'ada-lovelace', numberOfLeads: 1 }, { requestedLeadTarget: 1 }],
  ['a provider id seed', { seed: 'ACoAAB1234567', numberOfLeads: 1 }, { requestedLeadTarget: 1 }],
  ['15 job titles of 80 characters', { seed: SEED, jobTitleKeywords: titles(15, 80), numberOfLeads: 1 }, { requestedLeadTarget: 1 }],
  ['one job title as a string', { seed: SEED, jobTitleKeywords: 'VP Sales', numberOfLeads: 1 }, { requestedLeadTarget: 1 }],
  ['25 countries, any case', { seed: SEED, countries: [...ISO_25.slice(0, 24), 'br'], numberOfLeads: 1 }, { requestedLeadTarget: 1 }],
  ['no numberOfLeads (default 50)', { seed: SEED }, { requestedLeadTarget: 50 }],
  ['numberOfLeads 10000 (the cap)', { seed: SEED, numberOfLeads: 10_000 }, { requestedLeadTarget: 10_000 }],
  [
    'nulls for the optional fields',
    { seed: SEED, jobTitleKeywords: null, countries: null, numberOfLeads: null, campaignId: null, leadDuplicateProtectionAcrossCampaigns: null },
    { requestedLeadTarget: 50 },
  ],
  ['protection off', { seed: SEED, leadDuplicateProtectionAcrossCampaigns: false, numberOfLeads: 1 }, { requestedLeadTarget: 1 }],
];

describe('create_lookalike_campaign input bounds', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
  });
  afterAll(() => server.close());

  const written = () => [countRows(server.ctx.db, campaigns), countRows(server.ctx.db, lookalikeJobs)];

  it.each(invalid)('REST and MCP: %s is 400 naming the field, and writes nothing', async (_what, body, field) => {
    const before = written();
    const r = await server.rest('/campaigns/lookalike', { method: 'POST', body: JSON.stringify(body) });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details.fields).toContain(field);
    const m = await callTool(await server.mcp(), 'create_lookalike_campaign', body);
    expect(m.isError).toBe(true);
    expect(m.body.error.code).toBe('validation_error');
    expect(m.body.error.details.fields).toContain(field);
    expect(written()).toEqual(before);
  });

  it('names what to use for a code ISO does not assign', async () => {
    const r = await server.rest('/campaigns/lookalike', { method: 'POST', body: JSON.stringify({ seed: SEED, countries: ['uk'] }) });
    expect(r.body.error.message).toContain('use GB');
  });

  it('says how many job titles it takes, and ends each message with one full stop', async () => {
    const many = await server.rest('/campaigns/lookalike', { method: 'POST', body: JSON.stringify({ seed: SEED, jobTitleKeywords: titles(16) }) });
    expect(many.body.error.message).toMatch(/^jobTitleKeywords: .*at most 15 keywords/);
    const country = await server.rest('/campaigns/lookalike', { method: 'POST', body: JSON.stringify({ seed: SEED, countries: ['XX'] }) });
    expect(country.body.error.message).toBe('countries[0]: Use ISO 3166-1 alpha-2 codes such as US, GB or DE.');
  });

  it('says websites and domains are not accepted', async () => {
    const r = await server.rest('/campaigns/lookalike', { method: 'POST', body: JSON.stringify({ seed: 'acme.com' }) });
    expect(r.body.error.message).toMatch(/websites and domains are not accepted/);
  });

  it('checks the body before the extend target: a bad body for an unknown campaign is 400', async () => {
    const r = await server.rest('/campaigns/lookalike', { method: 'POST', body: JSON.stringify({ seed: 'acme.com', campaignId: 'cmp_nope' }) });
    expect(r.status).toBe(400);
  });

  it.each(valid)('accepts %s', async (_what, body, expected) => {
    setLookalikeBalances(server.ctx, 100_000, 0);
    const r = await server.rest('/campaigns/lookalike', { method: 'POST', body: JSON.stringify(body) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ...expected, status: 'PENDING', extended: false, extensionBatchId: null, resume: null });
    const m = await callTool(await server.mcp(), 'create_lookalike_campaign', body);
    expect(m.isError).toBe(false);
    expect(m.body).toMatchObject(expected);
  });
});

describe('the country list', () => {
  it('holds the 249 assigned ISO 3166-1 alpha-2 codes, each a region Intl can name', () => {
    expect(COUNTRY_CODE_COUNT).toBe(249);
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const codes = [...letters].flatMap((a) => [...letters].map((b) => a + b)).filter(isCountryCode);
    expect(codes).toHaveLength(249);
    for (const code of codes) expect(names.of(code), code).toBeTruthy();
    for (const notIso of ['UK', 'EU', 'XK', 'ZZ', 'AN', 'SU']) expect(isCountryCode(notIso)).toBe(false);
  });
});
