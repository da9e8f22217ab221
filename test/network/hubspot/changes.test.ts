import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CrmContactState } from '../../../src/core/network/crm.js';
import { type Rig, rig } from './helpers.js';

let r: Rig;
beforeEach(async () => {
  r = await rig();
});
afterEach(async () => {
  await r.hs.stop();
});

/** Reads every change from the cursor on, `limit` at a time, until a read brings nothing. */
async function drain(cursor: string | null, limit: number): Promise<{ seen: CrmContactState[]; cursor: string | null; reads: number }> {
  const seen: CrmContactState[] = [];
  let reads = 0;
  for (;;) {
    const page = await r.crm.changedContacts(cursor, limit);
    reads++;
    if (page.contacts.length === 0) return { seen, cursor: page.cursor, reads };
    expect(page.contacts.length).toBeLessThanOrEqual(limit);
    seen.push(...page.contacts);
    cursor = page.cursor;
  }
}

describe('HubSpot change read: contacts changed after the cursor, oldest first', () => {
  it('pages through every contact once, in modification order, then stays put', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => r.hs.addContact({ email: `c${i}@example.com` }).id);
    const { seen, cursor } = await drain(null, 10);
    expect(seen.map((c) => c.contactId)).toEqual(ids);
    const times = seen.map((c) => c.updatedAt);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const again = await r.crm.changedContacts(cursor, 10);
    expect(again).toEqual({ contacts: [], cursor });
  });

  it('reads a lifecycle stage moved and a do-not-contact ticked in HubSpot, and nothing else', async () => {
    const a = r.hs.addContact({ email: 'a@example.com', hs_linkedin_url: 'https://www.linkedin.com/in/a' });
    const b = r.hs.addContact({ email: 'b@example.com' });
    r.hs.addContact({ email: 'c@example.com' });
    const start = await drain(null, 50);
    r.hs.setLifecycleStage(a.id, 'customer');
    r.hs.setDoNotContact(b.id, true);
    const page = await r.crm.changedContacts(start.cursor, 50);
    expect(page.contacts).toEqual([
      expect.objectContaining({
        contactId: a.id,
        email: 'a@example.com',
        networkUrl: 'https://www.linkedin.com/in/a',
        lifecycleStage: 'customer',
        doNotContact: false,
      }),
      expect.objectContaining({ contactId: b.id, lifecycleStage: null, doNotContact: true }),
    ]);
    expect((await r.crm.changedContacts(page.cursor, 50)).contacts).toEqual([]);
  });

  it('contacts changed in the same millisecond are each read once, however small the page', async () => {
    r.hs.addContact({ email: 'before@example.com' });
    r.hs.freezeClock(Date.now() + 1000);
    const tied = Array.from({ length: 7 }, (_, i) => r.hs.addContact({ email: `tie${i}@example.com` }).id);
    r.hs.freezeClock(null);
    const after = r.hs.addContact({ email: 'after@example.com' }).id;
    const { seen } = await drain(null, 2);
    const got = seen.map((c) => c.contactId);
    expect(new Set(got).size).toBe(got.length);
    expect(got.slice(1, 8).sort()).toEqual([...tied].sort());
    expect(got.at(-1)).toBe(after);
  });

  it('a contact read at the cursor’s time and changed again since is read again', async () => {
    const a = r.hs.addContact({ email: 'a@example.com' });
    const first = await r.crm.changedContacts(null, 10);
    expect(first.contacts.map((c) => c.contactId)).toEqual([a.id]);
    r.hs.setLifecycleStage(a.id, 'customer');
    const again = await r.crm.changedContacts(first.cursor, 10);
    expect(again.contacts).toEqual([expect.objectContaining({ contactId: a.id, lifecycleStage: 'customer' })]);
  });

  it('asks HubSpot for lastmodifieddate >= the cursor, sorted ascending, with the stage and do-not-contact properties', async () => {
    r.hs.addContact({ email: 'a@example.com' });
    const first = await r.crm.changedContacts(null, 5);
    // The stand-in refuses an unknown sort or property, so a read that answers proves the request's shape.
    r.hs.addContact({ email: 'b@example.com' });
    const next = await r.crm.changedContacts(first.cursor, 5);
    expect(next.contacts.map((c) => c.email)).toEqual(['b@example.com']);
    expect(r.hs.count('contacts.search')).toBe(2);
  });
});
