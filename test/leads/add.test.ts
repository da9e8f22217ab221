import { afterEach, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { campaigns, creditBalance, creditLedger, leads } from '../../src/db/schema.js';
import { fixture, setCampaignState } from '../helpers.js';
import { failedItem } from '../../src/core/leads/batch.js';
import { openSession, TRANSPORTS, type Session } from './call.js';

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;

/** The fixture with its credits set, for exhaustion cases. */
function withCredits(credits: number, topUpCredits: number) {
  const w = fixture();
  w.credits = { credits, topUpCredits, lookalikeCredits: 0, lookalikeTopUpCredits: 0 };
  return w;
}

/** Reads of the session's database, for asserting what a call left behind. */
function harness(session: () => Session) {
  const db = () => session().server.ctx.db;
  return {
    db,
    balance: () => db().select().from(creditBalance).get()!,
    campaign: (id: string) => db().select().from(campaigns).where(eq(campaigns.id, id)).get()!,
    leadRows: (campaignId: string) => db().select().from(leads).where(eq(leads.campaignId, campaignId)).all(),
  };
}

describe.each(TRANSPORTS)('add_lead over %s', (transport) => {
  let s: Session;
  afterEach(() => s?.close());

  const { db, balance, campaign, leadRows } = harness(() => s);
  const add = (args: Record<string, unknown>) => s.call('add_lead', { campaignId: 'cmp_q4', ...args });

  it('creates a lead for 1 credit, spending credits before top-up credits, with the ledger and totals in step', async () => {
    s = await openSession(transport);
    const before = campaign('cmp_q4');
    s.server.ctx.clock.advance(60_000);
    const r = await add({
      networkUrl: 'https://uk.linkedin.com/in/Grace-Hopper/?trk=x',
      firstName: '  Grace ',
      lastName: 'Hopper',
      fullName: '',
      jobTitle: null,
      companyName: 'Compilers Inc',
      email: 'grace@example.com',
      location: 'Arlington',
      headline: 'Rear admiral',
      personalization: 'Met at the COBOL meetup',
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['creditsCharged', 'leadId', 'status']);
    expect(r.body).toMatchObject({ status: 'created', creditsCharged: 1 });
    expect(r.body.leadId).toMatch(/^lead_[A-Za-z0-9]{16}$/);

    expect(balance()).toMatchObject({ credits: 99, topUpCredits: 5 });
    const charges = db().select().from(creditLedger).where(eq(creditLedger.reason, 'lead_created')).all();
    expect(charges).toEqual([expect.objectContaining({ bucket: 'credits', delta: -1, ref: r.body.leadId })]);

    const row = db().select().from(leads).where(eq(leads.id, r.body.leadId)).get()!;
    expect(row).toMatchObject({
      campaignId: 'cmp_q4',
      networkUrl: url('grace-hopper'),
      firstName: 'Grace',
      lastName: 'Hopper',
      fullName: null,
      jobTitle: null,
      companyName: 'Compilers Inc',
      email: 'grace@example.com',
      headline: 'Rear admiral',
      personalization: 'Met at the COBOL meetup',
      excluded: false,
      stage: 'new',
      source: 'manual',
      tag: null,
    });
    const after = campaign('cmp_q4');
    expect(after.totalLeads).toBe(before.totalLeads + 1);
    expect(after.totalLeads).toBe(leadRows('cmp_q4').length);
    expect(after.updatedAt).toBe(s.server.ctx.clock.now());
    expect(after.status).toBe('READY_TO_SEND');
  });

  it('answers duplicate with the existing lead id for any variant of a URL already in the campaign, for free', async () => {
    s = await openSession(transport);
    for (const variant of [
      'https://www.linkedin.com/in/ada-lovelace',
      'http://linkedin.com/in/ADA-LOVELACE/',
      'https://fr.linkedin.com/in/ada%2Dlovelace?x=1#y',
    ]) {
      const r = await add({ networkUrl: variant, firstName: 'Someone else' });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ leadId: 'lead_ada1', status: 'duplicate', creditsCharged: 0 });
    }
    expect(balance().credits).toBe(100);
    expect(leadRows('cmp_q4')).toHaveLength(1);
    expect(leadRows('cmp_q4')[0]!.firstName).toBe('Ada');
    expect(campaign('cmp_q4').totalLeads).toBe(1);
  });

  it('dedupes per campaign: the same profile in another campaign is created', async () => {
    s = await openSession(transport);
    const r = await s.call('add_lead', { campaignId: 'cmp_running', networkUrl: url('ada-lovelace') });
    expect(r.body.status).toBe('created');
    expect(r.body.leadId).not.toBe('lead_ada1');
  });

  it('stores a profile on the exclusion list as excluded, for free, and answers its new id', async () => {
    s = await openSession(transport);
    const r = await add({ networkUrl: 'https://www.linkedin.com/in/Do-Not-Contact/' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'excluded', creditsCharged: 0 });
    const row = db().select().from(leads).where(eq(leads.id, r.body.leadId)).get()!;
    expect(row).toMatchObject({ excluded: true, networkUrl: url('do-not-contact'), campaignId: 'cmp_q4' });
    expect(balance().credits).toBe(100);
    expect(campaign('cmp_q4').totalLeads).toBe(2);
    // Once stored, the same URL is a duplicate of that lead.
    const again = await add({ networkUrl: url('do-not-contact') });
    expect(again.body).toEqual({ leadId: r.body.leadId, status: 'duplicate', creditsCharged: 0 });
  });

  it('puts duplicate before excluded: a URL already in the campaign stays duplicate once excluded', async () => {
    const w = fixture();
    w.exclusions = [...(w.exclusions ?? []), url('ada-lovelace')];
    s = await openSession(transport, { workspace: w });
    const r = await add({ networkUrl: url('ada-lovelace') });
    expect(r.body).toEqual({ leadId: 'lead_ada1', status: 'duplicate', creditsCharged: 0 });
  });

  it('spends top-up credits once normal credits are gone, then refuses with 403 insufficient_credits and no insert', async () => {
    s = await openSession(transport, { workspace: withCredits(1, 1) });
    expect((await add({ networkUrl: url('p1') })).body.status).toBe('created');
    expect(balance()).toMatchObject({ credits: 0, topUpCredits: 1 });
    expect((await add({ networkUrl: url('p2') })).body.status).toBe('created');
    expect(balance()).toMatchObject({ credits: 0, topUpCredits: 0 });
    const buckets = db()
      .select()
      .from(creditLedger)
      .where(eq(creditLedger.reason, 'lead_created'))
      .all()
      .map((l) => l.bucket);
    expect(buckets).toEqual(['credits', 'top_up_credits']);

    const r = await add({ networkUrl: url('p3') });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'insufficient_credits', details: { available: 0, required: 1 } });
    expect(
      db()
        .select()
        .from(leads)
        .where(eq(leads.networkUrl, url('p3')))
        .all(),
    ).toEqual([]);
    expect(balance()).toMatchObject({ credits: 0, topUpCredits: 0 });
    expect(campaign('cmp_q4').totalLeads).toBe(3);
  });

  it('still answers duplicate and excluded with no credits left, since they cost nothing', async () => {
    s = await openSession(transport, { workspace: withCredits(0, 0) });
    expect((await add({ networkUrl: url('ada-lovelace') })).body.status).toBe('duplicate');
    expect((await add({ networkUrl: url('do-not-contact') })).body.status).toBe('excluded');
  });

  it('moves a FAILED campaign to READY_TO_SEND when an insert succeeds, and not on a duplicate', async () => {
    s = await openSession(transport);
    const first = await s.call('add_lead', { campaignId: 'cmp_failed', networkUrl: url('p1') });
    expect(first.body.status).toBe('created');
    expect(campaign('cmp_failed').status).toBe('READY_TO_SEND');

    setCampaignState({ db: db() }, 'cmp_failed', { status: 'FAILED' });
    expect((await s.call('add_lead', { campaignId: 'cmp_failed', networkUrl: url('p1') })).body.status).toBe('duplicate');
    expect(campaign('cmp_failed').status).toBe('FAILED');
    expect((await s.call('add_lead', { campaignId: 'cmp_failed', networkUrl: url('do-not-contact') })).body.status).toBe('excluded');
    expect(campaign('cmp_failed').status).toBe('READY_TO_SEND');
  });

  it('leaves other campaign statuses alone', async () => {
    s = await openSession(transport);
    await s.call('add_lead', { campaignId: 'cmp_paused', networkUrl: url('p1') });
    expect(campaign('cmp_paused').status).toBe('CAMPAIGN_PAUSED');
  });

  it('answers 404 for an unknown campaign and 400 for a malformed campaign id', async () => {
    s = await openSession(transport);
    const missing = await s.call('add_lead', { campaignId: 'cmp_nope', networkUrl: url('p1') });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const bad = await s.call('add_lead', { campaignId: 'cmp nope!', networkUrl: url('p1') });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields).toEqual(['campaignId']);
    expect(balance().credits).toBe(100);
  });

  it.each([
    ['a company page', { networkUrl: 'https://www.linkedin.com/company/engines' }, ['networkUrl']],
    ['a Sales Navigator URL', { networkUrl: 'https://www.linkedin.com/sales/lead/ACwAAA,NAME_SEARCH,x' }, ['networkUrl']],
    ['another host', { networkUrl: 'https://example.com/in/ada' }, ['networkUrl']],
    ['garbage', { networkUrl: 'ada lovelace' }, ['networkUrl']],
    ['a missing URL', { firstName: 'Ada' }, ['networkUrl']],
    ['a null URL', { networkUrl: null }, ['networkUrl']],
    ['a numeric URL', { networkUrl: 42 }, ['networkUrl']],
    ['an unknown field', { networkUrl: url('p1'), nickname: 'x' }, ['nickname']],
    ['a wrongly typed field', { networkUrl: url('p1'), firstName: 5 }, ['firstName']],
    ['an array for a text field', { networkUrl: url('p1'), email: ['a@b.c'] }, ['email']],
    ['a field over its length', { networkUrl: url('p1'), headline: 'h'.repeat(501) }, ['headline']],
  ] as const)('refuses %s with 400 validation_error naming the field', async (_what, body, fields) => {
    s = await openSession(transport);
    const r = await add(body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details.fields).toEqual(fields);
    expect(leadRows('cmp_q4')).toHaveLength(1);
  });

  it('takes every field up to its maximum length and refuses one character more', async () => {
    s = await openSession(transport);
    const max = {
      fullName: 120,
      firstName: 120,
      lastName: 120,
      jobTitle: 200,
      companyName: 200,
      email: 254,
      location: 200,
      headline: 500,
      personalization: 2000,
    };
    const full = Object.fromEntries(Object.entries(max).map(([k, n]) => [k, 'x'.repeat(n)]));
    expect((await add({ networkUrl: url('at-the-limit'), ...full })).body.status).toBe('created');
    for (const [field, n] of Object.entries(max)) {
      const r = await add({ networkUrl: url(`over-${field}`), [field]: 'x'.repeat(n + 1) });
      expect(r.status, field).toBe(400);
      expect(r.body.error.details.fields).toEqual([field]);
    }
  });
});

describe.each(TRANSPORTS)('add_leads_batch over %s', (transport) => {
  let s: Session;
  afterEach(() => s?.close());

  const { db, balance, campaign, leadRows } = harness(() => s);
  const leadCount = (campaignId: string) => leadRows(campaignId).length;
  const batch = (leadsArg: unknown, campaignId = 'cmp_q4') => s.call('add_leads_batch', { campaignId, leads: leadsArg });

  it('answers each item in order with an exact summary and charge', async () => {
    s = await openSession(transport);
    const r = await batch([
      { networkUrl: url('p1'), firstName: 'P1' },
      { networkUrl: 'https://www.linkedin.com/in/ADA-LOVELACE/' },
      { networkUrl: 'https://www.linkedin.com/company/engines' },
      { networkUrl: url('do-not-contact') },
      { firstName: 'No URL' },
      { networkUrl: 'https://uk.linkedin.com/in/P1?ref=dup' },
      { networkUrl: url('p2') },
    ]);
    expect(r.status).toBe(200);
    const [p1, ada, company, excluded, noUrl, dup, p2] = r.body.results;
    expect(p1).toEqual({ index: 0, networkUrl: url('p1'), leadId: expect.stringMatching(/^lead_/), status: 'created', creditsCharged: 1 });
    expect(ada).toEqual({ index: 1, networkUrl: url('ada-lovelace'), leadId: 'lead_ada1', status: 'duplicate', creditsCharged: 0 });
    expect(company).toEqual({
      index: 2,
      networkUrl: 'https://www.linkedin.com/company/engines',
      leadId: null,
      status: 'validation_error',
      creditsCharged: 0,
      error: { code: 'validation_error', message: expect.stringMatching(/^leads\[2\]\.networkUrl is not a personal profile URL/) },
    });
    expect(excluded).toEqual({ index: 3, networkUrl: url('do-not-contact'), leadId: expect.stringMatching(/^lead_/), status: 'excluded', creditsCharged: 0 });
    expect(noUrl).toEqual({
      index: 4,
      networkUrl: null,
      leadId: null,
      status: 'validation_error',
      creditsCharged: 0,
      error: { code: 'validation_error', message: 'leads[4].networkUrl is missing. Give a personal profile URL like https://www.linkedin.com/in/<slug>.' },
    });
    expect(dup).toEqual({ index: 5, networkUrl: url('p1'), leadId: p1.leadId, status: 'duplicate', creditsCharged: 0 });
    expect(p2).toMatchObject({ index: 6, status: 'created', creditsCharged: 1 });
    expect(r.body.summary).toEqual({ total: 7, created: 2, duplicate: 2, excluded: 1, validation_error: 2, insufficient_credits: 0, failed: 0 });
    expect(r.body.creditsCharged).toBe(2);

    expect(balance().credits).toBe(98);
    expect(leadCount('cmp_q4')).toBe(4);
    expect(campaign('cmp_q4').totalLeads).toBe(4);
    expect(db().select().from(leads).where(eq(leads.id, excluded.leadId)).get()!.excluded).toBe(true);
  });

  it('marks the item at the first credit exhaustion and every later item insufficient_credits, still 200', async () => {
    s = await openSession(transport, { workspace: withCredits(1, 1) });
    const r = await batch([
      { networkUrl: url('p1') },
      { networkUrl: url('ada-lovelace') },
      { networkUrl: url('p2') },
      { networkUrl: url('p3') },
      { networkUrl: url('ada-lovelace') },
      { networkUrl: url('do-not-contact') },
      { networkUrl: 'garbage' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => x.status)).toEqual([
      'created',
      'duplicate',
      'created',
      'insufficient_credits',
      'insufficient_credits',
      'insufficient_credits',
      'insufficient_credits',
    ]);
    expect(r.body.results[3]).toEqual({
      index: 3,
      networkUrl: url('p3'),
      leadId: null,
      status: 'insufficient_credits',
      creditsCharged: 0,
      error: { code: 'insufficient_credits', message: expect.stringContaining('`outreach credits add N`') },
    });
    expect(r.body.summary).toEqual({ total: 7, created: 2, duplicate: 1, excluded: 0, validation_error: 0, insufficient_credits: 4, failed: 0 });
    expect(r.body.creditsCharged).toBe(2);
    expect(balance()).toMatchObject({ credits: 0, topUpCredits: 0 });
    expect(leadCount('cmp_q4')).toBe(3);
    expect(
      db()
        .select()
        .from(leads)
        .where(eq(leads.networkUrl, url('do-not-contact')))
        .all(),
    ).toEqual([]);
  });

  it('moves a FAILED campaign to READY_TO_SEND and keeps totalLeads true', async () => {
    s = await openSession(transport);
    const r = await batch([{ networkUrl: url('p1') }, { networkUrl: url('p2') }, { networkUrl: url('p1') }], 'cmp_failed');
    expect(r.body.summary.created).toBe(2);
    expect(campaign('cmp_failed')).toMatchObject({ status: 'READY_TO_SEND', totalLeads: 2 });
  });

  it('books nothing when nothing is inserted: a FAILED campaign and its totals stay as they were', async () => {
    s = await openSession(transport);
    await batch([{ networkUrl: url('p1') }], 'cmp_failed');
    setCampaignState({ db: db() }, 'cmp_failed', { status: 'FAILED' });
    const before = campaign('cmp_failed');
    s.server.ctx.clock.advance(60_000);
    const r = await batch([{ networkUrl: url('p1') }, { networkUrl: 'garbage' }, { networkUrl: url('p1') }], 'cmp_failed');
    expect(r.body.summary).toMatchObject({ duplicate: 2, validation_error: 1 });
    expect(campaign('cmp_failed')).toEqual(before);
  });

  it('answers 404 for an unknown campaign before any insert', async () => {
    s = await openSession(transport);
    const r = await batch([{ networkUrl: url('p1') }], 'cmp_nope');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect(balance().credits).toBe(100);
  });

  const valid = (n: number) => Array.from({ length: n }, (_v, i) => ({ networkUrl: url(`bulk-${i}`) }));

  it.each([
    ['no items', [], ['leads']],
    ['101 items', valid(101), ['leads']],
    ['leads that is not an array', { networkUrl: url('p1') }, ['leads']],
    ['an item that is not an object', [...valid(2), 'https://www.linkedin.com/in/p9'], ['leads[2]']],
    ['an unknown item key', [...valid(3), { networkUrl: url('p9'), nickname: 'x' }], ['leads[3].nickname']],
    ['a numeric networkUrl', [...valid(1), { networkUrl: 7 }], ['leads[1].networkUrl']],
    ['a null networkUrl', [{ networkUrl: null }, ...valid(1)], ['leads[0].networkUrl']],
    ['a wrongly typed field', [...valid(5), { networkUrl: url('p9'), jobTitle: true }], ['leads[5].jobTitle']],
    ['an over-long field in a late item', [...valid(57), { networkUrl: url('p9'), fullName: 'x'.repeat(121) }], ['leads[57].fullName']],
  ] as const)('refuses %s as a whole-request 400 with no inserts', async (_what, leadsArg, fields) => {
    s = await openSession(transport);
    const r = await batch(leadsArg);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details.fields).toEqual(fields);
    expect(leadCount('cmp_q4')).toBe(1);
    expect(balance().credits).toBe(100);
  });

  it('refuses an unknown top-level key as a whole-request 400', async () => {
    s = await openSession(transport);
    const r = await s.call('add_leads_batch', { campaignId: 'cmp_q4', leads: valid(2), dryRun: true });
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields).toEqual(['dryRun']);
    expect(leadCount('cmp_q4')).toBe(1);
  });

  it('takes exactly 100 items', async () => {
    s = await openSession(transport);
    const r = await batch(valid(100));
    expect(r.body.summary).toMatchObject({ total: 100, created: 100 });
    expect(r.body.creditsCharged).toBe(100);
    expect(balance()).toMatchObject({ credits: 0, topUpCredits: 5 });
    expect(campaign('cmp_q4').totalLeads).toBe(101);
  });

  it('stops at a write failure: committed items stay created, that item and the rest are failed, charges match inserts', async () => {
    s = await openSession(transport);
    let writes = 0;
    s.server.ctx.faults = {
      hit: (point) => {
        if (point === 'leads.add.item' && ++writes === 3) throw new Error('disk I/O error');
      },
    };
    const r = await batch([
      { networkUrl: url('p1') },
      { networkUrl: url('ada-lovelace') },
      { networkUrl: url('p2') },
      { networkUrl: url('p3') },
      { networkUrl: url('p4') },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => x.status)).toEqual(['created', 'duplicate', 'created', 'failed', 'failed']);
    expect(r.body.results[3]).toEqual({ index: 3, networkUrl: url('p3'), leadId: null, status: 'failed', creditsCharged: 0, error: failedItem() });
    expect(r.body.summary).toMatchObject({ created: 2, duplicate: 1, failed: 2 });
    expect(r.body.creditsCharged).toBe(2);
    // The failed item's charge rolled back with its insert.
    expect(balance().credits).toBe(98);
    expect(db().select().from(creditLedger).where(eq(creditLedger.reason, 'lead_created')).all()).toHaveLength(2);
    expect(
      db()
        .select()
        .from(leads)
        .where(and(eq(leads.campaignId, 'cmp_q4'), eq(leads.networkUrl, url('p3'))))
        .all(),
    ).toEqual([]);
    expect(campaign('cmp_q4').totalLeads).toBe(3);
  });
});
