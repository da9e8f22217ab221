// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { describe, expect, it } from 'vitest';
import { updateAgent } from '../../src/core/agents/agents.js';
import type { StepInput } from '../../src/core/agents/steps.js';
import { startCampaign } from '../../src/core/campaigns/lifecycle.js';
import { getCampaign } from '../../src/core/campaigns/campaign.js';
import { createCampaign, updateCampaign } from '../../src/core/campaigns/manage.js';
import { readMailbox } from '../../src/core/email/inbox.js';
import { getConversation } from '../../src/core/conversations/threads.js';
import { excludeAddress } from '../../src/core/email/unsubscribe.js';
import { connectMailbox } from '../../src/core/mailboxes/mailbox.js';
import { auditSafety } from '../../src/core/safety/audit.js';
import { getAgentStats } from '../../src/core/sequences/stats.js';
import { getPosition, stepEventsOf } from '../../src/core/sequences/store.js';
import { listDrafts } from '../../src/core/drafts/list.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { ApiError } from '../../src/core/errors.js';
import { addLead } from '../../src/core/leads/add.js';
import { updateLead } from '../../src/core/leads/update.js';
import { applyLeadReply } from '../../src/core/outreach/inbound.js';
import { loadCampaignInfo } from '../../src/core/outreach/state.js';
import { transaction } from '../../src/db/tx.js';
import { StepsInput } from '../../src/core/agents/steps.js';
import { engineSettings, engineWorkspace, harness, MINUTE, type Harness } from '../engine/helpers.js';

/**
 * The email step and the email conditions, run by the engine on the simulated network and the
 * simulated mail server, on the engine's simulated clock: a sequence over both channels, each
 * skip reason, the lead's pinned mailbox, drafts for email, and addresses that unsubscribed or
 * bounced never mailed again in another campaign.
 */

interface LeadIn {
  slug: string;
  email?: string;
  accountId?: string;
}

interface EmailHarness extends Harness {
  eventsOf: (leadId: string) => string[];
  emailsTo: (address: string) => { mailbox_id: string; subject: string; campaign_id: string }[];
  /** Ticks the engine and reads the mailboxes' inboxes, advancing the clock, until `done`. */
  run: (done: () => boolean, step?: number, max?: number) => Promise<void>;
}

const settings = engineSettings({ replyWaitDays: 0 });

async function emailHarness(
  steps: StepInput[],
  leads: LeadIn[],
  opts: { mailboxes?: string[]; approval?: 'required'; ws?: (ws: WorkspaceFileInput) => void } = {},
): Promise<EmailHarness> {
  const ws = engineWorkspace(
    leads.map((l) => ({ slug: l.slug, ...(l.accountId ? { accountId: l.accountId } : {}) })),
    { status: 'READY_TO_SEND' },
  );
  ws.campaigns![0]!.leads!.forEach((lead, i) => {
    const email = leads[i]!.email;
    if (email) Object.assign(lead, { email });
  });
  if (opts.approval) Object.assign(ws.campaigns![0]!, { approval: opts.approval });
  opts.ws?.(ws);
  const h = harness(ws, { config: { replyWaitDays: 0 } });
  h.ctx.publicUrl = 'https://outreach.example.com';
  const mailboxIds: string[] = [];
  for (const name of opts.mailboxes ?? ['one']) {
    const { mailbox } = await connectMailbox(h.ctx, {
      name,
      address: `${name}@outreach.test`,
      sim: true,
      warmUp: false,
      dailyLimit: 200,
      workingHours: 'always',
      spacingSeconds: 10,
    });
    mailboxIds.push(mailbox.id);
  }
  updateAgent(h.ctx, 'tpl', { steps });
  updateCampaign(h.ctx, 'cmp', { mailboxIds });
  await startCampaign(h.ctx, 'cmp');
  const q = <T>(sql: string, ...args: unknown[]) => h.ctx.db.$client.prepare(sql).all(...args) as T[];
  return {
    ...h,
    eventsOf: (leadId) => stepEventsOf(h.ctx, leadId).map((e) => [e.kind, e.event, ...(e.reason ? [e.reason] : [])].join(':')),
    emailsTo: (address) => q('SELECT mailbox_id, subject, campaign_id FROM email_sends WHERE address = ? ORDER BY seq', address),
    run: async (done, step = 5 * MINUTE, max = 2000) => {
      for (let i = 0; i < max; i++) {
        await h.tick();
        for (const id of mailboxIds) await readMailbox(h.ctx, id, settings);
        if (done()) return;
        h.ctx.clock.advance(step);
      }
      throw new Error('run: condition never met');
    },
  };
}

const ended = (h: EmailHarness, leadId: string) => () => getPosition(h.ctx, leadId)?.endedAt !== null && getPosition(h.ctx, leadId) !== undefined;

describe('the email step in a multichannel sequence, on the simulated network and mail server', () => {
  const steps: StepInput[] = [
    { kind: 'invite', note: 'Hi {{firstName}}' },
    {
      kind: 'if',
      condition: 'accepted',
      withinHours: 24,
      then: [{ kind: 'message', text: 'Thanks for connecting, {{firstName}}.' }],
      else: [
        { kind: 'email', subject: 'Hello {{firstName}}', text: 'Hi {{firstName}}, a note by email instead.' },
        {
          kind: 'if',
          condition: 'email_replied',
          withinHours: 48,
          then: [],
          else: [{ kind: 'email', subject: 'Following up', text: 'One more note, {{firstName}}.' }],
        },
      ],
    },
  ];

  it('takes the LinkedIn branch on acceptance, emails otherwise, stops at a reply, skips what cannot be mailed', async () => {
    const h = await emailHarness(steps, [
      { slug: 'ada-sim-accepts-after-2h', email: 'ada@example.com' },
      { slug: 'bob-sim-never-accepts', email: 'bob-sim-replies-after-1@example.com' },
      { slug: 'cy-sim-never-accepts', email: 'cy@example.com' },
      { slug: 'di-sim-never-accepts' },
      { slug: 'ed-sim-never-accepts', email: 'ed-sim-bounces@example.com' },
    ]);
    const all = ['lead_1', 'lead_2', 'lead_3', 'lead_4', 'lead_5'];
    await h.run(() => all.every((id) => ended(h, id)()), 10 * MINUTE);

    // Accepted: the message, never an email.
    expect(h.eventsOf('lead_1')).toEqual(['invite:sent', 'if:sent', 'invite:accepted', 'message:sent']);
    expect(h.emailsTo('ada@example.com')).toEqual([]);

    // Not accepted, replied by email: one email; the reply ends the sequence (no follow-up).
    expect(h.emailsTo('bob-sim-replies-after-1@example.com').map((e) => e.subject)).toEqual(['Hello Person2']);
    expect(getPosition(h.ctx, 'lead_2')?.endReason).toBe('replied');
    expect(h.lead('lead_2')).toMatchObject({ replied: true });
    const thread = h.ctx.db.$client.prepare('SELECT last_channel, last_direction FROM conversations WHERE lead_id = ?').get('lead_2');
    expect(thread).toEqual({ last_channel: 'email', last_direction: 'inbound' });
    const replied = h.ctx.db.$client.prepare("SELECT count(*) AS n FROM webhook_events WHERE type = 'lead.replied'").get() as { n: number };
    expect(replied.n).toBe(1);

    // No reply: the follow-up email after the if's window, from the same mailbox.
    const cy = h.emailsTo('cy@example.com');
    expect(cy.map((e) => e.subject)).toEqual(['Hello Person3', 'Following up']);
    expect(new Set(cy.map((e) => e.mailbox_id)).size).toBe(1);
    expect(h.eventsOf('lead_3')).toEqual(['invite:sent', 'if:sent', 'email:sent', 'if:sent', 'email:sent']);
    expect(getPosition(h.ctx, 'lead_3')?.endReason).toBe('completed');

    // No address: both emails skipped, and the lead still goes through to the end.
    expect(h.eventsOf('lead_4')).toEqual(['invite:sent', 'if:sent', 'email:skipped:no_email', 'if:sent', 'email:skipped:no_email']);
    expect(getPosition(h.ctx, 'lead_4')?.endReason).toBe('completed');

    // Bounced: the bounce is counted, the address excluded, the follow-up skipped as bounced.
    expect(h.emailsTo('ed-sim-bounces@example.com')).toHaveLength(1);
    expect(h.eventsOf('lead_5')).toEqual(['invite:sent', 'if:sent', 'email:sent', 'if:sent', 'email:bounced', 'email:skipped:bounced']);
    const bounced = h.ctx.db.$client.prepare("SELECT count(*) AS n FROM webhook_events WHERE type = 'email.bounced'").get() as { n: number };
    expect(bounced.n).toBe(1);
    // The bounce report is recognised by rule, without a model: the inbox suggests its tag.
    expect(getConversation(h.ctx, 'lead_5').suggestion).toMatchObject({ tag: 'Wrong person', suggestedBy: 'rule', reason: 'bounce' });

    // The funnel: per email step and variant, sent, replied, bounced and skipped.
    const stats = getAgentStats(h.ctx, { agentId: 'tpl' });
    const first = stats.steps.find((s) => s.path === 'steps[1].else[0]')!;
    expect(first.kind).toBe('email');
    expect(first.variants).toEqual([{ variant: 'A', sent: 3, accepted: 0, replied: 1, skipped: 1, bounced: 1 }]);
    const second = stats.steps.find((s) => s.path === 'steps[1].else[1].else[0]')!;
    expect(second.variants).toEqual([{ variant: 'A', sent: 1, accepted: 0, replied: 0, skipped: 2, bounced: 0 }]);
    // The campaign counts its emails as messages sent (one LinkedIn message and four emails), as
    // it counts the reply to one of them: the reply rate is a rate of everything it sent.
    expect(getCampaign(h.ctx, 'cmp').stats).toMatchObject({ messagesSent: 5, repliesReceived: 1, replyRate: 20 });

    // Every mailbox and account rule held.
    const audit = auditSafety(h.ctx, { safety: settings.safety, spacingMinMs: settings.spacingMinMs });
    expect(audit.violations).toEqual([]);
  });

  it('branches on email_bounced, and on tagged (the confirmed tag)', async () => {
    const h = await emailHarness(
      [
        { kind: 'email', subject: 'Hi', text: 'Hello {{firstName}}.' },
        {
          kind: 'if',
          condition: 'email_bounced',
          withinHours: 12,
          then: [{ kind: 'visit' }],
          else: [{ kind: 'if', condition: 'tagged', tags: ['Interested'], withinHours: 12, then: [{ kind: 'visit' }], else: [] }],
        },
      ],
      [
        { slug: 'fa', email: 'fa-sim-bounces@example.com' },
        { slug: 'gi', email: 'gi@example.com' },
        { slug: 'ho', email: 'ho@example.com' },
      ],
    );
    await h.run(() => h.emailsTo('ho@example.com').length === 1 && h.emailsTo('gi@example.com').length === 1);
    h.ctx.db.$client.prepare("UPDATE leads SET tag = 'Interested', tagged_at = ? WHERE id = 'lead_2'").run(h.ctx.simClock.now());
    await h.run(() => ['lead_1', 'lead_2', 'lead_3'].every((id) => ended(h, id)()), 10 * MINUTE);
    expect(h.eventsOf('lead_1')).toEqual(['email:sent', 'if:sent', 'email:bounced', 'visit:sent']);
    expect(h.eventsOf('lead_2')).toEqual(['email:sent', 'if:sent', 'if:sent', 'visit:sent']);
    expect(h.eventsOf('lead_3')).toEqual(['email:sent', 'if:sent', 'if:sent']);
  });

  it('takes then as soon as a person tags the lead, not at the if’s deadline', async () => {
    const h = await emailHarness(
      [
        { kind: 'email', subject: 'Hi', text: 'Hello {{firstName}}.' },
        { kind: 'if', condition: 'tagged', tags: ['Interested'], withinHours: 48, then: [{ kind: 'visit' }], else: [] },
      ],
      [{ slug: 'tia', email: 'tia@example.com' }],
    );
    // The lead reaches the if, and the engine puts it away until the deadline.
    await h.run(() => h.eventsOf('lead_1').includes('if:sent'));
    const taggedAt = h.ctx.simClock.now();
    updateLead(h.ctx, 'cmp', 'lead_1', { tag: 'Interested' });
    await h.run(() => h.eventsOf('lead_1').includes('visit:sent'));
    expect(h.eventsOf('lead_1')).toEqual(['email:sent', 'if:sent', 'visit:sent']);
    // Within minutes of the tag (the visit's own pacing), not 48 hours later.
    expect(h.ctx.simClock.now() - taggedAt).toBeLessThan(60 * MINUTE);
  });

  it('takes then as soon as the email bounces, not at the if’s deadline', async () => {
    const h = await emailHarness(
      [
        { kind: 'email', subject: 'Hi', text: 'Hello {{firstName}}.' },
        { kind: 'if', condition: 'email_bounced', withinHours: 48, then: [{ kind: 'visit' }], else: [] },
      ],
      [{ slug: 'kai', email: 'kai-sim-bounces@example.com' }],
    );
    await h.run(() => h.eventsOf('lead_1').includes('email:bounced'));
    const bouncedAt = h.ctx.simClock.now();
    await h.run(() => h.eventsOf('lead_1').includes('visit:sent'));
    expect(h.eventsOf('lead_1')).toEqual(['email:sent', 'if:sent', 'email:bounced', 'visit:sent']);
    // Within minutes of the bounce (the visit's own pacing), not 48 hours after the email.
    expect(h.ctx.simClock.now() - bouncedAt).toBeLessThan(60 * MINUTE);
  });

  it('mails one plain address only: a list, a malformed value or a header is no address; a named one is its address', async () => {
    const h = await emailHarness(
      [{ kind: 'email', subject: 'Hi', text: 'Hello {{firstName}}.' }],
      [
        { slug: 'list', email: 'kim@example.com, boss@example.com' },
        { slug: 'semi', email: 'kim@example.com; boss@example.com' },
        { slug: 'bad', email: 'not-an-email' },
        { slug: 'inject', email: 'a@example.com\r\nBcc: x@example.com' },
        { slug: 'named', email: 'Dora Diaz <Dora@Example.com>' },
        { slug: 'gone', email: 'Gone Person <gone@example.com>' },
      ],
      { ws: (ws) => Object.assign(ws, { credits: { credits: 100 } }) },
    );
    excludeAddress(h.ctx, 'gone@example.com', 'unsubscribed');
    const all = ['lead_1', 'lead_2', 'lead_3', 'lead_4', 'lead_5', 'lead_6'];
    await h.run(() => all.every((id) => ended(h, id)()));
    for (const id of ['lead_1', 'lead_2', 'lead_3', 'lead_4']) expect(h.eventsOf(id)).toEqual(['email:skipped:no_email']);
    expect(h.eventsOf('lead_5')).toEqual(['email:sent']);
    expect(h.emailsTo('dora@example.com')).toHaveLength(1);
    // The exclusion list is checked against the address, whatever name comes with it.
    expect(h.eventsOf('lead_6')).toEqual(['email:skipped:unsubscribed']);
    const sent = h.ctx.db.$client.prepare('SELECT address FROM email_sends').pluck().all();
    expect(sent).toEqual(['dora@example.com']);
  });

  it('pins each lead to one mailbox at its first email step, spread over the mailboxes', async () => {
    const twoEmails: StepInput[] = [
      { kind: 'email', subject: 'One', text: 'First, {{firstName}}.' },
      { kind: 'wait', hours: 2 },
      { kind: 'email', subject: 'Two', text: 'Second, {{firstName}}.' },
    ];
    const leads = Array.from({ length: 6 }, (_, i) => ({ slug: `pin-${i}`, email: `pin-${i}@example.com` }));
    const h = await emailHarness(twoEmails, leads, { mailboxes: ['north', 'south'] });
    await h.run(() => leads.every((_, i) => ended(h, `lead_${i + 1}`)()));
    const used = new Set<string>();
    for (const l of leads) {
      const sent = h.emailsTo(l.email);
      expect(sent.map((e) => e.subject)).toEqual(['One', 'Two']);
      expect(sent[0]!.mailbox_id).toBe(sent[1]!.mailbox_id);
      used.add(sent[0]!.mailbox_id);
    }
    expect(used.size).toBe(2);
  });

  it("spreads a tick's new leads over the mailboxes, counting the leads given one and not yet mailed", async () => {
    // Before, every new lead of a tick went to the mailbox with the most left (the same one for
    // all: nothing was sent yet), whose lane sends one a tick and put the others off.
    const leads = Array.from({ length: 9 }, (_, i) => ({ slug: `spread-${i}`, email: `spread-${i}@example.com` }));
    const h = await emailHarness([{ kind: 'email', subject: 'Hello', text: 'Hi {{firstName}}.' }], leads, { mailboxes: ['east', 'west', 'south'] });
    const pins = () =>
      h.ctx.db.$client.prepare('SELECT lead_id, mailbox_id FROM lead_email ORDER BY lead_id').all() as { lead_id: string; mailbox_id: string }[];
    const sentFrom = () =>
      h.ctx.db.$client.prepare('SELECT lead_id, mailbox_id FROM email_sends ORDER BY lead_id').all() as { lead_id: string; mailbox_id: string }[];
    await h.tick();
    const first = pins();
    expect(first.length).toBeGreaterThan(1);
    // Each lead pinned in the tick has a mailbox of its own, and every one of them was mailed in it.
    expect(new Set(first.map((p) => p.mailbox_id)).size).toBe(first.length);
    expect(sentFrom()).toEqual(first);
    await h.run(() => leads.every((_, i) => ended(h, `lead_${i + 1}`)()));
    const perMailbox = new Map<string, number>();
    for (const p of pins()) perMailbox.set(p.mailbox_id, (perMailbox.get(p.mailbox_id) ?? 0) + 1);
    expect([...perMailbox.values()]).toEqual([3, 3, 3]);
    expect(sentFrom()).toEqual(pins());
  });

  it('never mails an address again, in another campaign, once it unsubscribed or bounced', async () => {
    const h = await emailHarness(
      [{ kind: 'email', subject: 'Hi', text: 'Hello {{firstName}}.' }],
      [
        { slug: 'ok', email: 'fine@example.com' },
        { slug: 'un-sim', email: 'later-sim-unsubscribes@example.com' },
      ],
      { ws: (ws) => Object.assign(ws, { credits: { credits: 100 } }) },
    );
    // Earlier, elsewhere: one address unsubscribed, one bounced. Leads with them come later.
    excludeAddress(h.ctx, 'gone@example.com', 'unsubscribed');
    excludeAddress(h.ctx, 'dead@example.com', 'bounced');
    const add = (campaignId: string, local: string) =>
      addLead(h.ctx, campaignId, { networkUrl: `https://www.linkedin.com/in/${campaignId}-${local}`, firstName: 'Again', email: `${local}@example.com` })
        .leadId;
    const gone = add('cmp', 'gone');
    const dead = add('cmp', 'dead');
    const first = ['lead_1', 'lead_2', gone, dead];
    const unsubscribed = () =>
      h.ctx.db.$client.prepare("SELECT 1 FROM email_exclusions WHERE address = 'later-sim-unsubscribes@example.com'").get() !== undefined;
    await h.run(() => first.every((id) => ended(h, id)()) && unsubscribed());
    expect(h.eventsOf(gone)).toEqual(['email:skipped:unsubscribed']);
    expect(h.eventsOf(dead)).toEqual(['email:skipped:bounced']);
    expect(h.eventsOf('lead_1')).toEqual(['email:sent']);
    expect(h.eventsOf('lead_2')).toEqual(['email:sent']);
    // The simulated lead unsubscribed by the one-click answer half an hour after its email: its sequence ended, excluded.
    expect(h.lead('lead_2')).toMatchObject({ excluded: true });
    // Recognised by rule too, with the webhook any suggestion raises.
    expect(getConversation(h.ctx, 'lead_2').suggestion).toMatchObject({ tag: 'Not interested', suggestedBy: 'rule', reason: 'unsubscribe' });
    const suggested = h.ctx.db.$client
      .prepare("SELECT count(*) FROM webhook_events WHERE type = 'lead.tag_suggested' AND payload LIKE '%lead_2%'")
      .pluck()
      .get();
    expect(suggested).toBe(1);

    // A second campaign with the same addresses mails only the one still welcome.
    const mailboxIds = getCampaign(h.ctx, 'cmp').mailboxIds;
    const second = createCampaign(h.ctx, { name: 'Second', assignedTemplateId: 'tpl', mailboxIds }).id;
    const ids = ['gone', 'dead', 'fine', 'later-sim-unsubscribes'].map((local) => add(second, local));
    await startCampaign(h.ctx, second);
    await h.run(() => ids.every((id) => ended(h, id)()));
    expect(ids.map((id) => h.eventsOf(id))).toEqual([
      ['email:skipped:unsubscribed'],
      ['email:skipped:bounced'],
      ['email:sent'],
      ['email:skipped:unsubscribed'],
    ]);
    expect(h.emailsTo('gone@example.com')).toEqual([]);
    expect(h.emailsTo('dead@example.com')).toEqual([]);
    expect(h.emailsTo('later-sim-unsubscribes@example.com')).toHaveLength(1);
    expect(h.emailsTo('fine@example.com')).toHaveLength(2);
  });

  it('drafts an email step for approval, with its subject, and sends the approved words', async () => {
    const h = await emailHarness(
      [{ kind: 'email', subject: 'Hello {{firstName}}', text: 'Dear {{firstName}}, a note.' }],
      [{ slug: 'dr', email: 'dr@example.com' }, { slug: 'nodraft' }],
      { approval: 'required' },
    );
    await h.run(() => listDrafts(h.ctx, 'secret', { campaignId: 'cmp', limit: 100 }).drafts.length === 1 && ended(h, 'lead_2')());
    // The lead without an address is skipped, undrafted.
    expect(h.eventsOf('lead_2')).toEqual(['email:skipped:no_email']);
    const [draft] = listDrafts(h.ctx, 'secret', { campaignId: 'cmp', limit: 100 }).drafts;
    expect(draft).toMatchObject({ kind: 'email', subject: 'Hello Person1', text: 'Dear Person1, a note.', status: 'pending' });
    expect(draft!.accountId).toMatch(/^mbx_/);
    // A stale revision is a conflict; the subject follows the email's rules.
    expect(updateDrafts(h.ctx, [{ id: draft!.id, subject: 'x'.repeat(201) }]).results[0]!.status).toBe('validation_error');
    expect(updateDrafts(h.ctx, [{ id: draft!.id, text: 'Changed', revision: 99 }]).results[0]!.status).toBe('conflict');
    const done = updateDrafts(h.ctx, [{ id: draft!.id, subject: 'A better subject', text: 'Dear Person1, better words.', status: 'approved' }]);
    expect(done.results[0]!.status).toBe('updated');
    await h.run(() => ended(h, 'lead_1')());
    expect(h.emailsTo('dr@example.com').map((e) => e.subject)).toEqual(['A better subject']);
    expect(listDrafts(h.ctx, 'secret', { campaignId: 'cmp', limit: 100 }).drafts[0]).toMatchObject({ status: 'sent' });
    const text = h.ctx.db.$client.prepare("SELECT text FROM messages WHERE lead_id = 'lead_1' AND channel = 'email'").get() as { text: string };
    expect(text.text).toContain('Dear Person1, better words.');
  });
});

describe('a reply by email', () => {
  it('waits in the inbox for a person: the reply agent, which writes on LinkedIn, does not take it', () => {
    const h = harness(engineWorkspace(['ema', 'lin']));
    const info = loadCampaignInfo(h.ctx, 'cmp')!;
    const reply = (leadId: string, channel: 'email' | 'linkedin') =>
      transaction(h.ctx.db, () =>
        applyLeadReply(
          h.ctx,
          { lead: h.lead(leadId) as never, info },
          {
            text: 'Sounds interesting. What does pricing look like?',
            at: h.ctx.simClock.now(),
            accountId: 'acc_a',
            externalId: `x-${leadId}`,
            chatId: channel === 'email' ? null : 'chat_1',
            channel,
          },
          settings,
        ),
      );
    reply('lead_1', 'email');
    expect(h.lead('lead_1')).toMatchObject({ replied: true, needsReply: true, pendingReplyText: null });
    reply('lead_2', 'linkedin');
    expect(h.lead('lead_2')).toMatchObject({ replied: true, needsReply: true, pendingReplyText: 'Sounds interesting. What does pricing look like?' });
  });
});

describe('campaign mailboxes and the email step shape', () => {
  it('validates mailboxIds, needs a mailbox to start a campaign with email steps, and shows them in get_campaign', async () => {
    const h = harness(engineWorkspace(['x'], { status: 'READY_TO_SEND' }));
    updateAgent(h.ctx, 'tpl', { steps: [{ kind: 'email', subject: 'Hi', text: 'Hello.' }] });
    const unknown = (() => {
      try {
        updateCampaign(h.ctx, 'cmp', { mailboxIds: ['mbx_nope'] });
      } catch (err) {
        return err;
      }
    })();
    expect(unknown).toBeInstanceOf(ApiError);
    expect((unknown as ApiError).code).toBe('not_found');
    expect((unknown as ApiError).details.fields).toEqual(['mailboxIds[0]']);
    await expect(startCampaign(h.ctx, 'cmp')).rejects.toMatchObject({ code: 'validation_error', details: { fields: ['mailboxIds'] } });
    const { mailbox } = await connectMailbox(h.ctx, { name: 'm', address: 'm@outreach.test', sim: true });
    expect(updateCampaign(h.ctx, 'cmp', { mailboxIds: [mailbox.id, mailbox.id] }).mailboxIds).toEqual([mailbox.id]);
    await startCampaign(h.ctx, 'cmp');
    expect(getCampaign(h.ctx, 'cmp')).toMatchObject({ mailboxIds: [mailbox.id], status: 'CAMPAIGN_IN_PROGRESS' });
    expect(() => updateCampaign(h.ctx, 'cmp', { mailboxIds: [] })).toThrow(/running/);
  });

  it('takes the step as the spec writes it and refuses what does not fit, naming the path', () => {
    const h = harness(engineWorkspace(['x'], { status: 'READY_TO_SEND' }));
    const agent = updateAgent(h.ctx, 'tpl', {
      steps: [
        { kind: 'email', subject: 'Hi {{firstName}}', text: 'Hello.', variants: [{ text: 'Hey.' }, { text: 'Yo.', subject: 'Yo {{firstName}}' }] },
        { kind: 'if', condition: 'tagged', tags: ['Interested', 'Meeting request'], withinHours: 24, then: [], else: [] },
      ],
    });
    expect(agent.steps[0]).toMatchObject({
      kind: 'email',
      subject: 'Hi {{firstName}}',
      text: 'Hello.',
      variants: [{ text: 'Hey.' }, { text: 'Yo.', subject: 'Yo {{firstName}}' }],
    });
    expect(agent.steps[1]).toMatchObject({ kind: 'if', condition: 'tagged', tags: ['Interested', 'Meeting request'] });
    const fails = (steps: unknown[]) => {
      try {
        updateAgent(h.ctx, 'tpl', { steps: steps as StepInput[] });
      } catch (err) {
        return (err as ApiError).details.fields;
      }
      return null;
    };
    // The lengths are the schema's (the tools and routes parse it first).
    const issue = (steps: unknown[]) => StepsInput.safeParse(steps).error?.issues.map((i) => i.path.join('.'));
    expect(issue([{ kind: 'email', subject: 'Hi', text: 'x'.repeat(20001) }])).toEqual(['0.text']);
    expect(issue([{ kind: 'email', subject: '', text: 'x' }])).toEqual(['0.subject']);
    expect(issue([{ kind: 'email', subject: 'x'.repeat(201), text: 'x' }])).toEqual(['0.subject']);
    expect(issue([{ kind: 'email', subject: 'Hi', text: 'x'.repeat(20000), variants: [{ text: 'y' }] }])).toBeUndefined();
    expect(issue([{ kind: 'if', condition: 'tagged', tags: ['Nope'], withinHours: 2 }])).toEqual(['0.tags.0']);
    expect(fails([{ kind: 'email', subject: 'Hi {{nope}}', text: 'x' }])).toEqual(['steps[0].subject']);
    expect(fails([{ kind: 'if', condition: 'tagged', withinHours: 2 }])).toEqual(['steps[0].tags']);
    expect(fails([{ kind: 'if', condition: 'email_replied', tags: ['Interested'], withinHours: 2 }])).toEqual(['steps[0].tags']);
    expect(fails([{ kind: 'email', subject: 'Hi', text: 'x'.repeat(20000) }])).toBeNull();
  });
});
