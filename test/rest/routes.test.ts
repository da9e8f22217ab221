import { describe, expect, it } from 'vitest';
import { routeMatcher } from '../../src/rest/routes.js';

describe('route templates', () => {
  it('match as Express routes do: literals in any case, one segment per parameter, one trailing slash', () => {
    const leads = routeMatcher('/campaigns/:campaignId/leads');
    expect(leads('/campaigns/cmp_1/leads')).toBe(true);
    expect(leads('/campaigns/cmp_1/leads/')).toBe(true);
    expect(leads('/CAMPAIGNS/cmp_1/Leads')).toBe(true);
    expect(leads('/campaigns//leads')).toBe(false);
    expect(leads('/campaigns/cmp_1/leads//')).toBe(false);
    expect(leads('/campaigns/cmp_1/leads/lead_1')).toBe(false);
    expect(leads('/campaign/cmp_1/leads')).toBe(false);
    expect(routeMatcher('/credits')('/credits')).toBe(true);
    expect(routeMatcher('/credits')('/')).toBe(false);
  });
});
