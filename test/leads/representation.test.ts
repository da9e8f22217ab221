import type { Client } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lead, LeadDetail } from '../../src/core/leads/lead.js';
import { leads } from '../../src/db/schema.js';
import { fixture, startTestServer, type TestServer, RELAXED_LIMITS } from '../helpers.js';
import { expectValidation, readBoth } from '../transports.js';
import type { LeadInput } from './data.js';

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;
const at = (minute: number) => new Date(Date.parse('2026-10-01T00:00:00Z') + minute * 60_000).toISOString();

const LEADS: LeadInput[] = [
  {
    id: 'lead_ws',
    networkUrl: url('ada'),
    fullName: '   ',
    firstName: '  Ada ',
    lastName: ' Lovelace  ',
    jobTitle: '  ',
    companyName: '',
    location: ' London ',
    email: ' ada@example.com ',
    website: '  ',
    companyNetwork: ' https://www.linkedin.com/company/engines ',
    headline: '   ',
    tag: 'Interested',
    taggedAt: at(5),
    replied: true,
    repliedAt: at(6),
    lastInboundMessageAt: at(7),
    stage: 'replied',
    connectionRequestAccepted: true,
    messageSent: true,
    createdAt: at(1),
  },
  { id: 'lead_empty', networkUrl: url('empty'), fullName: '', firstName: '', lastName: '', jobTitle: '', companyName: '', createdAt: at(2) },
  { id: 'lead_first', networkUrl: url('grace'), fullName: null, firstName: 'Grace', lastName: '   ', createdAt: at(3) },
  { id: 'lead_last', networkUrl: url('hopper'), fullName: '', lastName: 'Hopper', createdAt: at(4) },
  { id: 'lead_full', networkUrl: url('turing'), fullName: '  Alan Turing ', firstName: 'X', lastName: 'Y', headline: ' Computing ', createdAt: at(5) },
  {
    id: 'lead_search',
    networkUrl: url('searched'),
    fullName: 'Sam Search',
    source: 'search',
    email: 'sam@example.com',
    website: 'https://sam.example',
    companyNetwork: 'https://www.linkedin.com/company/sam',
    companyName: 'Sam Co',
    createdAt: at(6),
  },
  { id: 'lead_nourl', networkUrl: null, firstName: 'No', lastName: 'Url', createdAt: at(7) },
];

const LIST_KEYS = Object.keys(Lead.shape).sort();
const DETAIL_KEYS = Object.keys(LeadDetail.shape).sort();
const SECRETS = ['ACoAAsecretprovider', 'chat_secret_123', 'secret personalization text', 'acc_ada'];

let server: TestServer;
let client: Client;

beforeAll(async () => {
  const file = fixture();
  file.campaigns!.push({ id: 'cmp_rep', name: 'Rep', leads: LEADS });
  server = await startTestServer({ workspace: file, limits: RELAXED_LIMITS });
  client = await server.mcp();
  const experience = Array.from({ length: 12 }, (_, i) => ({
    company: i === 0 ? '  Engines  ' : `Company ${i}`,
    position: i === 0 ? '' : 'Engineer',
    location: '   ',
    description: null,
    start: i === 0 ? '2020-01-15' : '2019-02',
    end: i === 0 ? 'present' : null,
  }));
  for (const lead of LEADS) {
    server.ctx.db
      .update(leads)
      .set({ providerId: SECRETS[0], chatId: SECRETS[1], personalization: SECRETS[2], accountId: SECRETS[3] })
      .where(eq(leads.id, lead.id!))
      .run();
  }
  // Stored by a writer that did not cap it: the API still shows at most 10.
  server.ctx.db
    .update(leads)
    .set({ workExperience: JSON.stringify(experience) })
    .where(eq(leads.id, 'lead_ws'))
    .run();
});
afterAll(() => server.close());

const list = async () => {
  const res = await readBoth(server, client, 'list_leads', { campaignId: 'cmp_rep' });
  expect(res.status).toBe(200);
  return new Map<string, any>(res.body.leads.map((l: any) => [l.id, l]));
};
const detail = async (leadId: string) => {
  const res = await readBoth(server, client, 'get_lead', { campaignId: 'cmp_rep', leadId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

/** Every string in a response is trimmed and non-empty (spec, General rule 3). */
function expectCleanStrings(value: unknown): void {
  if (typeof value === 'string') {
    expect(value).not.toBe('');
    expect(value).toBe(value.trim());
  } else if (Array.isArray(value)) value.forEach(expectCleanStrings);
  else if (value && typeof value === 'object') Object.values(value).forEach(expectCleanStrings);
}

describe('lead representation', () => {
  it('list items carry exactly the list fields, details exactly the detail fields', async () => {
    const items = await list();
    expect(items.size).toBe(LEADS.length);
    for (const lead of LEADS) {
      const item = items.get(lead.id!);
      expect(Object.keys(item).sort()).toEqual(LIST_KEYS);
      expect(Lead.strict().parse(item)).toEqual(item);
      const one = await detail(lead.id!);
      expect(Object.keys(one).sort()).toEqual(DETAIL_KEYS);
      expect(LeadDetail.strict().parse(one)).toEqual(one);
      // One serializer: the detail is the list item plus four fields.
      const { headline: _h, workExperience: _w, connectionRequestAccepted: _c, messageSent: _m, ...rest } = one;
      expect(rest).toEqual(item);
    }
  });

  it('trims strings and turns empty or whitespace-only ones into null', async () => {
    const items = await list();
    expectCleanStrings([...items.values()]);
    const ws = await detail('lead_ws');
    expectCleanStrings(ws);
    expect(ws).toMatchObject({
      fullName: 'Ada Lovelace',
      firstName: 'Ada',
      lastName: 'Lovelace',
      jobTitle: null,
      companyName: null,
      location: 'London',
      email: 'ada@example.com',
      website: null,
      companyNetwork: 'https://www.linkedin.com/company/engines',
      headline: null,
    });
    expect(await detail('lead_empty')).toMatchObject({ fullName: null, firstName: null, lastName: null, jobTitle: null, companyName: null });
  });

  it('falls back from fullName to first and last name, or whichever exists', async () => {
    const items = await list();
    expect(items.get('lead_ws').fullName).toBe('Ada Lovelace');
    expect(items.get('lead_first').fullName).toBe('Grace');
    expect(items.get('lead_first').lastName).toBeNull();
    expect(items.get('lead_last').fullName).toBe('Hopper');
    expect(items.get('lead_full').fullName).toBe('Alan Turing');
    expect(items.get('lead_empty').fullName).toBeNull();
    expect(items.get('lead_nourl')).toMatchObject({ fullName: 'No Url', networkUrl: null });
  });

  it('search-sourced leads return null companyNetwork, website and email', async () => {
    const item = (await list()).get('lead_search');
    expect(item).toMatchObject({ companyNetwork: null, website: null, email: null, companyName: 'Sam Co', fullName: 'Sam Search' });
    expect(await detail('lead_search')).toMatchObject({ companyNetwork: null, website: null, email: null });
  });

  it('renders timestamps as ISO 8601 and keeps the outreach flags', async () => {
    const ws = await detail('lead_ws');
    expect(ws).toMatchObject({
      tag: 'Interested',
      taggedAt: at(5),
      replied: true,
      repliedAt: at(6),
      lastInboundMessageAt: at(7),
      stage: 'replied',
      needsReply: false,
      excluded: false,
      connectionRequestAccepted: true,
      messageSent: true,
    });
    expect(await detail('lead_first')).toMatchObject({
      taggedAt: null,
      repliedAt: null,
      lastInboundMessageAt: null,
      connectionRequestAccepted: false,
      messageSent: false,
    });
  });

  it('caps workExperience at 10 clean entries with year-month dates', async () => {
    const ws = await detail('lead_ws');
    expect(ws.workExperience).toHaveLength(10);
    expect(ws.workExperience[0]).toEqual({ company: 'Engines', position: null, location: null, description: null, start: '2020-01', end: null });
    expect(ws.workExperience[1]).toEqual({ company: 'Company 1', position: 'Engineer', location: null, description: null, start: '2019-02', end: null });
    expect((await detail('lead_full')).workExperience).toEqual([]);
    expect((await detail('lead_full')).headline).toBe('Computing');
  });

  it('never returns provider ids, chat ids, personalization, account ids or createdAt', async () => {
    const texts = [JSON.stringify([...(await list()).values()])];
    for (const lead of LEADS) texts.push(JSON.stringify(await detail(lead.id!)));
    for (const text of texts) {
      for (const secret of SECRETS) expect(text).not.toContain(secret);
      for (const key of ['providerId', 'chatId', 'personalization', 'accountId', 'createdAt', 'seq', 'source', 'campaignId']) {
        expect(text).not.toContain(`"${key}"`);
      }
    }
  });
});

describe('get_lead errors', () => {
  it.each([
    ['an unknown lead', { campaignId: 'cmp_rep', leadId: 'lead_nope' }, /lead_nope.*list_leads/],
    ['a lead of another campaign', { campaignId: 'cmp_q4', leadId: 'lead_ws' }, /lead_ws.*cmp_q4/],
    ['an unknown campaign', { campaignId: 'cmp_nope', leadId: 'lead_ws' }, /cmp_nope.*list_campaigns/],
  ])('%s is 404 not_found', async (_name, args, message) => {
    const res = await readBoth(server, client, 'get_lead', args);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.error.message).toMatch(message);
  });

  it('a malformed lead id is 400 naming leadId', async () => {
    expectValidation(await readBoth(server, client, 'get_lead', { campaignId: 'cmp_rep', leadId: 'lead ws' }), 'leadId');
    expectValidation(await readBoth(server, client, 'get_lead', { campaignId: 'cmp_rep', leadId: 'x'.repeat(65) }), 'leadId');
  });

  it('an extra argument is 400 naming it', async () => {
    expectValidation(await readBoth(server, client, 'get_lead', { campaignId: 'cmp_rep', leadId: 'lead_ws', full: true }), 'full');
  });
});
