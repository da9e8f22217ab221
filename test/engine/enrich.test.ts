import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { utcDay } from '../../src/core/clock.js';
import { enrichmentOf, ENRICH_RETRY_MS, recordProfile } from '../../src/core/outreach/enrich.js';
import { searchLeads } from '../../src/core/leads/search.js';
import { getPosition } from '../../src/core/sequences/store.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { accountDaily, drafts } from '../../src/db/schema.js';
import { simPerson } from '../../src/network/sim/profiles.js';
import { TEST_KEY } from '../helpers.js';
import { DAY, MINUTE, RecordingNetwork, harness, url } from './helpers.js';

type Lead = { slug: string } & Record<string, string>;

/** One account, the agent of the measured defect, and leads given as a URL (plus what each lists). */
function workspace(leads: Lead[], opts: { approval?: 'required'; note?: string | null } = {}): WorkspaceFileInput {
  return {
    apiKeys: [{ key: TEST_KEY, name: 'ci' }],
    accounts: [{ id: 'acc_a', name: 'A', status: 'connected', hasSalesNavigator: false }],
    agents: [
      {
        id: 'tpl',
        accountId: 'acc_a',
        connectionNote: opts.note === undefined ? 'Hi {{firstName|there}}, I work with fintechs like {{companyName|yours}}.' : opts.note,
        messages: [{ text: 'Thanks for connecting, {{firstName|there}}!', delayHours: 1 }],
      },
    ],
    campaigns: [
      {
        id: 'cmp',
        name: 'By URL',
        status: 'CAMPAIGN_IN_PROGRESS',
        assignedTemplateId: 'tpl',
        ...(opts.approval ? { approval: opts.approval } : {}),
        leads: leads.map(({ slug, ...fields }, i) => ({ id: `lead_${i + 1}`, networkUrl: url(slug), ...fields })),
      },
    ],
  } as WorkspaceFileInput;
}

function setup(leads: Lead[], opts: Parameters<typeof workspace>[1] = {}) {
  let recording: RecordingNetwork | undefined;
  const h = harness(workspace(leads, opts), {
    network: (ctx) => {
      recording = new RecordingNetwork(ctx.network);
      return recording;
    },
  });
  const net = recording as RecordingNetwork;
  const lookups = (): number =>
    h.ctx.db
      .select()
      .from(accountDaily)
      .where(and(eq(accountDaily.accountId, 'acc_a'), eq(accountDaily.day, utcDay(h.ctx.simClock.now()))))
      .get()?.profileLookups ?? 0;
  const notes = () => net.calls.filter((c) => c.op === 'connect').map((c) => c.text);
  return { h, net, lookups, notes };
}

describe('enrichment: leads known only by their URL', () => {
  it('looks a nameless lead up before its note renders, fills only its empty fields, and counts the lookup', async () => {
    const { h, lookups, notes } = setup([
      { slug: 'ada-lovelace-sim-never-accepts' },
      { slug: 'grace-hopper-sim-never-accepts', companyName: 'Given Co' },
      { slug: 'alan-turing-sim-never-accepts', firstName: 'Al' },
    ]);
    await h.runUntil(() => notes().length === 3);
    const ada = simPerson('ada-lovelace-sim-never-accepts').profile;
    const grace = simPerson('grace-hopper-sim-never-accepts').profile;
    expect(notes()).toEqual([
      `Hi Ada, I work with fintechs like ${ada.companyName}.`,
      'Hi Grace, I work with fintechs like Given Co.',
      'Hi Al, I work with fintechs like yours.',
    ]);
    expect(h.lead('lead_1')).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      fullName: 'Ada Lovelace',
      headline: ada.headline,
      jobTitle: ada.jobTitle,
      companyName: ada.companyName,
      location: ada.location,
    });
    // The customer's company stays; the rest comes from the profile.
    expect(h.lead('lead_2')).toMatchObject({ firstName: 'Grace', companyName: 'Given Co', jobTitle: grace.jobTitle });
    // A lead the customer named is not looked up at all.
    expect(h.lead('lead_3')).toMatchObject({ firstName: 'Al', lastName: null, companyName: null });
    expect(enrichmentOf(h.ctx, 'lead_3')).toBeNull();
    // Named now, the lead is never looked up again: it needs no enrichment record.
    expect(enrichmentOf(h.ctx, 'lead_1')).toBeNull();
    expect(lookups()).toBe(2);
    // The activity names the person too.
    expect(h.events('connection_request_sent').find((e) => e.leadId === 'lead_1')).toMatchObject({ leadName: 'Ada Lovelace' });
  });

  it('names the person in the follow-up too', async () => {
    const { h, net } = setup([{ slug: 'ada-lovelace-sim-fast-accept-sim-no-reply' }]);
    await h.runUntil(() => net.calls.some((c) => c.op === 'message'), 5 * MINUTE, 2_000);
    expect(net.calls.find((c) => c.op === 'message')?.text).toBe('Thanks for connecting, Ada!');
  });

  it('spends no lookup on an invitation without words', async () => {
    const { h, lookups, notes } = setup([{ slug: 'ada-lovelace-sim-never-accepts' }], { note: null });
    await h.runUntil(() => notes().length === 1);
    expect(notes()).toEqual([null]);
    expect(lookups()).toBe(0);
    expect(h.lead('lead_1').firstName).toBeNull();
  });

  it('falls back to the placeholder default only when the profile itself has no first name, and looks it up once', async () => {
    const { h, lookups, notes } = setup([{ slug: 'sim-no-name-sim-fast-accept-sim-no-reply' }]);
    await h.runUntil(() => notes().length === 1);
    expect(notes()[0]).toMatch(/^Hi there, I work with fintechs like /);
    expect(h.lead('lead_1')).toMatchObject({ firstName: null, fullName: null, companyName: expect.any(String) });
    expect(enrichmentOf(h.ctx, 'lead_1')).toMatchObject({ failures: 0, enrichedAt: expect.any(Number) });
    await h.runUntil(() => h.lead('lead_1').stage === 'messaged', 5 * MINUTE, 2_000);
    // The message renders from what the one lookup found: no second lookup for a nameless profile.
    expect(lookups()).toBe(1);
  });

  it('retries a failed lookup after a delay, and ends the sequence with enrichment_failed at the third failure', async () => {
    const { h, net, lookups } = setup([{ slug: 'jane-sim-lookup-fail' }]);
    await h.tick();
    const start = h.ctx.simClock.now();
    expect(enrichmentOf(h.ctx, 'lead_1')).toMatchObject({ failures: 1, lastError: 'upstream_unavailable', enrichedAt: null });
    expect(h.lead('lead_1').nextActionAt).toBe(start + ENRICH_RETRY_MS);
    // A failed lookup gives its unit back.
    expect(lookups()).toBe(0);
    h.ctx.clock.advance(ENRICH_RETRY_MS - MINUTE);
    await h.tick();
    expect(enrichmentOf(h.ctx, 'lead_1')?.failures).toBe(1);
    h.ctx.clock.advance(MINUTE);
    await h.tick();
    expect(enrichmentOf(h.ctx, 'lead_1')?.failures).toBe(2);
    expect(h.lead('lead_1').nextActionAt).toBe(h.ctx.simClock.now() + 2 * ENRICH_RETRY_MS);
    h.ctx.clock.advance(2 * ENRICH_RETRY_MS);
    await h.tick();
    expect(enrichmentOf(h.ctx, 'lead_1')?.failures).toBe(3);
    expect(getPosition(h.ctx, 'lead_1')).toMatchObject({ endReason: 'enrichment_failed', stepId: null });
    expect(h.lead('lead_1')).toMatchObject({ stage: 'failed', nextActionAt: null });
    h.ctx.clock.advance(DAY);
    await h.tick();
    expect(net.calls).toEqual([]);
  });

  it("waits for the next day when the sender's profile lookups for today are used up", async () => {
    const { h, notes } = setup([{ slug: 'ada-lovelace-sim-never-accepts' }]);
    const day = utcDay(h.ctx.simClock.now());
    h.ctx.db.insert(accountDaily).values({ accountId: 'acc_a', day, profileLookups: 80 }).run();
    await h.tick();
    expect(notes()).toEqual([]);
    expect(enrichmentOf(h.ctx, 'lead_1')).toBeNull();
    const until = h.lead('lead_1').nextActionAt!;
    expect(utcDay(until)).not.toBe(day);
    h.ctx.clock.advance(until - h.ctx.simClock.now());
    await h.runUntil(() => notes().length === 1, MINUTE, 100);
    expect(notes()[0]).toMatch(/^Hi Ada,/);
  });

  it("names the person in a draft waiting for approval, and the draft's sender is the account that looked the lead up", async () => {
    const { h, lookups } = setup([{ slug: 'ada-lovelace-sim-never-accepts' }], { approval: 'required' });
    await h.runUntil(() => h.ctx.db.select().from(drafts).all().length === 1, MINUTE, 50);
    const [draft] = h.ctx.db.select().from(drafts).all();
    expect(draft).toMatchObject({ leadId: 'lead_1', accountId: 'acc_a' });
    expect(draft?.text).toMatch(/^Hi Ada, I work with fintechs like /);
    expect(lookups()).toBe(1);
  });

  it('writes only the blank fields the profile has, makes the lead findable by its new name at once, and leaves a deleted lead alone', () => {
    const { h } = setup([{ slug: 'ada-lovelace-sim-never-accepts', companyName: 'Given Co', headline: '   ' }]);
    const profile = simPerson('ada-lovelace-sim-never-accepts').profile;
    const find = (query: string) => searchLeads(h.ctx, { campaignId: 'cmp', query, limit: 5 }).leads.map((l) => l.id);
    expect(find('Ada Lov')).toEqual([]);
    expect(find('Given')).toEqual(['lead_1']);
    const before = h.lead('lead_1').updatedAt;
    expect(recordProfile(h.ctx, 'lead_1', profile, before + 1_000)).toEqual({ kind: 'enriched' });
    // A blank field counts as empty; the customer's company stays as given.
    expect(h.lead('lead_1')).toMatchObject({
      firstName: 'Ada',
      fullName: 'Ada Lovelace',
      headline: profile.headline,
      companyName: 'Given Co',
      updatedAt: before + 1_000,
    });
    expect(find('ada lov')).toEqual(['lead_1']);
    expect(find('lovel')).toEqual(['lead_1']);
    // Nothing left to fill: nothing is written, not even the lead's time.
    recordProfile(h.ctx, 'lead_1', profile, before + 2_000);
    expect(h.lead('lead_1').updatedAt).toBe(before + 1_000);
    // A lead deleted while it was looked up gets no record, even from a profile with no name.
    const nameless = simPerson('sim-no-name-sim-never-accepts').profile;
    expect(recordProfile(h.ctx, 'lead_gone', nameless, before)).toEqual({ kind: 'enriched' });
    expect(enrichmentOf(h.ctx, 'lead_gone')).toBeNull();
  });
});
