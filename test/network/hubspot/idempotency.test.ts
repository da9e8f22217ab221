import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crmError, lead, type Rig, rig } from './helpers.js';

let r: Rig;
let contactId: string;
beforeEach(async () => {
  r = await rig();
  contactId = (await r.crm.upsertContact(lead())).contactId;
});
afterEach(async () => {
  await r.hs.stop();
});

const deal = (pushId: string) => ({ pushId, name: 'Ada Lovelace: Interested', pipelineId: null, stageId: null, ownerId: null });

describe('HubSpot creates are idempotent by pushId', () => {
  it('a note is associated with the contact (note to contact, type 202), its text escaped and its push marked', async () => {
    const at = Date.UTC(2026, 10, 2, 9, 30);
    const out = await r.crm.addNote(contactId, { pushId: 'push-1', body: 'Replied: "yes <please>"\nTalk Tuesday', at });
    expect(out.created).toBe(true);
    const notes = r.hs.associated(contactId, 'notes');
    expect(notes.map((n) => n.id)).toEqual([out.noteId]);
    expect(notes[0]?.properties.hs_timestamp).toBe(new Date(at).toISOString());
    expect(notes[0]?.properties.hs_note_body).toBe('<p>Replied: "yes &lt;please&gt;"<br>Talk Tuesday</p><p>[outreach push push-1]</p>');
  });

  it('a retried note answers the first one and makes none', async () => {
    const first = await r.crm.addNote(contactId, { pushId: 'push-1', body: 'Invitation sent', at: 1 });
    const again = await r.crm.addNote(contactId, { pushId: 'push-1', body: 'Invitation sent', at: 1 });
    expect(again).toEqual({ noteId: first.noteId, created: false });
    const other = await r.crm.addNote(contactId, { pushId: 'push-2', body: 'Message sent', at: 2 });
    expect(other.created).toBe(true);
    expect(r.hs.associated(contactId, 'notes')).toHaveLength(2);
    expect(r.hs.count('notes.create')).toBe(2);
  });

  it('a note whose create was carried out but whose answer was lost is found by the retry, not made twice', async () => {
    r.hs.fail({ kind: 'notes.create', dropAfterServe: true });
    const lost = await crmError(r.crm.addNote(contactId, { pushId: 'push-9', body: 'Reply received', at: 5 }));
    expect(lost.retryable).toBe(true);
    expect(r.hs.associated(contactId, 'notes')).toHaveLength(1);
    const retried = await r.crm.addNote(contactId, { pushId: 'push-9', body: 'Reply received', at: 5 });
    expect(retried.created).toBe(false);
    expect(retried.noteId).toBe(r.hs.associated(contactId, 'notes')[0]?.id);
    expect(r.hs.associated(contactId, 'notes')).toHaveLength(1);
  });

  it('finds the pushed note among more notes than one association page holds', async () => {
    for (let i = 0; i < 620; i++) r.hs.addNote(contactId, `<p>logged by hand ${i}</p>`);
    const pushed = await r.crm.addNote(contactId, { pushId: 'late', body: 'Reply received', at: 9 });
    r.hs.resetCounts();
    const again = await r.crm.addNote(contactId, { pushId: 'late', body: 'Reply received', at: 9 });
    expect(again).toEqual({ noteId: pushed.noteId, created: false });
    // 621 notes: two association pages (500 a page), seven batch reads (100 a read).
    expect(r.hs.count('associations.read')).toBe(2);
    expect(r.hs.count('notes.batchRead')).toBe(7);
    expect(r.hs.count('notes.create')).toBe(0);
  });

  it('a deal goes in the pipeline and stage, with the owner, associated with the contact (deal to contact, type 3)', async () => {
    r.hs.pipelines.set('outbound', ['new', 'meeting', 'won']);
    const out = await r.crm.openDeal(contactId, { pushId: 'deal-1', name: 'Ada: Meeting request', pipelineId: 'outbound', stageId: 'meeting', ownerId: '102' });
    expect(out.created).toBe(true);
    const deals = r.hs.associated(contactId, 'deals');
    expect(deals.map((d) => d.id)).toEqual([out.dealId]);
    expect(deals[0]?.properties).toMatchObject({
      dealname: 'Ada: Meeting request',
      pipeline: 'outbound',
      dealstage: 'meeting',
      hubspot_owner_id: '102',
      outreach_push_id: 'deal-1',
    });
  });

  it('without a pipeline, the deal goes in HubSpot’s default pipeline at its first stage', async () => {
    const out = await r.crm.openDeal(contactId, deal('deal-2'));
    expect(r.hs.objects.deals.get(out.dealId)?.properties).toMatchObject({ pipeline: 'default', dealstage: 'appointmentscheduled' });
  });

  it('a retried deal answers the first one, also when the first answer was lost and when two race', async () => {
    const first = await r.crm.openDeal(contactId, deal('deal-1'));
    expect(await r.crm.openDeal(contactId, deal('deal-1'))).toEqual({ dealId: first.dealId, created: false });

    r.hs.fail({ kind: 'deals.create', dropAfterServe: true });
    expect((await crmError(r.crm.openDeal(contactId, deal('deal-2')))).retryable).toBe(true);
    const retried = await r.crm.openDeal(contactId, deal('deal-2'));
    expect(retried.created).toBe(false);

    const [a, b] = await Promise.all([r.crm.openDeal(contactId, deal('deal-3')), r.crm.openDeal(contactId, deal('deal-3'))]);
    expect(a.dealId).toBe(b.dealId);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect(r.hs.associated(contactId, 'deals')).toHaveLength(3);
  });

  it('creates its two custom properties once, and a deal property with unique values', async () => {
    await r.crm.verify();
    await r.crm.openDeal(contactId, deal('deal-1'));
    expect(r.hs.count('properties.create')).toBe(2);
    expect(r.hs.properties.deals.get('outreach_push_id')?.hasUniqueValue).toBe(true);
    expect(r.hs.properties.contacts.get('outreach_do_not_contact')?.type).toBe('bool');
  });
});
