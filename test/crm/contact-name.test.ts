import { describe, expect, it } from 'vitest';
import { contactInput } from '../../src/core/crm/enqueue.js';
import type { LeadRow } from '../../src/core/outreach/state.js';
import { nameParts } from '../../src/core/text.js';

describe("a CRM contact's name", () => {
  it('takes the first and last name as given; a lead given only a full name becomes its first word and the rest', () => {
    expect(nameParts('Ignored Here', 'Ada', 'Lovelace')).toEqual({ first: 'Ada', last: 'Lovelace' });
    expect(nameParts('Ignored', null, 'Lovelace')).toEqual({ first: null, last: 'Lovelace' });
    expect(nameParts('  Brand   New ', null, ' ')).toEqual({ first: 'Brand', last: 'New' });
    expect(nameParts('Carol, Jr. Smith', null, null)).toEqual({ first: 'Carol', last: 'Jr. Smith' });
    expect(nameParts('Prince', null, null)).toEqual({ first: 'Prince', last: null });
    expect(nameParts(null, null, null)).toEqual({ first: null, last: null });
  });

  it('is pushed for a lead known by its full name alone, so HubSpot gets a named contact', () => {
    const lead = {
      id: 'lead_x',
      networkUrl: 'https://www.linkedin.com/in/brand-new',
      fullName: 'Brand New',
      firstName: null,
      lastName: null,
      email: null,
      companyName: 'Acme',
      jobTitle: null,
    } as unknown as LeadRow;
    expect(contactInput(lead)).toEqual({
      email: null,
      networkUrl: 'https://www.linkedin.com/in/brand-new',
      firstName: 'Brand',
      lastName: 'New',
      company: 'Acme',
      title: null,
    });
  });
});
