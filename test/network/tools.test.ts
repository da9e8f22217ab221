import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDay } from '../../src/core/clock.js';
import { accountDaily, activity, campaigns, leads } from '../../src/db/schema.js';
import { MARKERS } from '../../src/network/sim/index.js';
import { callTool, fixture, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;

/** Each failure marker and the code it gives per tool (null: the call succeeds). */
const MARKER_CODES: [string, { lookup: string | null; search: string | null; send: string | null }][] = [
  [MARKERS.outage, { lookup: 'upstream_unavailable', search: 'upstream_unavailable', send: 'upstream_unavailable' }],
  [MARKERS.disconnected, { lookup: 'account_disconnected', search: 'account_disconnected', send: 'account_disconnected' }],
  [MARKERS.quota, { lookup: 'network_daily_quota', search: 'network_daily_quota', send: 'network_daily_quota' }],
  [MARKERS.salesNavFail, { lookup: 'sales_nav_required', search: 'sales_nav_required', send: null }],
  [MARKERS.notFound, { lookup: 'not_found', search: null, send: 'not_found' }],
  [MARKERS.sendFail, { lookup: null, search: null, send: 'send_failed' }],
];
const STATUS: Record<string, number> = {
  upstream_unavailable: 503,
  account_disconnected: 403,
  network_daily_quota: 429,
  sales_nav_required: 403,
  not_found: 404,
  send_failed: 502,
  conflict: 409,
};

let server: TestServer;
beforeAll(async () => {
  const ws = fixture();
  const q4 = ws.campaigns!.find((c) => c.id === 'cmp_q4')!;
  q4.leads!.push(
    ...MARKER_CODES.map(([marker], i) => ({ id: `lead_m${i}`, networkUrl: url(`jane-${marker}`), firstName: 'Jane' })),
    { id: 'lead_excl', networkUrl: url('ex-cluded'), excluded: true },
    { id: 'lead_own', networkUrl: url('own-account'), accountId: 'acc_nav' },
    { id: 'lead_talk', networkUrl: url('talk-back'), stage: 'replied', replied: true, needsReply: true },
  );
  ws.campaigns!.push({ id: 'cmp_other', status: 'READY_TO_SEND', assignedTemplateId: null, leads: [{ id: 'lead_lone', networkUrl: url('lone-wolf') }] });
  ws.accounts!.push({ id: 'acc_sim-disconnected', status: 'connected' });
  server = await startTestServer({ workspace: ws, limits: RELAXED_LIMITS });
});
afterAll(() => server.close());

async function both(tool: string, path: string, args: Record<string, unknown>) {
  const rest = await server.rest(path, { method: 'POST', body: JSON.stringify(args) });
  const mcp = await callTool(await server.mcp(), tool, args);
  return { rest, mcp };
}

async function expectError(tool: string, path: string, args: Record<string, unknown>, code: string, fields?: string[]) {
  const { rest, mcp } = await both(tool, path, args);
  expect(rest.body.error?.code, JSON.stringify(rest.body)).toBe(code);
  expect(rest.status).toBe(code === 'validation_error' ? 400 : STATUS[code]);
  expect(mcp.isError).toBe(true);
  expect(mcp.body.error.code).toBe(code);
  if (fields) {
    expect(rest.body.error.details.fields).toEqual(fields);
    expect(mcp.body.error.details.fields).toEqual(fields);
  }
  if (code === 'network_daily_quota') {
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(rest.body.error.details.retryAfterSeconds).toBe(Number(rest.headers.get('retry-after')));
  }
  return rest.body;
}

describe('simulated network failure markers reach the API as their codes', () => {
  describe.each(MARKER_CODES)('%s', (marker, codes) => {
    const i = MARKER_CODES.findIndex(([m]) => m === marker);
    it('lookup_profile', async () => {
      const args = { accountId: 'acc_ada', networkUrl: url(`jane-${marker}`) };
      if (codes.lookup === null) expect((await both('lookup_profile', '/network/profiles/lookup', args)).rest.status).toBe(200);
      else await expectError('lookup_profile', '/network/profiles/lookup', args, codes.lookup);
    });
    it('search_linkedin', async () => {
      const args = { accountId: 'acc_ada', query: `cto ${marker}` };
      if (codes.search === null) expect((await both('search_linkedin', '/network/search', args)).rest.status).toBe(200);
      else await expectError('search_linkedin', '/network/search', args, codes.search);
    });
    it('send_message', async () => {
      const args = { campaignId: 'cmp_q4', leadId: `lead_m${i}`, text: 'Hello Jane' };
      if (codes.send === null) expect((await both('send_message', '/inbox/messages', args)).rest.status).toBe(200);
      else await expectError('send_message', '/inbox/messages', args, codes.send);
    });
  });

  it('an account id with sim-disconnected is account_disconnected on every tool', async () => {
    await expectError('lookup_profile', '/network/profiles/lookup', { accountId: 'acc_sim-disconnected', networkUrl: url('ada') }, 'account_disconnected');
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_sim-disconnected', query: 'cto' }, 'account_disconnected');
    await expectError(
      'send_message',
      '/inbox/messages',
      { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hi', accountId: 'acc_sim-disconnected' },
      'account_disconnected',
    );
  });
});

describe('lookup_profile', () => {
  it('returns the basic profile, or the full one with about and experience', async () => {
    const { rest, mcp } = await both('lookup_profile', '/network/profiles/lookup', {
      accountId: 'acc_ada',
      networkUrl: 'https://uk.linkedin.com/in/Ada-Lovelace/',
    });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ fullName: 'Ada Lovelace', networkUrl: url('ada-lovelace') });
    expect(rest.body.about).toBeUndefined();
    expect(rest.body.experience).toBeUndefined();
    expect(mcp.body).toEqual(rest.body);
    const full = await server.rest('/network/profiles/lookup', {
      method: 'POST',
      body: JSON.stringify({ accountId: 'acc_ada', networkUrl: url('ada-lovelace'), depth: 'full' }),
    });
    expect(full.body.experience.length).toBeGreaterThan(0);
    expect(full.body).toHaveProperty('about');
  });

  it('validates the body and the account', async () => {
    await expectError('lookup_profile', '/network/profiles/lookup', { accountId: 'acc_ada', networkUrl: 'https://example.com/in/ada' }, 'validation_error', [
      'networkUrl',
    ]);
    await expectError('lookup_profile', '/network/profiles/lookup', { accountId: 'acc_ada' }, 'validation_error', ['networkUrl']);
    await expectError('lookup_profile', '/network/profiles/lookup', { accountId: 'acc_ada', networkUrl: url('ada'), depth: 'deep' }, 'validation_error', [
      'depth',
    ]);
    await expectError('lookup_profile', '/network/profiles/lookup', { accountId: 'acc_nope', networkUrl: url('ada') }, 'not_found');
    await expectError('lookup_profile', '/network/profiles/lookup', { accountId: 'acc_off', networkUrl: url('ada') }, 'account_disconnected');
  });
});

describe('search_linkedin', () => {
  it('pages with cursor', async () => {
    const first = await server.rest('/network/search', { method: 'POST', body: JSON.stringify({ accountId: 'acc_ada', query: 'engineers', limit: 3 }) });
    expect(first.status).toBe(200);
    expect(first.body.results).toHaveLength(3);
    expect(first.body.cursor).toEqual(expect.any(String));
    expect(Object.keys(first.body.results[0]).sort()).toEqual([
      'companyName',
      'fullName',
      'headline',
      'jobTitle',
      'location',
      'networkUrl',
      'profilePictureUrl',
      'providerId',
    ]);
    const { rest, mcp } = await both('search_linkedin', '/network/search', { accountId: 'acc_ada', query: 'engineers', limit: 3, cursor: first.body.cursor });
    expect(rest.body.results.map((r: any) => r.networkUrl)).not.toEqual(first.body.results.map((r: any) => r.networkUrl));
    expect(mcp.body).toEqual(rest.body);
  });

  it('needs exactly one of query and url, and keeps limit within the type', async () => {
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_ada' }, 'validation_error', ['query', 'url']);
    await expectError(
      'search_linkedin',
      '/network/search',
      { accountId: 'acc_ada', query: 'cto', url: 'https://www.linkedin.com/search/results/people/?keywords=cto' },
      'validation_error',
      ['query', 'url'],
    );
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_ada', query: 'cto', limit: 51 }, 'validation_error', ['limit']);
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_nav', type: 'sales_nav', query: 'cto', limit: 101 }, 'validation_error', [
      'limit',
    ]);
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_ada', type: 'premium', query: 'cto' }, 'validation_error', ['type']);
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_ada', url: 'https://example.com/?keywords=cto' }, 'validation_error', ['url']);
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_ada', query: 'cto', cursor: 'bogus' }, 'validation_error', ['cursor']);
    const nav = await server.rest('/network/search', {
      method: 'POST',
      body: JSON.stringify({ accountId: 'acc_nav', type: 'sales_nav', url: 'https://www.linkedin.com/sales/search/people?query=(keywords:cto)', limit: 100 }),
    });
    expect(nav.status).toBe(200);
    expect(nav.body.results.length).toBeGreaterThan(0);
  });

  it('needs Sales Navigator for sales_nav, and a known connected account', async () => {
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_ada', type: 'sales_nav', query: 'cto' }, 'sales_nav_required');
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_nope', query: 'cto' }, 'not_found');
    await expectError('search_linkedin', '/network/search', { accountId: 'acc_off', query: 'cto' }, 'account_disconnected');
  });
});

describe('send_message', () => {
  const dailyMessages = (accountId: string) =>
    server.ctx.db
      .select()
      .from(accountDaily)
      .where(and(eq(accountDaily.accountId, accountId), eq(accountDaily.day, utcDay(server.ctx.simClock.now()))))
      .get()?.messagesSent ?? 0;

  it('sends, stores the chat id, and records a manual send outside stats and listings', async () => {
    const before = server.ctx.db.select().from(campaigns).where(eq(campaigns.id, 'cmp_q4')).get()!;
    const sentBefore = dailyMessages('acc_ada');
    const r = await server.rest('/inbox/messages', {
      method: 'POST',
      body: JSON.stringify({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hello Ada, a quick question about engines.' }),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, chatId: expect.any(String), messageId: expect.any(String) });
    const lead = server.ctx.db.select().from(leads).where(eq(leads.id, 'lead_ada1')).get()!;
    expect(lead.chatId).toBe(r.body.chatId);
    expect(lead.stage).toBe('new');
    const manual = server.ctx.db
      .select()
      .from(activity)
      .where(and(eq(activity.leadId, 'lead_ada1'), eq(activity.manual, true)))
      .all()
      .at(-1)!;
    expect(manual).toMatchObject({ type: 'message_sent', accountId: 'acc_ada', messagePreview: 'Hello Ada, a quick question about engines.' });
    const after = server.ctx.db.select().from(campaigns).where(eq(campaigns.id, 'cmp_q4')).get()!;
    expect(after.messagesSent).toBe(before.messagesSent);
    expect(dailyMessages('acc_ada')).toBe(sentBefore + 1);
  });

  it('defaults the account from the lead, then the agent', async () => {
    const nav = dailyMessages('acc_nav');
    expect(
      (await server.rest('/inbox/messages', { method: 'POST', body: JSON.stringify({ campaignId: 'cmp_q4', leadId: 'lead_own', text: 'Hi' }) })).status,
    ).toBe(200);
    expect(dailyMessages('acc_nav')).toBe(nav + 1);
    await expectError('send_message', '/inbox/messages', { campaignId: 'cmp_other', leadId: 'lead_lone', text: 'Hi' }, 'validation_error', ['accountId']);
    expect(
      (
        await server.rest('/inbox/messages', {
          method: 'POST',
          body: JSON.stringify({ campaignId: 'cmp_other', leadId: 'lead_lone', text: 'Hi', accountId: 'acc_nav' }),
        })
      ).status,
    ).toBe(200);
  });

  it('hands a conversation the lead replied to over to the operator', async () => {
    const r = await server.rest('/inbox/messages', {
      method: 'POST',
      body: JSON.stringify({ campaignId: 'cmp_q4', leadId: 'lead_talk', text: 'Happy to help, here is the deck.' }),
    });
    expect(r.status).toBe(200);
    const lead = server.ctx.db.select().from(leads).where(eq(leads.id, 'lead_talk')).get()!;
    expect(lead).toMatchObject({ stage: 'handed_off', needsReply: false });
    const handoff = server.ctx.db
      .select()
      .from(activity)
      .where(and(eq(activity.leadId, 'lead_talk'), eq(activity.type, 'agent_handed_off')))
      .get();
    expect(handoff?.handOffReason).toMatch(/operator/);
    expect(handoff?.manual).toBe(false);
  });

  it('validates the lead, the text and the account', async () => {
    const send = (body: Record<string, unknown>, code: string, fields?: string[]) => expectError('send_message', '/inbox/messages', body, code, fields);
    await send({ campaignId: 'cmp_other', leadId: 'lead_ada1', text: 'Hi' }, 'not_found');
    await send({ campaignId: 'cmp_q4', leadId: 'lead_nope', text: 'Hi' }, 'not_found');
    await send({ campaignId: 'cmp_nope', leadId: 'lead_ada1', text: 'Hi' }, 'not_found');
    await send({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text: '' }, 'validation_error', ['text']);
    await send({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text: '   ' }, 'validation_error', ['text']);
    await send({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'x'.repeat(8001) }, 'validation_error', ['text']);
    await send({ campaignId: 'cmp_q4', leadId: 'lead_ada1' }, 'validation_error', ['text']);
    await send({ campaignId: 'cmp_q4', leadId: 'bad id', text: 'Hi' }, 'validation_error', ['leadId']);
    await send({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hi', accountId: 'acc_nope' }, 'not_found');
    await send({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hi', accountId: 'acc_off' }, 'account_disconnected');
    await send({ campaignId: 'cmp_q4', leadId: 'lead_excl', text: 'Hi' }, 'conflict');
    const max = await server.rest('/inbox/messages', {
      method: 'POST',
      body: JSON.stringify({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text: '😀'.repeat(8000) }),
    });
    expect(max.status).toBe(200);
  });
});
