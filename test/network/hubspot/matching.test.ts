import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lead, type Rig, rig } from './helpers.js';

let r: Rig;
beforeEach(async () => {
  r = await rig();
});
afterEach(async () => {
  await r.hs.stop();
});

describe('HubSpot contacts: matched by email, then by LinkedIn URL, else created', () => {
  it('creates the contact with the mapped properties when neither matches', async () => {
    const out = await r.crm.upsertContact(lead({ email: 'Ada@Example.com' }));
    expect(out.created).toBe(true);
    const c = r.hs.contact(out.contactId);
    expect(c?.properties).toMatchObject({
      email: 'ada@example.com',
      firstname: 'Ada',
      lastname: 'Lovelace',
      company: 'Analytical Engines',
      jobtitle: 'Founder',
      hs_linkedin_url: 'https://www.linkedin.com/in/ada-lovelace',
    });
    expect(r.hs.count('contacts.create')).toBe(1);
  });

  it('prefers the email match over a LinkedIn URL match held by another contact', async () => {
    const byUrl = r.hs.addContact({ hs_linkedin_url: 'https://www.linkedin.com/in/ada-lovelace', firstname: 'Other' });
    const byEmail = r.hs.addContact({ email: 'ada@example.com', firstname: 'Ada' });
    const out = await r.crm.upsertContact(lead({ email: 'ADA@example.com' }));
    expect(out).toEqual({ contactId: byEmail.id, created: false });
    expect(r.hs.contact(byUrl.id)?.properties.email).toBeUndefined();
    expect(r.hs.count('contacts.create')).toBe(0);
  });

  it('matches by LinkedIn URL however HubSpot holds it (scheme, www, case, trailing slash) when no email matches', async () => {
    const held = r.hs.addContact({ hs_linkedin_url: 'http://linkedin.com/in/ada-lovelace/', firstname: 'Augusta' });
    const out = await r.crm.upsertContact(lead({ networkUrl: 'https://www.linkedin.com/in/Ada-Lovelace?trk=x' }));
    expect(out).toEqual({ contactId: held.id, created: false });
    // Only blanks are filled: HubSpot's first name stays, the email and company are added.
    expect(r.hs.contact(held.id)?.properties).toMatchObject({ firstname: 'Augusta', email: 'ada@example.com', company: 'Analytical Engines' });
    expect(r.hs.contact(held.id)?.properties.hs_linkedin_url).toBe('http://linkedin.com/in/ada-lovelace/');
  });

  it('a lead without an email is matched by URL alone', async () => {
    const first = await r.crm.upsertContact(lead({ email: null }));
    const again = await r.crm.upsertContact(lead({ email: null, firstName: 'Changed' }));
    expect(again).toEqual({ contactId: first.contactId, created: false });
    expect(r.hs.count('contacts.create')).toBe(1);
    expect(r.hs.contact(first.contactId)?.properties.firstname).toBe('Ada');
  });

  it('sends no update when the matched contact has nothing blank to fill', async () => {
    await r.crm.upsertContact(lead());
    r.hs.resetCounts();
    await r.crm.upsertContact(lead());
    expect(r.hs.count('contacts.search')).toBe(1);
    expect(r.hs.count('contacts.update')).toBe(0);
  });

  it('a contact just created, not yet in the search index, is found through the 409 HubSpot answers', async () => {
    r.hs.setSearchLag(60_000);
    const first = await r.crm.upsertContact(lead());
    const again = await r.crm.upsertContact(lead());
    expect(again).toEqual({ contactId: first.contactId, created: false });
    expect(r.hs.objects.contacts.size).toBe(1);
  });
});
