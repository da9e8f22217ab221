import { describe, expect, it } from 'vitest';
import { checkKeyScope } from '../../src/core/auth/keys.js';
import { narrowScope, parseStoredScope, reachOf, toolRefusal } from '../../src/core/auth/scope.js';
import { ApiError } from '../../src/core/errors.js';
import { testCtx } from '../helpers.js';

const fieldsOf = (fn: () => unknown): string[] | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof ApiError ? err.details.fields : ['not-api-error'];
  }
};

describe('a scope, decided in core', () => {
  it('narrows a grant within its key: common toolsets and campaigns, read-only if either, the earlier expiry', () => {
    const key = { toolsets: ['manage' as const], campaignIds: ['cmp_a', 'cmp_b'], expiresAt: '2030-01-01T00:00:00.000Z' };
    const grant = {
      toolsets: ['drafts' as const, 'standard' as const],
      readOnly: true,
      campaignIds: ['cmp_b', 'cmp_c'],
      expiresAt: '2029-01-01T00:00:00.000Z',
    };
    expect(narrowScope(key, grant)).toEqual({ toolsets: ['drafts'], readOnly: true, campaignIds: ['cmp_b'], expiresAt: '2029-01-01T00:00:00.000Z' });
    expect(narrowScope(null, grant)).toEqual(grant);
    expect(narrowScope(key, null)).toEqual(key);
    // Campaigns with nothing in common reach none, never all.
    expect(reachOf(narrowScope({ campaignIds: ['cmp_a'] }, { campaignIds: ['cmp_c'] }))?.campaignIds?.size).toBe(0);
  });

  it('refuses by toolset, by write and by a new campaign, and lets the rest through', () => {
    const facts = (name: string, toolset: 'standard' | 'manage' | 'drafts', readOnly: boolean, createsCampaign = false) => ({
      name,
      toolset,
      readOnly,
      createsCampaign,
    });
    const drafts = reachOf({ toolsets: ['drafts'] });
    expect(toolRefusal(drafts, facts('list_drafts', 'drafts', true))).toBeNull();
    expect(toolRefusal(drafts, facts('get_credits', 'standard', true))?.code).toBe('forbidden');
    expect(toolRefusal(reachOf({ toolsets: ['manage'] }), facts('update_drafts', 'drafts', false))).toBeNull();
    expect(toolRefusal(reachOf({ readOnly: true }), facts('add_lead', 'standard', false))?.code).toBe('forbidden');
    expect(toolRefusal(reachOf({ campaignIds: ['cmp_q4'] }), facts('create_campaign', 'manage', false, true))?.code).toBe('forbidden');
    expect(toolRefusal(null, facts('create_campaign', 'manage', false, true))).toBeNull();
  });

  it('checks what a person gives: toolsets, existing campaigns, a future expiry; an empty scope is none', () => {
    const ctx = testCtx();
    expect(checkKeyScope(ctx, { readOnly: false })).toBeNull();
    expect(checkKeyScope(ctx, { campaignIds: ['cmp_q4', 'cmp_q4'] })).toEqual({ campaignIds: ['cmp_q4'] });
    expect(fieldsOf(() => checkKeyScope(ctx, { toolsets: ['all'] }))).toEqual(['scope.toolsets.0']);
    expect(fieldsOf(() => checkKeyScope(ctx, { campaignIds: ['cmp_nowhere'] }))).toEqual(['scope.campaignIds']);
    expect(fieldsOf(() => checkKeyScope(ctx, { expiresAt: new Date(ctx.clock.now() - 1000).toISOString() }))).toEqual(['scope.expiresAt']);
    expect(fieldsOf(() => checkKeyScope(ctx, { everything: true }))).toBeDefined();
    expect(checkKeyScope(ctx, { expiresAt: '2099-06-01T10:00:00+02:00' })).toEqual({ expiresAt: '2099-06-01T08:00:00.000Z' });
  });

  it('reads a stored scope that no longer parses as one that reaches nothing', () => {
    const reach = reachOf(parseStoredScope('{"toolsets":["gone"]}'));
    expect(reach?.readOnly).toBe(true);
    expect(reach?.campaignIds?.size).toBe(0);
    expect(reach?.toolsets?.size).toBe(0);
  });
});
