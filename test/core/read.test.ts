import { describe, expect, it } from 'vitest';
import { listAccounts } from '../../src/core/accounts/list.js';
import { getCampaign, listCampaigns, rate } from '../../src/core/campaigns/campaign.js';
import { getCredits } from '../../src/core/credits/get.js';
import { ApiError } from '../../src/core/errors.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { testCtx } from '../helpers.js';

describe('read verbs', () => {
  it('credits reflect the seeded balances and plan id', () => {
    const ctx = testCtx();
    expect(getCredits(ctx, getWorkspace(ctx)!)).toEqual({ credits: 100, topUpCredits: 5, lookalikeCredits: 500, lookalikeTopUpCredits: 20, planId: 'growth' });
  });

  it('rates are percentages to one decimal, null on a zero denominator', () => {
    expect(rate(3, 10)).toBe(30);
    expect(rate(1, 3)).toBe(33.3);
    expect(rate(2, 3)).toBe(66.7);
    expect(rate(0, 0)).toBeNull();
    expect(rate(5, 0)).toBeNull();
    const ctx = testCtx();
    expect(getCampaign(ctx, 'cmp_q4').stats).toEqual({
      connectionRequestsSent: 10,
      connectionRequestsAccepted: 3,
      acceptanceRate: 30,
      messagesSent: 3,
      repliesReceived: 1,
      replyRate: 33.3,
    });
    expect(getCampaign(ctx, 'cmp_paused').stats.replyRate).toBe(28.6);
    expect(getCampaign(ctx, 'cmp_running').stats.acceptanceRate).toBeNull();
    expect(() => getCampaign(ctx, 'cmp_nope')).toThrow(ApiError);
  });

  it('accounts page in insertion order with today counters and honest cursors', () => {
    const ctx = testCtx();
    const secret = getWorkspace(ctx)!.cursorSecret;
    const p1 = listAccounts(ctx, secret, { limit: 2 });
    expect(p1.accounts.map((a) => a.id)).toEqual(['acc_ada', 'acc_nav']);
    expect(p1.accounts[0]!.today).toEqual({
      connectionRequestsSent: 3,
      connectionRequestsAccepted: 1,
      connectionRequestLimit: 25,
      messagesSent: 2,
      messageLimit: 50,
      profileVisits: 0,
      profileVisitLimit: 40,
      postReactions: 0,
      postReactionLimit: 30,
    });
    expect(p1.nextCursor).not.toBeNull();
    const p2 = listAccounts(ctx, secret, { limit: 2, cursor: p1.nextCursor! });
    expect(p2.accounts.map((a) => a.id)).toEqual(['acc_off']);
    expect(p2.nextCursor).toBeNull();
    // A last page that exactly fills the limit still says nothing follows.
    expect(listAccounts(ctx, secret, { limit: 3 }).nextCursor).toBeNull();
    // Today's counters belong to the UTC day: tomorrow they read zero.
    ctx.clock.advance(24 * 3600 * 1000);
    expect(listAccounts(ctx, secret, { limit: 1 }).accounts[0]!.today.connectionRequestsSent).toBe(0);
  });

  it('campaigns list newest first, filter by status, and bind the cursor to the filter', () => {
    const ctx = testCtx();
    const secret = getWorkspace(ctx)!.cursorSecret;
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = listCampaigns(ctx, secret, { limit: 3, cursor });
      all.push(...page.campaigns.map((c) => c.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(all).toEqual(['cmp_import', 'cmp_noagent', 'cmp_failed', 'cmp_done', 'cmp_paused', 'cmp_running', 'cmp_q4']);
    const ready = listCampaigns(ctx, secret, { status: 'READY_TO_SEND', limit: 1 });
    expect(ready.campaigns.map((c) => c.id)).toEqual(['cmp_noagent']);
    expect(() => listCampaigns(ctx, secret, { limit: 1, cursor: ready.nextCursor! })).toThrow(ApiError);
    expect(listCampaigns(ctx, secret, { status: 'READY_TO_SEND', limit: 1, cursor: ready.nextCursor! }).campaigns.map((c) => c.id)).toEqual(['cmp_q4']);
  });
});
