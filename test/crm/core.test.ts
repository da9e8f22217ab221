import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { crmSyncOf, type CrmSync } from '../../src/core/crm/config.js';
import { crmBacklog, crmStatus, listCrmPushes, listCrmSyncLog } from '../../src/core/crm/log.js';
import { claimPushes, completePush, INTERRUPTED, pushOnce } from '../../src/core/crm/outbox.js';
import { applyPulledContacts, pullCursor, pullDue, pullOnce } from '../../src/core/crm/pull.js';
import { updateLead } from '../../src/core/leads/update.js';
import { CrmError, type CrmContactInput, type CrmContactState, type CrmDeal, type CrmNote, type CrmPort } from '../../src/core/network/crm.js';
import { getPosition } from '../../src/core/sequences/store.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/core/webhooks/schedule.js';
import { crmContacts, crmPushes, exclusions } from '../../src/db/schema.js';
import { CrmWorker } from '../../src/workers/crm/worker.js';
import { connectMailbox } from '../../src/core/mailboxes/mailbox.js';
import { readMailbox } from '../../src/core/email/inbox.js';
import { sendEmail } from '../../src/core/email/send.js';
import { engineSettings, engineWorkspace, harness, type Harness, url } from '../engine/helpers.js';

const SECRET = 'cursor-secret';
const SYNC: CrmSync = crmSyncOf({ hubspot: { tokenEnv: 'HUBSPOT_TOKEN', pipelineId: 'default', stageId: 'appointmentscheduled', ownerMap: { acc_a: '42' } } })!;

/** A CRM in memory that counts what it is asked, holds each object once per push id, and fails on demand. */
class MemoryCrm implements CrmPort {
  readonly kind = 'memory';
  contacts = new Map<string, CrmContactInput & { id: string }>();
  notes: { id: string; contactId: string; pushId: string; body: string }[] = [];
  deals: { id: string; contactId: string; deal: CrmDeal }[] = [];
  calls: string[] = [];
  /** Answers before the call is made: throw to fail it. */
  before: (call: string) => void = () => {};
  changed: CrmContactState[] = [];
  private next = 100;
  async verify(): Promise<void> {}
  async upsertContact(c: CrmContactInput) {
    this.calls.push('contact');
    this.before('contact');
    const found = [...this.contacts.values()].find((x) => (c.email && x.email === c.email) || x.networkUrl === c.networkUrl);
    if (found) {
      Object.assign(found, c);
      return { contactId: found.id, created: false };
    }
    const id = String(this.next++);
    this.contacts.set(id, { ...c, id });
    return { contactId: id, created: true };
  }
  async addNote(contactId: string, note: CrmNote) {
    this.calls.push('note');
    this.before('note');
    const had = this.notes.find((n) => n.pushId === note.pushId);
    if (had) return { noteId: had.id, created: false };
    const id = String(this.next++);
    this.notes.push({ id, contactId, pushId: note.pushId, body: note.body });
    return { noteId: id, created: true };
  }
  async openDeal(contactId: string, deal: CrmDeal) {
    this.calls.push('deal');
    this.before('deal');
    const had = this.deals.find((d) => d.deal.pushId === deal.pushId);
    if (had) return { dealId: had.id, created: false };
    const id = String(this.next++);
    this.deals.push({ id, contactId, deal });
    return { dealId: id, created: true };
  }
  async changedContacts(cursor: string | null, limit: number) {
    const from = cursor === null ? 0 : Number(cursor);
    const contacts = this.changed.slice(from, from + limit);
    return { contacts, cursor: String(from + contacts.length) };
  }
}

const pushes = (h: Harness) => h.ctx.db.select().from(crmPushes).orderBy(asc(crmPushes.seq)).all();

function setup(sync: CrmSync | null = SYNC) {
  const h = harness(
    engineWorkspace([
      { slug: 'pat-sim-fast-accept-sim-replies-positive', firstName: 'Pat' },
      { slug: 'nora-sim-fast-accept-sim-no-reply', firstName: 'Nora' },
    ]),
  );
  if (sync) h.ctx.crm = sync;
  return h;
}

const replied = (h: Harness) => () => h.lead('lead_1').replied;

describe('the CRM outbox: what is queued', () => {
  it('without a crm config nothing is queued, whatever happens', async () => {
    const h = setup(null);
    await h.runUntil(replied(h), 10 * 60_000);
    updateLead(h.ctx, 'cmp', 'lead_1', { tag: 'Interested' });
    expect(pushes(h)).toEqual([]);
    expect(crmBacklog(h.ctx)).toMatchObject({ pending: 0, succeeded: 0, failed: 0 });
    expect(crmStatus(h.ctx).crm).toBeNull();
  });

  it('a reply makes the lead a contact with its history as notes, in order; a silent lead is never pushed', async () => {
    const h = setup();
    await h.runUntil(replied(h), 10 * 60_000);
    const rows = pushes(h);
    expect(rows.every((r) => r.leadId === 'lead_1')).toBe(true);
    expect(rows.map((r) => r.kind)).toEqual(['contact', 'note', ...rows.slice(2).map(() => 'note')]);
    expect(JSON.parse(rows[0]!.payload)).toEqual({
      email: null,
      networkUrl: url('pat-sim-fast-accept-sim-replies-positive'),
      firstName: 'Pat',
      lastName: 'Test',
      company: 'Acme',
      title: null,
    });
    const bodies = rows.slice(1).map((r) => (JSON.parse(r.payload) as { body: string }).body);
    expect(bodies[0]).toBe('LinkedIn invitation sent.');
    // The reply, then the agent's answer to it, each once.
    expect(bodies.filter((b) => b.startsWith('LinkedIn reply received:\n'))).toHaveLength(1);
    expect(bodies.findIndex((b) => b.startsWith('LinkedIn reply received:'))).toBeLessThan(
      bodies.findIndex((b) => b.startsWith('LinkedIn call to action sent:')),
    );
    expect(bodies.filter((b) => b.startsWith('LinkedIn message sent:')).length).toBeGreaterThanOrEqual(1);
    const times = rows.slice(1).map((r) => (JSON.parse(r.payload) as { at: number }).at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('a tag becomes a note; Interested opens one deal with pipeline, stage and owner, and a later Meeting request no second', async () => {
    const h = setup();
    await h.runUntil(replied(h), 10 * 60_000);
    const before = pushes(h).length;
    updateLead(h.ctx, 'cmp', 'lead_1', { tag: 'Interested' });
    // The contact push no attempt has taken yet is refreshed, not queued again.
    expect(
      pushes(h)
        .slice(before)
        .map((r) => r.kind),
    ).toEqual(['note', 'deal']);
    await new CrmWorker(h.ctx, new MemoryCrm()).drain();
    updateLead(h.ctx, 'cmp', 'lead_1', { tag: 'Meeting request' });
    const added = pushes(h).slice(before);
    expect(added.map((r) => r.kind)).toEqual(['note', 'deal', 'contact', 'note']);
    expect(JSON.parse(added[0]!.payload).body).toBe('Tagged Interested.');
    expect(JSON.parse(added[1]!.payload)).toEqual({
      name: 'Pat Test (Acme) – Engine test',
      pipelineId: 'default',
      stageId: 'appointmentscheduled',
      ownerId: '42',
    });
    expect(JSON.parse(added[3]!.payload).body).toBe('Tagged Meeting request (was Interested).');
  });

  it('a tag on a lead who never replied makes it a contact, its invitation and messages following', async () => {
    const h = setup();
    await h.runUntil(() => h.lead('lead_2').messageSent, 10 * 60_000);
    updateLead(h.ctx, 'cmp', 'lead_2', { tag: 'Not interested' });
    const rows = pushes(h).filter((r) => r.leadId === 'lead_2');
    expect(rows[0]!.kind).toBe('contact');
    expect(rows.map((r) => r.kind)).not.toContain('deal');
    expect((JSON.parse(rows.at(-1)!.payload) as { body: string }).body).toBe('Tagged Not interested.');
  });
});

describe('the CRM outbox: email', () => {
  it('an email to a contact, and its bounce, become notes as its history reads them', async () => {
    const h = setup();
    h.ctx.publicUrl = 'https://outreach.example.com';
    h.ctx.db.$client.prepare("UPDATE leads SET email = 'nora-sim-bounces@example.com' WHERE id = 'lead_2'").run();
    updateLead(h.ctx, 'cmp', 'lead_2', { tag: 'To be defined' });
    const { mailbox } = await connectMailbox(h.ctx, {
      name: 'm',
      address: 'm@outreach.test',
      sim: true,
      warmUp: false,
      dailyLimit: 200,
      workingHours: 'always',
      spacingSeconds: 10,
    });
    expect(await sendEmail(h.ctx, { mailboxId: mailbox.id, leadId: 'lead_2', subject: 'Hi Nora', text: 'A short note.' })).toMatchObject({ status: 'sent' });
    h.ctx.clock.advance(10 * 60_000);
    expect(await readMailbox(h.ctx, mailbox.id, engineSettings())).toMatchObject({ bounces: 1 });
    const notes = pushes(h)
      .filter((r) => r.leadId === 'lead_2' && r.kind === 'note')
      .map((r) => (JSON.parse(r.payload) as { body: string }).body);
    const tagged = notes.indexOf('Tagged To be defined.');
    expect(tagged).toBeGreaterThanOrEqual(0);
    expect(notes.slice(tagged + 1, tagged + 2)).toEqual(['Email message sent:\nHi Nora\n\nA short note.']);
    expect(notes.slice(tagged + 2)).toHaveLength(1);
    expect(notes.at(-1)).toMatch(/^Email bounced:\n/);
  });
});

describe('the CRM outbox: carrying pushes', () => {
  it('drains in order, links the contact, logs each push, and a repeated attempt makes nothing twice', async () => {
    const h = setup();
    await h.runUntil(replied(h), 10 * 60_000);
    updateLead(h.ctx, 'cmp', 'lead_1', { tag: 'Interested' });
    const crm = new MemoryCrm();
    const worker = new CrmWorker(h.ctx, crm, { concurrency: 4 });
    const total = pushes(h).length;
    expect(await worker.drain()).toBe(total);
    expect(crm.contacts.size).toBe(1);
    expect(crm.calls[0]).toBe('contact');
    const contactId = [...crm.contacts.keys()][0]!;
    expect(h.ctx.db.select().from(crmContacts).all()).toEqual([expect.objectContaining({ leadId: 'lead_1', crm: 'hubspot', contactId })]);
    expect(crm.notes.every((n) => n.contactId === contactId)).toBe(true);
    expect(crm.deals).toHaveLength(1);
    expect(crmBacklog(h.ctx)).toMatchObject({ pending: 0, succeeded: total, failed: 0 });
    const log = listCrmSyncLog(h.ctx, SECRET, { direction: 'push', limit: 200 });
    expect(log.entries).toHaveLength(total);
    expect(log.entries.every((e) => e.outcome === 'succeeded' && e.leadId === 'lead_1')).toBe(true);
    // The same push carried again (a crash between the call and its record) answers the first object.
    const note = pushes(h).find((r) => r.kind === 'note')!;
    const again = await pushOnce(h.ctx, crm, { id: note.id, leadId: 'lead_1', kind: 'note', payload: note.payload, attempt: 2 });
    expect(again).toBe('failed'); // already succeeded: the record stands
    expect(crm.notes.filter((n) => n.pushId === note.id)).toHaveLength(1);
  });

  it('an outage retries on the webhook schedule, the notes waiting behind their contact; nothing is lost', async () => {
    const h = setup();
    await h.runUntil(replied(h), 10 * 60_000);
    const crm = new MemoryCrm();
    crm.before = () => {
      throw new CrmError('HubSpot answered HTTP 503', true, 503);
    };
    const worker = new CrmWorker(h.ctx, crm, { concurrency: 4, rng: () => 0.5 });
    // Only the contact is tried: each note waits for it.
    expect(await worker.drain()).toBe(1);
    const contact = pushes(h)[0]!;
    expect(contact).toMatchObject({ kind: 'contact', state: 'pending', attempts: 1, lastError: 'HubSpot answered HTTP 503' });
    expect(contact.nextAttemptAt).toBe(h.ctx.clock.now() + RETRY_DELAYS_MS[0]!);
    expect(listCrmSyncLog(h.ctx, SECRET, { outcome: 'retrying', limit: 10 }).entries[0]!.detail).toMatch(
      /attempt 1 failed: HubSpot answered HTTP 503; next in 5 s/,
    );
    h.ctx.clock.advance(RETRY_DELAYS_MS[0]!);
    expect(await worker.drain()).toBe(1);
    expect(pushes(h)[0]!.attempts).toBe(2);
    // HubSpot is back: the contact, then every note.
    crm.before = () => {};
    h.ctx.clock.advance(RETRY_DELAYS_MS[1]!);
    const total = pushes(h).length;
    expect(await worker.drain()).toBe(total);
    expect(crmBacklog(h.ctx)).toMatchObject({ pending: 0, succeeded: total, failed: 0 });
    expect(crm.notes).toHaveLength(total - 1);
  });

  it('gives up after the last attempt; a bad request is not retried, and the notes behind a failed contact fail with it', async () => {
    const h = setup();
    await h.runUntil(replied(h), 10 * 60_000);
    const crm = new MemoryCrm();
    crm.before = (call) => {
      if (call === 'contact') throw new CrmError('HubSpot refused the contact: HTTP 400', false, 400);
    };
    const worker = new CrmWorker(h.ctx, crm);
    const total = pushes(h).length;
    expect(await worker.drain()).toBe(total);
    expect(crmBacklog(h.ctx)).toMatchObject({ pending: 0, failed: total });
    expect(pushes(h)[1]!.lastError).toBe('the lead has no CRM contact: its contact push failed');
    expect(crm.calls).toEqual(['contact']);
    const failed = listCrmSyncLog(h.ctx, SECRET, { outcome: 'failed', limit: 200 }).entries;
    expect(failed.at(-1)!.detail).toBe('not retried: HubSpot refused the contact: HTTP 400');

    // A retryable failure, every time: MAX_ATTEMPTS attempts, then failed.
    const h2 = setup();
    await h2.runUntil(replied(h2), 10 * 60_000);
    const down = new MemoryCrm();
    down.before = () => {
      throw new CrmError('HubSpot answered HTTP 502', true, 502);
    };
    const w2 = new CrmWorker(h2.ctx, down, { rng: () => 0.5 });
    for (const delay of [0, ...RETRY_DELAYS_MS]) {
      h2.ctx.clock.advance(delay);
      await w2.drain();
    }
    expect(pushes(h2)[0]).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS, nextAttemptAt: null });
    expect(down.calls).toHaveLength(MAX_ATTEMPTS);
  });

  it('a push cut off by a crash is leased, then claimed again with the same id after its lease, and its last attempt ends it', async () => {
    const h = setup();
    await h.runUntil(replied(h), 10 * 60_000);
    const [first] = claimPushes(h.ctx, 1, 60_000);
    expect(first).toMatchObject({ kind: 'contact', attempt: 1 });
    // Within the lease no one takes it, nor the notes behind it.
    expect(claimPushes(h.ctx, 10, 60_000)).toEqual([]);
    h.ctx.clock.advance(60_000);
    const [again] = claimPushes(h.ctx, 10, 60_000);
    expect(again).toMatchObject({ id: first!.id, attempt: 2 });
    const crm = new MemoryCrm();
    expect(await pushOnce(h.ctx, crm, again!)).toBe('succeeded');
    // The first attempt's late answer changes nothing.
    expect(completePush(h.ctx, first!, { ok: true, crmId: '1', created: true, contactId: '1' })).toBe('failed');

    // The last attempt cut off too: the push ends failed as interrupted.
    const h2 = setup();
    await h2.runUntil(replied(h2), 10 * 60_000);
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      expect(claimPushes(h2.ctx, 1, 1_000)).toHaveLength(1);
      h2.ctx.clock.advance(1_000);
    }
    claimPushes(h2.ctx, 1, 1_000);
    expect(pushes(h2)[0]).toMatchObject({ state: 'failed', lastError: INTERRUPTED, attempts: MAX_ATTEMPTS });
  });

  it('lists pushes and the log a page at a time, filtered, with cursors bound to their filter', async () => {
    const h = setup();
    await h.runUntil(replied(h), 10 * 60_000);
    const total = pushes(h).length;
    const first = listCrmPushes(h.ctx, SECRET, { state: 'pending', limit: 2 });
    expect(first.pushes).toHaveLength(2);
    expect(first.pushes[0]!.kind).toBe('note'); // newest first
    const rest = listCrmPushes(h.ctx, SECRET, { state: 'pending', limit: 200, cursor: first.nextCursor! });
    expect(rest.pushes).toHaveLength(total - 2);
    expect(rest.nextCursor).toBeNull();
    expect(() => listCrmPushes(h.ctx, SECRET, { state: 'failed', limit: 2, cursor: first.nextCursor! })).toThrow(/Invalid cursor/);
    await new CrmWorker(h.ctx, new MemoryCrm()).drain();
    const page = listCrmSyncLog(h.ctx, SECRET, { leadId: 'lead_1', limit: 3 });
    expect(page.entries).toHaveLength(3);
    const next = listCrmSyncLog(h.ctx, SECRET, { leadId: 'lead_1', limit: 200, cursor: page.nextCursor! });
    expect(page.entries.length + next.entries.length).toBe(total);
    expect(listCrmSyncLog(h.ctx, SECRET, { leadId: 'lead_2', limit: 10 }).entries).toEqual([]);
    expect(listCrmSyncLog(h.ctx, SECRET, { direction: 'pull', limit: 10 }).entries).toEqual([]);
  });
});

describe('the CRM pull', () => {
  const contact = (over: Partial<CrmContactState>): CrmContactState => ({
    contactId: '900',
    email: null,
    networkUrl: null,
    lifecycleStage: 'lead',
    doNotContact: false,
    updatedAt: 0,
    ...over,
  });

  it('a linked contact moved to customer ends its lead’s sequence as an exclusion does; the cursor is stored', async () => {
    const h = setup();
    await h.runUntil(replied(h), 10 * 60_000);
    await h.runUntil(() => h.lead('lead_2').messageSent, 10 * 60_000);
    updateLead(h.ctx, 'cmp', 'lead_2', { tag: 'Information request' });
    const crm = new MemoryCrm();
    await new CrmWorker(h.ctx, crm).drain();
    const link = h.ctx.db.select().from(crmContacts).where(eq(crmContacts.leadId, 'lead_2')).get()!;
    expect(getPosition(h.ctx, 'lead_2')?.stepId).not.toBeNull();
    expect(pullDue(h.ctx)).toBe(true);
    crm.changed = [contact({ contactId: link.contactId, lifecycleStage: 'lead' }), contact({ contactId: link.contactId, lifecycleStage: 'customer' })];
    expect(await pullOnce(h.ctx, crm)).toEqual({ read: 2, ended: 1, unmatched: 0 });
    expect(getPosition(h.ctx, 'lead_2')).toMatchObject({ stepId: null, endReason: 'excluded' });
    expect(h.lead('lead_2').excluded).toBe(true);
    expect(
      h.ctx.db
        .select()
        .from(exclusions)
        .all()
        .map((e) => e.networkUrl),
    ).toContain(url('nora-sim-fast-accept-sim-no-reply'));
    expect(pullCursor(h.ctx)).toBe('2');
    expect(pullDue(h.ctx)).toBe(false);
    h.ctx.clock.advance(SYNC.pollMs);
    expect(pullDue(h.ctx)).toBe(true);
    const log = listCrmSyncLog(h.ctx, SECRET, { direction: 'pull', limit: 10 }).entries;
    expect(log.map((e) => [e.kind, e.outcome, e.leadId, e.detail])).toEqual([
      ['poll', 'succeeded', null, '2 changed contacts read; 1 lead ended'],
      ['contact', 'ended', 'lead_2', 'lifecycle stage customer: sequence ended, lead excluded'],
    ]);
    // Read again from the stored cursor: nothing new, nothing logged.
    expect(await pullOnce(h.ctx, crm)).toEqual({ read: 0, ended: 0, unmatched: 0 });
  });

  it('matches an unlinked contact by email, then by LinkedIn URL; do not contact ends too; an unknown contact is logged unmatched', () => {
    const h = setup();
    const result = applyPulledContacts(
      h.ctx,
      [
        contact({ contactId: '1', networkUrl: url('nora-sim-fast-accept-sim-no-reply'), doNotContact: true }),
        contact({ contactId: '2', email: 'nobody@example.com', lifecycleStage: 'opportunity' }),
        contact({ contactId: '3', networkUrl: url('pat-sim-fast-accept-sim-replies-positive'), lifecycleStage: 'subscriber' }),
      ],
      'c1',
    );
    expect(result).toEqual({ read: 3, ended: 1, unmatched: 1 });
    expect(h.lead('lead_2').excluded).toBe(true);
    expect(h.lead('lead_1').excluded).toBe(false);
    expect(h.ctx.db.select().from(crmContacts).all()).toEqual([expect.objectContaining({ leadId: 'lead_2', contactId: '1' })]);
    const log = listCrmSyncLog(h.ctx, SECRET, { direction: 'pull', limit: 10 }).entries;
    expect(log.map((e) => [e.outcome, e.detail])).toEqual([
      ['unmatched', 'lifecycle stage opportunity; no lead matches the contact'],
      ['ended', 'marked do not contact: lead excluded'],
    ]);
    expect(pullCursor(h.ctx)).toBe('c1');
  });

  it('a failed read keeps the cursor, is logged, and waits for the next interval', async () => {
    const h = setup();
    applyPulledContacts(h.ctx, [], 'kept');
    h.ctx.clock.advance(SYNC.pollMs);
    const crm = new MemoryCrm();
    crm.changedContacts = async () => {
      throw new CrmError('HubSpot answered HTTP 503', true, 503);
    };
    expect(await pullOnce(h.ctx, crm)).toEqual({ read: 0, ended: 0, unmatched: 0 });
    expect(pullCursor(h.ctx)).toBe('kept');
    expect(pullDue(h.ctx)).toBe(false);
    expect(crmStatus(h.ctx).pull).toMatchObject({ lastError: 'HubSpot answered HTTP 503', hasCursor: true, intervalSeconds: 300 });
    expect(listCrmSyncLog(h.ctx, SECRET, { outcome: 'failed', limit: 10 }).entries[0]!.detail).toBe(
      'reading changed contacts failed: HubSpot answered HTTP 503',
    );
  });
});
