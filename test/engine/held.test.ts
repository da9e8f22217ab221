import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { updateAgent } from '../../src/core/agents/agents.js';
import { startCampaign } from '../../src/core/campaigns/lifecycle.js';
import { updateAccount } from '../../src/core/accounts/manage.js';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { connectMailbox } from '../../src/core/mailboxes/mailbox.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { engineIntents, leadPositions, leads } from '../../src/db/schema.js';
import { ACCOUNT_RETRY_MS } from '../../src/core/outreach/failures.js';
import { TEST_KEY } from '../helpers.js';
import { MINUTE, harness, url } from './helpers.js';

/**
 * A campaign with several senders reads its due leads whoever sends them, and an account's
 * spacing lets it make one call a tick. A lead whose sender cannot send it in the tick (the
 * engine knows the sender idle, or its lane already holds its one send) is not worked: it is
 * put behind the sender's next send, with nothing else written, and is sent from its own sender
 * in its turn.
 */
const SPACING = 3 * MINUTE;

function workspace(pins: string[], senders = ['acc_a', 'acc_b', 'acc_c'], status = 'CAMPAIGN_IN_PROGRESS'): WorkspaceFileInput {
  return {
    apiKeys: [{ key: TEST_KEY, name: 'ci' }],
    accounts: ['acc_a', 'acc_b', 'acc_c'].map((id) => ({ id, name: id, status: 'connected' as const, connectionRequestLimit: 20 })),
    agents: [{ id: 'tpl', accountId: 'acc_a', connectionNote: 'Hi {{firstName}}, glad to connect.', messages: [] }],
    campaigns: [
      {
        id: 'cmp',
        name: 'Three senders',
        status,
        assignedTemplateId: 'tpl',
        senderAccountIds: senders,
        leads: pins.map((accountId, i) => ({
          id: `lead_${i + 1}`,
          networkUrl: url(`held-${i + 1}-sim-never-accepts`),
          firstName: `P${i + 1}`,
          accountId,
        })),
      },
    ],
  } as WorkspaceFileInput;
}

const config = { spacingSeconds: { min: SPACING / 1000, max: SPACING / 1000 } };

describe('leads whose sender cannot send them this tick', () => {
  it('are held unworked behind the sender’s next send', async () => {
    const h = harness(workspace(['acc_a', 'acc_a', 'acc_b']), { config });
    const t0 = h.ctx.simClock.now();
    const first = await h.tick();
    expect(first.sends).toBe(1);
    expect(h.lead('lead_1').invitedAt).toBe(t0);
    // lead_2 shares lead_1's sender, which has made its one send of the tick: not worked (never
    // placed in its sequence), only due again when its sender may send.
    expect(first.held).toBe(1);
    expect(h.lead('lead_2').invitedAt).toBeNull();
    expect(h.lead('lead_2').nextActionAt).toBe(t0 + SPACING);
    expect(h.ctx.db.select().from(leadPositions).where(eq(leadPositions.leadId, 'lead_2')).get()).toBeUndefined();

    // Next tick: acc_a is idle (within its spacing), acc_b is not; lead_3 goes, nothing is held.
    h.ctx.clock.advance(MINUTE);
    const second = await h.tick();
    expect(second.sends).toBe(1);
    expect(h.lead('lead_3').invitedAt).toBe(t0 + MINUTE);
    expect(h.lead('lead_2').invitedAt).toBeNull();

    // lead_2 goes from acc_a as soon as its spacing is over.
    await h.runUntil(() => h.lead('lead_2').invitedAt !== null);
    expect(h.lead('lead_2').invitedAt).toBe(t0 + SPACING);
  });

  it('lose nothing: every lead is invited once, from its own sender, each sender keeping its spacing', async () => {
    const pins = Array.from({ length: 18 }, (_, i) => ['acc_a', 'acc_a', 'acc_b', 'acc_c', 'acc_a', 'acc_b'][i % 6] as string);
    const h = harness(workspace(pins), { config });
    const calls = () => h.ctx.db.select().from(engineIntents).orderBy(asc(engineIntents.createdAt)).all();
    let held = 0;
    for (let i = 0; i < 200 && calls().length < pins.length; i++) {
      held += (await h.tick()).held;
      h.ctx.clock.advance(MINUTE);
    }
    // Leads were held on the way (a sender's leads come due faster than its spacing lets it send).
    expect(held).toBeGreaterThan(0);
    let after = 0;
    for (let i = 0; i < 30; i++) {
      const r = await h.tick();
      after += r.held + r.sends;
      h.ctx.clock.advance(MINUTE);
    }
    expect(after).toBe(0);
    const sent = calls();
    expect(sent).toHaveLength(pins.length);
    expect(new Set(sent.map((c) => c.leadId)).size).toBe(pins.length);
    for (const c of sent) expect(c.accountId).toBe(pins[Number(c.leadId.slice('lead_'.length)) - 1]);
    for (const account of ['acc_a', 'acc_b', 'acc_c']) {
      const at = sent.filter((c) => c.accountId === account).map((c) => c.createdAt);
      for (let i = 1; i < at.length; i++) expect((at[i] as number) - (at[i - 1] as number)).toBeGreaterThanOrEqual(SPACING);
    }
  });

  it("queue behind the sender's leads held before: a backlog comes due at the sender's pace, each lead held about once", async () => {
    // Eight leads of acc_a, due together: acc_a sends one every three minutes.
    const h = harness(workspace(Array.from({ length: 8 }, () => 'acc_a')), { config });
    const t0 = h.ctx.simClock.now();
    const holds = new Map<string, number>();
    const due = () =>
      new Map(
        h.ctx.db
          .select({ id: leads.id, at: leads.nextActionAt })
          .from(leads)
          .all()
          .map((r) => [r.id, r.at]),
      );
    for (let i = 0; i < 40 && h.ctx.db.select().from(engineIntents).all().length < 8; i++) {
      const before = due();
      await h.tick();
      // A lead moved without being sent was held.
      for (const [id, at] of due()) if (at !== before.get(id) && h.lead(id).invitedAt === null) holds.set(id, (holds.get(id) ?? 0) + 1);
      h.ctx.clock.advance(MINUTE);
    }
    const sent = h.ctx.db.select().from(engineIntents).orderBy(asc(engineIntents.createdAt)).all();
    expect(sent).toHaveLength(8);
    // Every send as soon as acc_a's spacing allows: the queue costs the backlog no time.
    expect(sent.map((c) => c.createdAt)).toEqual(Array.from({ length: 8 }, (_, i) => t0 + i * SPACING));
    // Put back at the sender's next send, all but one of them met there again and were held
    // again: 16 holds for these eight, up to three each. Queued, each waiting lead is held once.
    expect([...holds.values()]).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect([...holds.keys()].sort()).toEqual(['lead_2', 'lead_3', 'lead_4', 'lead_5', 'lead_6', 'lead_7', 'lead_8']);
  });

  it('of a sender that cannot send at all (paused) wait as long as the lead its lane tried, not one tick', async () => {
    const h = harness(workspace(['acc_a', 'acc_a', 'acc_a', 'acc_b']), { config });
    updateAccount(h.ctx, 'acc_a', { active: false });
    const t0 = h.ctx.simClock.now();
    let held = 0;
    let due = 0;
    for (let i = 0; i < 10; i++) {
      const r = await h.tick();
      held += r.held;
      due += r.due;
      h.ctx.clock.advance(MINUTE);
    }
    // acc_b's lead went; acc_a's lane tried one lead and found the account unavailable, and the
    // leads held behind it wait as long as that one: each is read and held once, not every tick.
    expect(h.lead('lead_4').invitedAt).not.toBeNull();
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(2);
    expect(due).toBeLessThanOrEqual(4);
    for (const id of ['lead_1', 'lead_2', 'lead_3']) {
      expect(h.lead(id).invitedAt).toBeNull();
      expect(h.lead(id).nextActionAt).toBeGreaterThanOrEqual(t0 + ACCOUNT_RETRY_MS);
    }
  });

  it('an account that has just sent is idle until its spacing ends: its campaigns are not read before', async () => {
    // One sender only: the campaign follows acc_a.
    const h = harness(workspace(['acc_a'], []), { config });
    const t0 = h.ctx.simClock.now();
    expect((await h.tick()).sends).toBe(1);
    // A lead added after acc_a's send is not looked at while acc_a's spacing runs.
    h.ctx.db
      .insert(leads)
      .values({ id: 'lead_late', campaignId: 'cmp', networkUrl: url('held-late-sim-never-accepts'), firstName: 'Late', createdAt: t0, updatedAt: t0 })
      .run();
    for (let i = 1; i < SPACING / MINUTE; i++) {
      h.ctx.clock.advance(MINUTE);
      expect((await h.tick()).due).toBe(0);
    }
    h.ctx.clock.advance(MINUTE);
    const r = await h.tick();
    expect(r.due).toBe(1);
    expect(h.lead('lead_late').invitedAt).toBe(t0 + SPACING);
  });

  it('a sender of a campaign whose steps send email is not put to sleep by its own spacing: the mailbox keeps its own pace', async () => {
    const h = harness(workspace(['acc_a'], [], 'READY_TO_SEND'), { config });
    const { mailbox } = await connectMailbox(h.ctx, {
      name: 'one',
      address: 'one@outreach.test',
      sim: true,
      warmUp: false,
      dailyLimit: 200,
      workingHours: 'always',
      spacingSeconds: 10,
    });
    updateAgent(h.ctx, 'tpl', {
      steps: [
        { kind: 'invite', note: 'Hi {{firstName}}.' },
        { kind: 'email', subject: 'Hello', text: 'Hi {{firstName}}.' },
      ],
    });
    updateCampaign(h.ctx, 'cmp', { mailboxIds: [mailbox.id] });
    h.ctx.db.update(leads).set({ email: 'p1@example.com' }).where(eq(leads.id, 'lead_1')).run();
    await startCampaign(h.ctx, 'cmp');
    const t0 = h.ctx.simClock.now();
    expect((await h.tick()).sends).toBe(1);
    expect(h.lead('lead_1').invitedAt).toBe(t0);
    // The email step follows at once: within acc_a's spacing the campaign is still read, and the email goes from the mailbox.
    h.ctx.clock.advance(MINUTE);
    const next = await h.tick();
    expect(next.due).toBe(1);
    expect(next.sends).toBe(1);
    const emails = h.ctx.db.select().from(engineIntents).where(eq(engineIntents.leadId, 'lead_1')).all();
    expect(emails.map((i) => i.kind).sort()).toEqual(['connection_request', 'email']);
  });
});

describe("a sender's leads promised today", () => {
  it('a lead whose invitation failed for good is no longer promised: its sender takes another lead the same day', async () => {
    // Two senders with two invitations a day each, and five leads given to them as they come
    // due. lead_1's invitation fails for good. Counted as still promised, it would fill one of
    // its sender's two places, and one of the other four leads would wait for the next day.
    const slugs = ['p1-sim-send-fail', 'p2-sim-never-accepts', 'p3-sim-never-accepts', 'p4-sim-never-accepts', 'p5-sim-never-accepts'];
    const ws: WorkspaceFileInput = {
      apiKeys: [{ key: TEST_KEY, name: 'ci' }],
      accounts: ['acc_a', 'acc_b'].map((id) => ({ id, name: id, status: 'connected' as const, connectionRequestLimit: 2 })),
      agents: [{ id: 'tpl', accountId: 'acc_a', connectionNote: 'Hi {{firstName}}, glad to connect.', messages: [] }],
      campaigns: [
        {
          id: 'cmp',
          name: 'Two senders',
          status: 'CAMPAIGN_IN_PROGRESS',
          assignedTemplateId: 'tpl',
          senderAccountIds: ['acc_a', 'acc_b'],
          leads: slugs.map((slug, i) => ({ id: `lead_${i + 1}`, networkUrl: url(slug), firstName: `P${i + 1}` })),
        },
      ],
    } as WorkspaceFileInput;
    const h = harness(ws, { config: { workingHours: null } });
    const day = (at: number) => new Date(at).toISOString().slice(0, 10);
    const today = day(h.ctx.simClock.now());
    const good = ['lead_2', 'lead_3', 'lead_4', 'lead_5'];
    await h.runUntil(() => h.lead('lead_1').stage === 'failed' && good.every((id) => h.lead(id).invitedAt !== null));
    expect(h.lead('lead_1').accountId).toBe('acc_a');
    for (const id of good) expect(day(h.lead(id).invitedAt!), id).toBe(today);
    const sentBy = (account: string) => good.filter((id) => h.lead(id).accountId === account).length;
    expect([sentBy('acc_a'), sentBy('acc_b')]).toEqual([2, 2]);
  });
});
