import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { campaigns, creditBalance, creditLedger, exclusions, leads } from '../../src/db/schema.js';
import { fixture } from '../helpers.js';
import { openSession, TRANSPORTS, type Session } from './call.js';

const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;

function workspace() {
  const w = fixture();
  const q4 = w.campaigns!.find((c) => c.id === 'cmp_q4')!;
  q4.leads = [...(q4.leads ?? []), ...['b', 'c', 'd', 'e'].map((x) => ({ id: `lead_${x}`, networkUrl: url(`person-${x}`) }))];
  const running = w.campaigns!.find((c) => c.id === 'cmp_running')!;
  running.leads = [{ id: 'lead_elsewhere', networkUrl: url('person-b') }];
  const importing = w.campaigns!.find((c) => c.id === 'cmp_import')!;
  importing.leads = [{ id: 'lead_importing', networkUrl: url('person-i') }];
  return w;
}

describe.each(TRANSPORTS)('delete_leads_batch over %s', (transport) => {
  let s: Session;
  afterEach(() => s?.close());
  const db = () => s.server.ctx.db;
  const ids = (campaignId: string) =>
    db()
      .select({ id: leads.id })
      .from(leads)
      .where(eq(leads.campaignId, campaignId))
      .all()
      .map((l) => l.id)
      .sort();
  const campaign = (id: string) => db().select().from(campaigns).where(eq(campaigns.id, id)).get()!;
  const del = (leadIds: unknown, campaignId = 'cmp_q4') => s.call('delete_leads_batch', { campaignId, leadIds });

  it('deletes permanently with a status per item, keeps totals true and refunds nothing', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const added = await s.call('add_lead', { campaignId: 'cmp_q4', networkUrl: url('paid-for') });
    const creditsBefore = db().select().from(creditBalance).get()!.credits;
    s.server.ctx.clock.advance(1_000);
    const r = await del(['lead_b', 'lead_missing', 'not an id!', 'c', 'lead_c', added.body.leadId, 'lead_elsewhere', 'lead_b']);
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      { index: 0, leadId: 'lead_b', status: 'deleted' },
      { index: 1, leadId: 'lead_missing', status: 'not_found', error: expect.objectContaining({ code: 'not_found' }) },
      { index: 2, leadId: 'not an id!', status: 'validation_error', error: expect.objectContaining({ code: 'validation_error' }) },
      { index: 3, leadId: 'lead_c', status: 'deleted' },
      { index: 4, leadId: 'lead_c', status: 'validation_error', error: expect.objectContaining({ code: 'validation_error' }) },
      { index: 5, leadId: added.body.leadId, status: 'deleted' },
      { index: 6, leadId: 'lead_elsewhere', status: 'not_found', error: expect.objectContaining({ code: 'not_found' }) },
      { index: 7, leadId: 'lead_b', status: 'validation_error', error: expect.objectContaining({ code: 'validation_error' }) },
    ]);
    expect(r.body.summary).toEqual({ total: 8, deleted: 3, not_found: 2, validation_error: 3, failed: 0 });
    expect(r.body.creditsCharged).toBe(0);
    expect(r.body.reconciliationFailed).toBe(false);

    expect(ids('cmp_q4')).toEqual(['lead_ada1', 'lead_d', 'lead_e']);
    expect(ids('cmp_running')).toEqual(['lead_elsewhere']);
    expect(campaign('cmp_q4')).toMatchObject({ totalLeads: 3, updatedAt: s.server.ctx.clock.now() });
    expect(db().select().from(creditBalance).get()!.credits).toBe(creditsBefore);
    expect(db().select().from(creditLedger).where(eq(creditLedger.reason, 'lead_created')).all()).toHaveLength(1);
  });

  it('answers not_found for ids already deleted by an earlier call', async () => {
    s = await openSession(transport, { workspace: workspace() });
    expect((await del(['lead_b', 'lead_c'])).body.summary.deleted).toBe(2);
    const again = await del(['lead_b', 'lead_c']);
    expect(again.status).toBe(200);
    expect(again.body.results.map((x: any) => x.status)).toEqual(['not_found', 'not_found']);
    expect(again.body.summary).toEqual({ total: 2, deleted: 0, not_found: 2, validation_error: 0, failed: 0 });
    expect(campaign('cmp_q4').totalLeads).toBe(3);
  });

  it('lets a deleted profile be added again, charged again, and leaves the exclusion list alone', async () => {
    s = await openSession(transport, { workspace: workspace() });
    await s.call('update_lead', { campaignId: 'cmp_q4', leadId: 'lead_d', excluded: true });
    await del(['lead_b', 'lead_d']);
    expect(
      db()
        .select()
        .from(exclusions)
        .all()
        .map((e) => e.networkUrl),
    ).toContain(url('person-d'));
    const again = await s.call('add_lead', { campaignId: 'cmp_q4', networkUrl: url('person-b') });
    expect(again.body).toMatchObject({ status: 'created', creditsCharged: 1 });
    expect((await s.call('add_lead', { campaignId: 'cmp_q4', networkUrl: url('person-d') })).body.status).toBe('excluded');
  });

  it('answers 409 conflict while the campaign is importing, deleting nothing', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await del(['lead_importing'], 'cmp_import');
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('conflict');
    expect(ids('cmp_import')).toEqual(['lead_importing']);
  });

  it('answers 404 for an unknown campaign and 400 for a malformed one', async () => {
    s = await openSession(transport, { workspace: workspace() });
    expect((await del(['lead_b'], 'cmp_nope')).status).toBe(404);
    const bad = await del(['lead_b'], 'cmp nope!');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields).toEqual(['campaignId']);
    expect(ids('cmp_q4')).toContain('lead_b');
  });

  it.each([
    ['no ids', [], ['leadIds']],
    ['101 ids', Array.from({ length: 101 }, (_v, i) => `lead_${i}`), ['leadIds']],
    ['a numeric id', ['lead_b', 7], ['leadIds[1]']],
    ['a null id', [null], ['leadIds[0]']],
    ['an object id', [{ id: 'lead_b' }], ['leadIds[0]']],
    ['ids that are not an array', 'lead_b', ['leadIds']],
  ] as const)('refuses %s as a whole-request 400 with nothing deleted', async (_what, leadIds, fields) => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await del(leadIds);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details.fields).toEqual(fields);
    expect(ids('cmp_q4')).toHaveLength(5);
  });

  it('refuses an unknown top-level key', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await s.call('delete_leads_batch', { campaignId: 'cmp_q4', leadIds: ['lead_b'], cascade: true });
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields).toEqual(['cascade']);
    expect(ids('cmp_q4')).toContain('lead_b');
  });

  it('takes exactly 100 ids', async () => {
    s = await openSession(transport, { workspace: workspace() });
    const r = await del(['lead_b', ...Array.from({ length: 99 }, (_v, i) => `lead_gone${i}`)]);
    expect(r.body.summary).toEqual({ total: 100, deleted: 1, not_found: 99, validation_error: 0, failed: 0 });
  });

  it('stops at a write failure: deleted rows stay deleted, that row and the rest are failed', async () => {
    s = await openSession(transport, { workspace: workspace() });
    s.server.ctx.faults = {
      hit: (point, subject) => {
        if (point === 'leads.delete.item' && subject === 'lead_d') throw new Error('disk I/O error');
      },
    };
    const r = await del(['lead_b', 'lead_c', 'lead_d', 'lead_e']);
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => x.status)).toEqual(['deleted', 'deleted', 'failed', 'failed']);
    expect(r.body.results[2].error.code).toBe('upstream_unavailable');
    expect(r.body.summary).toMatchObject({ deleted: 2, failed: 2 });
    expect(r.body.reconciliationFailed).toBe(false);
    expect(ids('cmp_q4')).toEqual(['lead_ada1', 'lead_d', 'lead_e']);
    expect(campaign('cmp_q4').totalLeads).toBe(3);
  });

  it('says reconciliationFailed when the totals refresh fails, while the deletes and the count stand', async () => {
    s = await openSession(transport, { workspace: workspace() });
    s.server.ctx.faults = {
      hit: (point) => {
        if (point === 'leads.delete.reconcile') throw new Error('database is locked');
      },
    };
    const r = await del(['lead_b', 'lead_c']);
    expect(r.status).toBe(200);
    expect(r.body.summary.deleted).toBe(2);
    expect(r.body.reconciliationFailed).toBe(true);
    expect(ids('cmp_q4')).toEqual(['lead_ada1', 'lead_d', 'lead_e']);
    expect(campaign('cmp_q4').totalLeads).toBe(3);
    // Nothing deleted, nothing to reconcile.
    expect((await del(['lead_b'])).body.reconciliationFailed).toBe(false);
  });

  it('repairs a drifted total on the refresh after a delete', async () => {
    s = await openSession(transport, { workspace: workspace() });
    db().update(campaigns).set({ totalLeads: 42 }).where(eq(campaigns.id, 'cmp_q4')).run();
    await del(['lead_b']);
    expect(campaign('cmp_q4').totalLeads).toBe(4);
  });
});
