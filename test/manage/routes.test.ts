import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { addExclusions, exclusionUrlsFromText, listExclusions, removeExclusions } from '../../src/core/exclusions/exclusions.js';
import { leads } from '../../src/db/schema.js';
import { callTool, RELAXED_LIMITS, startTestServer, testCtx, type TestServer } from '../helpers.js';

/** The management routes' own rules, each over REST and over MCP (?toolsets=manage). */
describe('management routes', () => {
  let server: TestServer;
  let mcp: Client;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    mcp = await server.mcp(undefined, 'toolsets=manage');
  });
  afterAll(() => server.close());

  const post = (path: string, body: unknown, method = 'POST') => server.rest(path, { method, body: JSON.stringify(body) });
  /** The same call on both transports: REST status and body, and the MCP result body. */
  async function both(tool: string, rest: () => Promise<{ status: number; body: any }>, args: Record<string, unknown>) {
    const r = await rest();
    const m = await callTool(mcp, tool, args);
    return { r, m };
  }

  it('create_agent refuses an unknown placeholder, naming the field, on both transports', async () => {
    const body = {
      name: 'Bad',
      accountId: 'acc_ada',
      messages: [
        { text: 'ok {{firstName}}', delayHours: 1 },
        { text: 'Hi {{nickname}}', delayHours: 2 },
      ],
    };
    const { r, m } = await both('create_agent', () => post('/agents', body), body);
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields).toEqual(['messages[1].text']);
    expect(m.isError).toBe(true);
    expect(m.body.error.details.fields).toEqual(['messages[1].text']);
    const note = await post('/agents', { name: 'Bad', accountId: 'acc_ada', connectionNote: 'Hey {{ first }}' });
    expect(note.body.error.details.fields).toEqual(['connectionNote']);
  });

  it('create_agent: an unknown account is 404 naming accountId; limits are checked', async () => {
    const r = await post('/agents', { name: 'A', accountId: 'acc_nope' });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'not_found', details: { fields: ['accountId'] } });
    const long = await post('/agents', { name: 'A', accountId: 'acc_ada', connectionNote: 'x'.repeat(301) });
    expect(long.body.error.details.fields).toEqual(['connectionNote']);
    const many = await post('/agents', { name: 'A', accountId: 'acc_ada', messages: Array.from({ length: 11 }, () => ({ text: 'x', delayHours: 1 })) });
    expect(many.body.error.details.fields).toEqual(['messages']);
    const delay = await post('/agents', { name: 'A', accountId: 'acc_ada', messages: [{ text: 'x', delayHours: 721 }] });
    expect(delay.body.error.details.fields).toEqual(['messages[0].delayHours']);
    const blank = await post('/agents', { name: '   ', accountId: 'acc_ada' });
    expect(blank.body.error.details.fields).toEqual(['name']);
  });

  it('create, get, list, update and preview an agent', async () => {
    const created = await post('/agents', {
      name: ' Intro v2 ',
      accountId: 'acc_ada',
      connectionNote: 'Hi {{firstName|there}}, {{ companyName }} rocks',
      messages: [{ text: 'Thanks {{FIRSTNAME}}!', delayHours: 0 }],
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'Intro v2', accountId: 'acc_ada', messages: [{ text: 'Thanks {{FIRSTNAME}}!', delayHours: 0 }] });
    expect(created.body.id).toMatch(/^tpl_/);
    const id = created.body.id as string;
    expect((await server.rest(`/agents/${id}`)).body).toEqual(created.body);
    const lead = server.ctx.db
      .select()
      .from(leads)
      .all()
      .find((l) => l.id === 'lead_ada1')!;
    const preview = await server.rest(`/agents/${id}/preview?leadId=lead_ada1`);
    expect(preview.status).toBe(200);
    const first = lead.firstName ?? lead.fullName?.split(' ')[0];
    expect(preview.body.messages).toEqual([`Thanks ${first}!`]);
    expect(preview.body.connectionNote).toContain(`Hi ${first},`);
    const mp = await callTool(mcp, 'preview_agent', { agentId: id, leadId: 'lead_ada1' });
    expect(mp.body).toEqual(preview.body);
    expect((await server.rest(`/agents/${id}/preview?leadId=lead_nope`)).status).toBe(404);
    const updated = await post(`/agents/${id}`, { messages: [] }, 'PATCH');
    expect(updated.body).toMatchObject({ id, name: 'Intro v2', messages: [] });
    expect((await post(`/agents/${id}`, {}, 'PATCH')).status).toBe(400);
    const page1 = await server.rest('/agents?limit=1');
    expect(page1.body.agents).toHaveLength(1);
    const page2 = await server.rest(`/agents?limit=100&cursor=${page1.body.nextCursor}`);
    expect([...page1.body.agents, ...page2.body.agents].map((a: { id: string }) => a.id)).toContain(id);
    expect(page2.body.nextCursor).toBeNull();
  });

  it('create_campaign and update_campaign', async () => {
    const c = await post('/campaigns', { name: 'Spring', assignedTemplateId: 'tpl_intro' });
    expect(c.body).toMatchObject({
      name: 'Spring',
      status: 'READY_TO_SEND',
      totalLeads: 0,
      assignedTemplateId: 'tpl_intro',
      stats: { connectionRequestsSent: 0 },
    });
    const missing = await post('/campaigns', { name: 'X', assignedTemplateId: 'tpl_nope' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.details.fields).toEqual(['assignedTemplateId']);
    const running = await post('/campaigns/cmp_running', { assignedTemplateId: null }, 'PATCH');
    expect(running.status).toBe(409);
    const m = await callTool(mcp, 'update_campaign', { campaignId: 'cmp_running', assignedTemplateId: null });
    expect(m.body.error.code).toBe('conflict');
    const renamed = await post('/campaigns/cmp_running', { name: 'Renamed while running' }, 'PATCH');
    expect(renamed.body).toMatchObject({ name: 'Renamed while running', status: 'CAMPAIGN_IN_PROGRESS' });
    const assigned = await post('/campaigns/cmp_noagent', { assignedTemplateId: 'tpl_intro' }, 'PATCH');
    expect(assigned.body.assignedTemplateId).toBe('tpl_intro');
  });

  it('connect_account in development adds a connected simulated account; update_account changes limits and active', async () => {
    const { r, m } = await both('connect_account', () => post('/accounts', { name: 'Sales', hasSalesNavigator: true, messageLimit: 80 }), { name: 'Second' });
    expect(r.body.connectUrl).toBeNull();
    // A connected account warms up: day 1 of 14 allows 5 invitations and 10 messages, below the configured limits.
    expect(r.body.account).toMatchObject({
      name: 'Sales',
      status: 'connected',
      active: true,
      hasSalesNavigator: true,
      today: { connectionRequestLimit: 5, messageLimit: 10 },
      limits: { connectionRequestLimit: 25, messageLimit: 80 },
      warmUp: { day: 1, days: 14 },
    });
    expect(m.body.account).toMatchObject({
      status: 'connected',
      today: { connectionRequestLimit: 5, messageLimit: 10 },
      limits: { connectionRequestLimit: 25, messageLimit: 50 },
      warmUp: { day: 1, days: 14 },
    });
    const id = r.body.account.id as string;
    const u = await post(`/accounts/${id}`, { connectionRequestLimit: 10, active: false }, 'PATCH');
    expect(u.body).toMatchObject({
      id,
      active: false,
      today: { connectionRequestLimit: 5, messageLimit: 10 },
      limits: { connectionRequestLimit: 10, messageLimit: 80 },
      warmUp: { day: 1, days: 14 },
    });
    // warmUp false ends it: the configured limits at once; true starts a new one, and asking again does not restart it.
    const ended = await post(`/accounts/${id}`, { warmUp: false }, 'PATCH');
    expect(ended.body).toMatchObject({ today: { connectionRequestLimit: 10, messageLimit: 80 }, warmUp: null });
    expect((await post(`/accounts/${id}`, { warmUp: true }, 'PATCH')).body).toMatchObject({
      today: { connectionRequestLimit: 5, messageLimit: 10 },
      warmUp: { day: 1, days: 14 },
    });
    server.ctx.clock.advance(86_400_000);
    expect((await post(`/accounts/${id}`, { warmUp: true }, 'PATCH')).body).toMatchObject({
      today: { connectionRequestLimit: 5, messageLimit: 15 },
      warmUp: { day: 2, days: 14 },
    });
    expect((await post(`/accounts/${id}`, { warmUp: 'yes' }, 'PATCH')).body.error.details.fields).toEqual(['warmUp']);
    expect((await post(`/accounts/${id}`, { warmUp: false }, 'PATCH')).body.warmUp).toBeNull();
    expect((await post(`/accounts/${id}`, { messageLimit: 151 }, 'PATCH')).body.error.details.fields).toEqual(['messageLimit']);
    expect((await post('/accounts/acc_nope', { name: 'x' }, 'PATCH')).status).toBe(404);
    // The account's safety settings: weekly cap, time zone and working hours, each checked.
    const safe = await post(
      `/accounts/${id}`,
      { weeklyConnectionRequestLimit: 60, timeZone: 'Europe/Berlin', workingHours: { start: '08:00', end: '17:00' } },
      'PATCH',
    );
    expect(safe.status).toBe(200);
    expect(safe.body.week.connectionRequestLimit).toBe(60);
    expect((await post(`/accounts/${id}`, { timeZone: 'Mars/Olympus' }, 'PATCH')).body.error.details.fields).toEqual(['timeZone']);
    expect((await post(`/accounts/${id}`, { workingHours: { start: '18:00', end: '09:00' } }, 'PATCH')).status).toBe(400);
    expect((await post(`/accounts/${id}`, {}, 'PATCH')).body.error.details.fields).toContain('workingHours');
    const listed = await server.rest('/accounts?limit=100');
    expect(listed.body.accounts.find((a: { id: string }) => a.id === id)).toEqual(safe.body);
  });
});

describe('exclusion verbs', () => {
  it('add normalises URLs and excludes matching leads in every campaign; remove takes them off the list only', () => {
    const ctx = testCtx();
    const target = ctx.db
      .select()
      .from(leads)
      .all()
      .find((l) => l.networkUrl !== null && !l.excluded)!;
    const slug = target.networkUrl!.split('/in/')[1]!;
    const r = addExclusions(ctx, [`http://LinkedIn.com/in/${slug}/?trk=x`, 'https://www.linkedin.com/in/someone-new']);
    expect(r.added).toEqual([target.networkUrl, 'https://www.linkedin.com/in/someone-new']);
    expect(r.leadsExcluded).toBeGreaterThanOrEqual(1);
    for (const l of ctx.db
      .select()
      .from(leads)
      .all()
      .filter((x) => x.networkUrl === target.networkUrl))
      expect(l.excluded).toBe(true);
    expect(addExclusions(ctx, [target.networkUrl!]).alreadyExcluded).toEqual([target.networkUrl]);
    expect(listExclusions(ctx).map((e) => e.networkUrl)).toContain('https://www.linkedin.com/in/someone-new');
    expect(() => addExclusions(ctx, ['https://www.linkedin.com/company/acme'])).toThrow(/urls\[0\]/);
    const removed = removeExclusions(ctx, ['https://www.linkedin.com/in/someone-new', 'https://www.linkedin.com/in/never']);
    expect(removed).toEqual({ removed: ['https://www.linkedin.com/in/someone-new'], notExcluded: ['https://www.linkedin.com/in/never'] });
    expect(
      ctx.db
        .select()
        .from(leads)
        .all()
        .find((l) => l.id === target.id)!.excluded,
    ).toBe(true);
  });

  it('reads a plain list or a CSV with a profile URL column', () => {
    expect(exclusionUrlsFromText('# do not contact\nhttps://linkedin.com/in/a\n\nhttps://linkedin.com/in/b\r\n')).toEqual([
      'https://linkedin.com/in/a',
      'https://linkedin.com/in/b',
    ]);
    expect(exclusionUrlsFromText('\uFEFFName;Profile URL\n"Doe; Jane";https://linkedin.com/in/jane\n')).toEqual(['https://linkedin.com/in/jane']);
    expect(() => exclusionUrlsFromText('Name,Company\nA,B\n')).toThrow(/profile URL column/);
    // Bad quoting refuses the file, naming the line, as a validation error (exit 2 at the CLI).
    expect(() => exclusionUrlsFromText('Name;LinkedIn URL\r\nA;https://linkedin.com/in/a\r\nB;"https://linkedin.com/in/b\r\n')).toThrow(
      expect.objectContaining({ code: 'validation_error', message: expect.stringMatching(/^file: line 4 is not valid CSV .*nothing was excluded\.$/) }),
    );
  });
});
