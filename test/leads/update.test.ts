import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { exclusions, leads, webhookEvents } from '../../src/db/schema.js';
import { fixture } from '../helpers.js';
import { openSession, TRANSPORTS, type Session } from './call.js';

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;

/**
 * The fixture plus leads that share profiles across campaigns: Ada is in cmp_q4 and
 * cmp_running; Grace waits on our reply in cmp_q4 and is also in cmp_running; one lead has no URL.
 */
function workspace() {
  const w = fixture();
  const q4 = w.campaigns!.find((c) => c.id === 'cmp_q4')!;
  q4.leads = [
    ...(q4.leads ?? []),
    { id: 'lead_grace', networkUrl: url('grace-hopper'), firstName: 'Grace', replied: true, needsReply: true, stage: 'replied' },
    { id: 'lead_nourl', networkUrl: null, fullName: 'No Url' },
    { id: 'lead_x', networkUrl: url('x-person'), tag: 'Interested', taggedAt: '2026-11-10T10:00:00Z' },
  ];
  const running = w.campaigns!.find((c) => c.id === 'cmp_running')!;
  running.leads = [
    { id: 'lead_ada2', networkUrl: url('ada-lovelace') },
    { id: 'lead_grace2', networkUrl: url('grace-hopper') },
  ];
  const paused = w.campaigns!.find((c) => c.id === 'cmp_paused')!;
  paused.leads = [{ id: 'lead_elsewhere', networkUrl: url('someone-else') }];
  return w;
}

function harness(session: () => Session) {
  const db = () => session().server.ctx.db;
  return {
    lead: (id: string) => db().select().from(leads).where(eq(leads.id, id)).get()!,
    excludedUrls: () =>
      db()
        .select()
        .from(exclusions)
        .all()
        .map((e) => e.networkUrl)
        .sort(),
    events: () =>
      db()
        .select()
        .from(webhookEvents)
        .all()
        .map((e) => JSON.parse(e.payload)),
    now: () => session().server.ctx.clock.now(),
  };
}

describe.each(TRANSPORTS)('update_lead over %s', (transport) => {
  let s: Session;
  afterEach(() => s?.close());
  const h = harness(() => s);
  const patch = (leadId: string, body: Record<string, unknown>, campaignId = 'cmp_q4') => s.call('update_lead', { campaignId, leadId, ...body });

  it('sets a tag: taggedAt moves, one lead.tagged event carries tag and previousTag', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await patch('lead_ada1', { tag: 'Interested' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ leadId: 'lead_ada1', tag: 'Interested', excluded: false });
    expect(h.lead('lead_ada1')).toMatchObject({ tag: 'Interested', taggedAt: h.now(), excluded: false });
    const events = h.events();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'lead.tagged',
      data: { tag: 'Interested', previousTag: null, accountId: 'acc_ada', campaign: { id: 'cmp_q4' }, lead: { id: 'lead_ada1', tag: 'Interested' } },
    });
  });

  it('changes a tag: taggedAt moves again and the event names the previous tag', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const before = h.lead('lead_x').taggedAt;
    s.server.ctx.clock.advance(5_000);
    const r = await patch('lead_x', { tag: 'Meeting request' });
    expect(r.body).toEqual({ leadId: 'lead_x', tag: 'Meeting request', excluded: false });
    expect(h.lead('lead_x').taggedAt).toBe(h.now());
    expect(h.lead('lead_x').taggedAt).not.toBe(before);
    expect(h.events().map((e) => e.data)).toEqual([expect.objectContaining({ tag: 'Meeting request', previousTag: 'Interested' })]);
  });

  it('does nothing for the same tag again: taggedAt stays, no event', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const before = h.lead('lead_x');
    s.server.ctx.clock.advance(5_000);
    const r = await patch('lead_x', { tag: 'Interested' });
    expect(r.body).toEqual({ leadId: 'lead_x', tag: 'Interested', excluded: false });
    expect(h.lead('lead_x').taggedAt).toBe(before.taggedAt);
    expect(h.lead('lead_x').updatedAt).toBe(before.updatedAt);
    expect(h.events()).toEqual([]);
  });

  it('clears a tag with null: taggedAt clears and no event is sent', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await patch('lead_x', { tag: null });
    expect(r.body).toEqual({ leadId: 'lead_x', tag: null, excluded: false });
    expect(h.lead('lead_x')).toMatchObject({ tag: null, taggedAt: null });
    expect(h.events()).toEqual([]);
  });

  it('excludes workspace-wide with excluded: true: the list and every lead with the URL in every campaign', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await patch('lead_ada1', { excluded: true });
    expect(r.body).toEqual({ leadId: 'lead_ada1', tag: null, excluded: true });
    expect(h.lead('lead_ada1').excluded).toBe(true);
    expect(h.lead('lead_ada2').excluded).toBe(true);
    expect(h.lead('lead_grace').excluded).toBe(false);
    expect(h.excludedUrls()).toEqual([url('ada-lovelace'), url('do-not-contact')]);
    // A later add of the profile anywhere is stored excluded.
    const added = await s.call('add_lead', { campaignId: 'cmp_paused', networkUrl: url('ada-lovelace') });
    expect(added.body.status).toBe('excluded');
    expect(h.events()).toEqual([]);
  });

  it('excludes only the lead itself when it has no profile URL', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await patch('lead_nourl', { excluded: true });
    expect(r.body).toEqual({ leadId: 'lead_nourl', tag: null, excluded: true });
    expect(h.excludedUrls()).toEqual([url('do-not-contact')]);
    expect(h.lead('lead_ada1').excluded).toBe(false);
  });

  it.each(['Not interested', 'Wrong person'])('excludes at once for %s when the lead is not waiting on a reply', async (tag) => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await patch('lead_ada1', { tag });
    expect(r.body).toEqual({ leadId: 'lead_ada1', tag, excluded: true });
    expect(h.lead('lead_ada2').excluded).toBe(true);
    expect(h.lead('lead_ada1').politeClosePendingAt).toBeNull();
    expect(h.excludedUrls()).toContain(url('ada-lovelace'));
    expect(h.events()).toEqual([
      expect.objectContaining({ type: 'lead.tagged', data: expect.objectContaining({ tag, lead: expect.objectContaining({ excluded: true }) }) }),
    ]);
  });

  it('defers exclusion behind a polite close for a lead waiting on our reply', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await patch('lead_grace', { tag: 'Not interested' });
    expect(r.body).toEqual({ leadId: 'lead_grace', tag: 'Not interested', excluded: false });
    expect(h.lead('lead_grace')).toMatchObject({ tag: 'Not interested', excluded: false, politeClosePendingAt: h.now(), taggedAt: h.now() });
    expect(h.lead('lead_grace2').excluded).toBe(false);
    expect(h.excludedUrls()).toEqual([url('do-not-contact')]);
    expect(h.events()).toHaveLength(1);

    // A new tag replaces the pending close.
    const changed = await patch('lead_grace', { tag: 'Interested' });
    expect(changed.body).toEqual({ leadId: 'lead_grace', tag: 'Interested', excluded: false });
    expect(h.lead('lead_grace').politeClosePendingAt).toBeNull();
  });

  it('excludes at once when the auto-exclude tag comes with excluded: true, polite close or not', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await patch('lead_grace', { tag: 'Wrong person', excluded: true });
    expect(r.body).toEqual({ leadId: 'lead_grace', tag: 'Wrong person', excluded: true });
    expect(h.lead('lead_grace').politeClosePendingAt).toBeNull();
    expect(h.lead('lead_grace2').excluded).toBe(true);
  });

  it('drops a pending polite close when the lead is excluded explicitly', async () => {
    s = await openSession(transport, { workspace: workspace() });
    await patch('lead_grace', { tag: 'Not interested' });
    const r = await patch('lead_grace', { excluded: true });
    expect(r.body).toEqual({ leadId: 'lead_grace', tag: 'Not interested', excluded: true });
    expect(h.lead('lead_grace').politeClosePendingAt).toBeNull();
  });

  it('takes a lead back with excluded: false: its flag and the list entry clear, other leads keep theirs', async () => {
    s = await openSession(transport, { workspace: workspace() });
    await patch('lead_ada1', { excluded: true });
    const r = await patch('lead_ada1', { excluded: false });
    expect(r.body).toEqual({ leadId: 'lead_ada1', tag: null, excluded: false });
    expect(h.lead('lead_ada2').excluded).toBe(true);
    expect(h.excludedUrls()).toEqual([url('do-not-contact')]);
  });

  it('refuses an auto-exclude tag together with excluded: false', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await patch('lead_ada1', { tag: 'Not interested', excluded: false });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details.fields).toEqual(['tag', 'excluded']);
    expect(h.lead('lead_ada1').tag).toBeNull();
  });

  it.each([
    ['neither tag nor excluded', {}, ['tag', 'excluded']],
    ['an unknown tag', { tag: 'Maybe' }, ['tag']],
    ['a tag of the wrong case', { tag: 'interested' }, ['tag']],
    ['a string for excluded', { excluded: 'true' }, ['excluded']],
    ['an unknown field', { tag: 'Interested', note: 'x' }, ['note']],
  ] as const)('refuses %s with 400', async (_what, body, fields) => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await patch('lead_ada1', body);
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields).toEqual(fields);
  });

  it('answers 400 naming leadId for a malformed id, and 404 for an unknown lead, a lead of another campaign or an unknown campaign', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const bad = await patch('lead ada!', { tag: 'Interested' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields).toEqual(['leadId']);
    for (const [leadId, campaignId] of [
      ['lead_missing', 'cmp_q4'],
      ['lead_elsewhere', 'cmp_q4'],
      ['lead_ada1', 'cmp_nope'],
    ] as const) {
      const r = await patch(leadId, { tag: 'Interested' }, campaignId);
      expect(r.status, `${leadId} in ${campaignId}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect(h.lead('lead_elsewhere').tag).toBeNull();
  });
});

describe.each(TRANSPORTS)('update_leads_batch over %s', (transport) => {
  let s: Session;
  afterEach(() => s?.close());
  const h = harness(() => s);
  const batch = (updates: unknown, extra: Record<string, unknown> = {}) => s.call('update_leads_batch', { campaignId: 'cmp_q4', updates, ...extra });

  it('answers each item in order with soft failures and an exact summary', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await batch([
      { leadId: 'lead_ada1', tag: 'Meeting request' },
      { leadId: 'lead_missing', tag: 'Interested' },
      { leadId: 'bad id!', tag: 'Interested' },
      { leadId: 'x', excluded: true },
      { leadId: 'lead_x', tag: 'To be defined' },
      { leadId: 'ada1', tag: 'Interested' },
      { leadId: 'lead_nourl', tag: 'Not interested', excluded: false },
      { leadId: 'lead_elsewhere', tag: 'Interested' },
      { leadId: 'lead_grace', tag: null, excluded: false },
    ]);
    expect(r.status).toBe(200);
    const results = r.body.results;
    expect(results[0]).toEqual({ index: 0, leadId: 'lead_ada1', status: 'updated', tag: 'Meeting request', excluded: false });
    expect(results[1]).toMatchObject({ index: 1, leadId: 'lead_missing', status: 'not_found', tag: null, excluded: null, error: { code: 'not_found' } });
    expect(results[2]).toMatchObject({ index: 2, leadId: 'bad id!', status: 'validation_error', error: { code: 'validation_error' } });
    expect(results[3]).toEqual({ index: 3, leadId: 'lead_x', status: 'updated', tag: 'Interested', excluded: true });
    expect(results[4]).toMatchObject({ index: 4, leadId: 'lead_x', status: 'validation_error', tag: null, excluded: null });
    expect(results[4].error.message).toContain('updates[3]');
    expect(results[5]).toMatchObject({ index: 5, leadId: 'lead_ada1', status: 'validation_error' });
    expect(results[6]).toMatchObject({ index: 6, leadId: 'lead_nourl', status: 'validation_error' });
    expect(results[7]).toMatchObject({ index: 7, leadId: 'lead_elsewhere', status: 'not_found' });
    expect(results[8]).toEqual({ index: 8, leadId: 'lead_grace', status: 'updated', tag: null, excluded: false });
    expect(r.body.summary).toEqual({ total: 9, updated: 3, not_found: 2, validation_error: 4, failed: 0 });
    expect(r.body.creditsCharged).toBe(0);

    // Only the first of x / lead_x landed.
    expect(h.lead('lead_x')).toMatchObject({ tag: 'Interested', excluded: true });
    expect(h.lead('lead_ada1').tag).toBe('Meeting request');
    expect(h.lead('lead_nourl').tag).toBeNull();
    expect(h.lead('lead_elsewhere').tag).toBeNull();
    expect(h.events().map((e) => [e.data.lead.id, e.data.tag])).toEqual([['lead_ada1', 'Meeting request']]);
  });

  it('applies the 64-character rule to the id as sent, before the prefix is added', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await batch([
      { leadId: 'a'.repeat(64), tag: 'Interested' },
      { leadId: 'b'.repeat(65), tag: 'Interested' },
      { leadId: '', tag: 'Interested' },
    ]);
    expect(r.body.results.map((x: any) => [x.leadId, x.status])).toEqual([
      [`lead_${'a'.repeat(64)}`, 'not_found'],
      ['b'.repeat(65), 'validation_error'],
      ['', 'validation_error'],
    ]);
  });

  it('applies auto-exclude tags at once, workspace-wide, even for a lead waiting on our reply', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await batch([
      { leadId: 'lead_grace', tag: 'Not interested' },
      { leadId: 'lead_ada1', tag: 'Wrong person' },
      { leadId: 'lead_nourl', tag: 'Not interested' },
    ]);
    expect(r.body.results.map((x: any) => x.excluded)).toEqual([true, true, true]);
    expect(h.lead('lead_grace').politeClosePendingAt).toBeNull();
    expect(h.lead('lead_grace2').excluded).toBe(true);
    expect(h.lead('lead_ada2').excluded).toBe(true);
    expect(h.excludedUrls()).toEqual([url('ada-lovelace'), url('do-not-contact'), url('grace-hopper')]);
    expect(h.events()).toHaveLength(3);
  });

  it('records one lead.tagged per changed tag and none for a repeated tag or a cleared one', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const taggedAt = h.lead('lead_x').taggedAt;
    await batch([
      { leadId: 'lead_x', tag: 'Interested' },
      { leadId: 'lead_ada1', tag: 'Information request' },
      { leadId: 'lead_grace', tag: 'Meeting request' },
    ]);
    expect(h.lead('lead_x').taggedAt).toBe(taggedAt);
    expect(
      h
        .events()
        .map((e) => e.data.lead.id)
        .sort(),
    ).toEqual(['lead_ada1', 'lead_grace']);
    await batch([{ leadId: 'lead_ada1', tag: null }]);
    expect(h.events()).toHaveLength(2);
  });

  const item = (i: number) => ({ leadId: `lead_n${i}`, tag: 'Interested' });

  it.each([
    ['an unknown tag', [{ leadId: 'lead_ada1', tag: 'Hot' }], ['updates[0].tag']],
    ['an item with neither tag nor excluded', [item(0), { leadId: 'lead_ada1' }], ['updates[1].tag', 'updates[1].excluded']],
    ['an item without leadId', [{ tag: 'Interested' }], ['updates[0].leadId']],
    ['a numeric leadId', [{ leadId: 42, tag: 'Interested' }], ['updates[0].leadId']],
    ['a string for excluded', [{ leadId: 'lead_ada1', excluded: 'yes' }], ['updates[0].excluded']],
    ['an unknown item key', [{ leadId: 'lead_ada1', tag: 'Interested', note: 'x' }], ['updates[0].note']],
    ['no items', [], ['updates']],
    ['101 items', Array.from({ length: 101 }, (_v, i) => item(i)), ['updates']],
    ['updates that is not an array', { leadId: 'lead_ada1', tag: 'Interested' }, ['updates']],
  ] as const)('refuses %s as a whole-request 400 with nothing applied', async (_what, updates, fields) => {
    s = await openSession(transport, { workspace: workspace() });
    // A valid item rides along at the end (when it fits) to show nothing at all is applied.
    const valid = { leadId: 'lead_x', tag: 'Meeting request' };
    const fits = Array.isArray(updates) && updates.length >= 1 && updates.length < 100;
    const r = await batch(fits ? [...(updates as unknown[]), valid] : updates);
    expect(h.lead('lead_x').tag).toBe('Interested');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details.fields).toEqual(fields);
    expect(h.events()).toEqual([]);
  });

  it('refuses an unknown top-level key', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await batch([item(0)], { force: true });
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields).toEqual(['force']);
  });

  it('answers 404 for an unknown campaign', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await s.call('update_leads_batch', { campaignId: 'cmp_nope', updates: [item(0)] });
    expect(r.status).toBe(404);
  });

  it('after a failure mid-batch still answers 200: applied rows are updated, that row and the rest failed', async () => {
    s = await openSession(transport, { workspace: workspace() });
    s.server.ctx.faults = {
      hit: (point, subject) => {
        if (point === 'leads.update.item' && subject === 'lead_grace') throw new Error('database is locked');
      },
    };
    const r = await batch([
      { leadId: 'lead_ada1', tag: 'Not interested' },
      { leadId: 'lead_missing', tag: 'Interested' },
      { leadId: 'lead_grace', tag: 'Wrong person' },
      { leadId: 'lead_x', tag: 'Meeting request' },
      { leadId: 'bad id!', tag: 'Interested' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => x.status)).toEqual(['updated', 'not_found', 'failed', 'failed', 'failed']);
    expect(r.body.results[0]).toEqual({ index: 0, leadId: 'lead_ada1', status: 'updated', tag: 'Not interested', excluded: true });
    expect(r.body.results[2]).toMatchObject({ leadId: 'lead_grace', tag: null, excluded: null, error: { code: 'upstream_unavailable' } });
    expect(r.body.summary).toEqual({ total: 5, updated: 1, not_found: 1, validation_error: 0, failed: 3 });
    // The first row's writes are durable; the failed row's writes rolled back whole.
    expect(h.lead('lead_ada2').excluded).toBe(true);
    expect(h.lead('lead_grace')).toMatchObject({ tag: null, excluded: false });
    expect(h.lead('lead_grace2').excluded).toBe(false);
    expect(h.lead('lead_x').tag).toBe('Interested');
    expect(h.events().map((e) => e.data.lead.id)).toEqual(['lead_ada1']);
  });
});
