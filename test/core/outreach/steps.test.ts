import { describe, expect, it } from 'vitest';
import { updateCampaign } from '../../../src/core/campaigns/manage.js';
import { applyCampaignEvent } from '../../../src/core/campaigns/state-machine.js';
import { FakeClock, utcDay } from '../../../src/core/clock.js';
import { splitByLimit, type PendingSend } from '../../../src/core/outreach/deferral.js';
import { capReached, limitOf, type SendKind } from '../../../src/core/outreach/plan.js';
import { freshLeadQuotas } from '../../../src/core/outreach/quotas.js';
import type { SenderPins } from '../../../src/core/outreach/runner.js';
import { resolveEngineSettings } from '../../../src/core/outreach/settings.js';
import { getLead, loadCampaignInfo } from '../../../src/core/outreach/state.js';
import { workLead } from '../../../src/core/outreach/work.js';
import type { Allowance } from '../../../src/core/safety/rules.js';
import { accountDaily } from '../../../src/db/schema.js';
import { engineWorkspace } from '../../engine/helpers.js';
import { testCtx } from '../../helpers.js';

const NOW = Date.parse('2026-11-03T10:00:00Z');
const settings = resolveEngineSettings({ workingHours: null });

const allowance = (over: Partial<Allowance> = {}): Allowance => ({
  connectionRequestLimit: 10,
  messageLimit: 10,
  profileVisitLimit: 10,
  postReactionLimit: 10,
  connectionRequestsSentToday: 0,
  messagesSentToday: 0,
  profileVisitsToday: 0,
  postReactionsToday: 0,
  week: { connectionRequestsSent: 0, connectionRequestLimit: 100 },
  warmUpDay: null,
  weekFullUntil: null,
  ...over,
});

/** The engine test workspace, its campaign paused so senders may be set, with acc_b and acc_c beside acc_a. */
function withSenders(senders: string[]) {
  const ws = engineWorkspace(['ann', 'bob', 'cat'], { status: 'CAMPAIGN_PAUSED', extraAccounts: ['acc_b', 'acc_c'] });
  const ctx = testCtx({ workspace: ws, clock: new FakeClock(NOW) });
  updateCampaign(ctx, 'cmp', { senderAccountIds: senders });
  return ctx;
}

class Pins implements SenderPins {
  readonly leads = new Map<string, string[]>();
  count = (accountId: string) => this.leads.get(accountId)?.length ?? 0;
  add = (accountId: string, leadId: string) => void this.leads.set(accountId, [...(this.leads.get(accountId) ?? []), leadId]);
}

describe('each kind of send under its own daily limit', () => {
  it('invitations, messages (InMails too), visits and likes each count against their own; a withdrawal against none', () => {
    const kinds: SendKind[] = ['connect', 'message', 'inmail', 'agent_send', 'polite_close', 'visit', 'like', 'withdraw'];
    expect(kinds.map(limitOf)).toEqual(['invitations', 'messages', 'messages', 'messages', 'messages', 'visits', 'likes', null]);
    const visitsOut = allowance({ profileVisitsToday: 10 });
    expect(kinds.map((k) => capReached(k, visitsOut))).toEqual([false, false, false, false, false, true, false, false]);
    const messagesOut = allowance({ messagesSentToday: 10 });
    expect(kinds.map((k) => capReached(k, messagesOut))).toEqual([false, true, true, true, true, false, false, false]);
  });

  it('a lane held by one limit keeps its other sends', () => {
    const send = (leadId: string, kind: SendKind): PendingSend => ({ leadId, kind, accountId: 'acc_a', due: 1, followsSender: true });
    const items = [send('a', 'visit'), send('b', 'connect'), send('c', 'visit'), send('d', 'message')];
    expect(splitByLimit(items, 'visit')).toEqual({ held: [items[0], items[2]], others: [items[1], items[3]] });
  });
});

describe('several senders in one campaign', () => {
  it('a new lead gets the sender with the most invitations left, leads promised today counting as spent; it keeps it', () => {
    const ctx = withSenders(['acc_a', 'acc_b']);
    ctx.db
      .insert(accountDaily)
      .values({ accountId: 'acc_a', day: utcDay(NOW), connectionRequestsSent: 2 })
      .run();
    applyCampaignEvent(ctx, 'cmp', 'resume');
    const info = loadCampaignInfo(ctx, 'cmp')!;
    const pins = new Pins();
    const first = workLead(ctx, getLead(ctx, 'lead_1')!, info, settings, NOW, pins);
    expect(first).toMatchObject({ kind: 'send', send: { kind: 'connect', accountId: 'acc_b', followsSender: false } });
    expect(getLead(ctx, 'lead_1')!.accountId).toBe('acc_b');
    // acc_b has 25 left less one promised; acc_a 23: acc_b again, then once two more are promised, acc_a.
    expect(workLead(ctx, getLead(ctx, 'lead_2')!, info, settings, NOW, pins)).toMatchObject({ send: { accountId: 'acc_b' } });
    pins.add('acc_b', 'elsewhere');
    expect(workLead(ctx, getLead(ctx, 'lead_3')!, info, settings, NOW, pins)).toMatchObject({ send: { accountId: 'acc_a' } });
    expect(pins.leads).toEqual(
      new Map([
        ['acc_b', ['lead_1', 'lead_2', 'elsewhere']],
        ['acc_a', ['lead_3']],
      ]),
    );
    // Later steps go from the lead's sender, whatever the others have left.
    expect(workLead(ctx, getLead(ctx, 'lead_1')!, info, settings, NOW, new Pins())).toMatchObject({ send: { accountId: 'acc_b' } });
  });

  it('new leads are taken as far as all senders may still invite, less what is promised', () => {
    const ctx = withSenders(['acc_a', 'acc_b', 'acc_c']);
    applyCampaignEvent(ctx, 'cmp', 'resume');
    ctx.db
      .insert(accountDaily)
      .values([
        { accountId: 'acc_a', day: utcDay(NOW), connectionRequestsSent: 25 },
        { accountId: 'acc_b', day: utcDay(NOW), connectionRequestsSent: 24 },
      ])
      .run();
    const info = loadCampaignInfo(ctx, 'cmp')!;
    const safety = settings.safety;
    // acc_a is out, acc_b has 1 left, acc_c 25.
    expect(freshLeadQuotas(ctx, safety, [info], NOW, 100, () => false).quotas.get('cmp')).toBe(26);
    expect(freshLeadQuotas(ctx, safety, [info], NOW, 5, () => false).quotas.get('cmp')).toBe(5);
    expect(
      freshLeadQuotas(
        ctx,
        safety,
        [info],
        NOW,
        100,
        () => false,
        (id) => (id === 'acc_c' ? 20 : 1),
      ).quotas.get('cmp'),
    ).toBe(5);
  });
});
