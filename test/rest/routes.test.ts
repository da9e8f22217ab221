import { describe, expect, it } from 'vitest';
import { routeParser } from '../../src/rest/routes.js';

describe('route templates', () => {
  it('match as Express routes do: literals in any case, one segment per parameter, one trailing slash', () => {
    const { matches } = routeParser('/campaigns/:campaignId/leads');
    expect(matches('/campaigns/cmp_1/leads')).toBe(true);
    expect(matches('/campaigns/cmp_1/leads/')).toBe(true);
    expect(matches('/CAMPAIGNS/cmp_1/Leads')).toBe(true);
    expect(matches('/campaigns//leads')).toBe(false);
    expect(matches('/campaigns/cmp_1/leads/lead_1')).toBe(false);
    expect(matches('/campaign/cmp_1/leads')).toBe(false);
    expect(routeParser('/credits').matches('/credits')).toBe(true);
    expect(routeParser('/credits').matches('/')).toBe(false);
  });

  it('give the parameters as sent, still percent-encoded', () => {
    expect(routeParser('/campaigns/:campaignId/leads/:leadId').params('/campaigns/%ff/leads/lead%201')).toEqual({ campaignId: '%ff', leadId: 'lead%201' });
    expect(routeParser('/campaigns/:campaignId').params('/nowhere')).toEqual({});
  });
});
