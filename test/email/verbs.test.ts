import { describe, expect, it } from 'vitest';
import { getConversation, listConversations, replyToConversation } from '../../src/core/conversations/threads.js';
import { ApiError } from '../../src/core/errors.js';
import { readMailbox } from '../../src/core/email/inbox.js';
import { deliverEmail, planEmail, recordEmailSent, sendEmail, unsubscribeToken } from '../../src/core/email/send.js';
import { transaction } from '../../src/db/tx.js';
import { unsubscribe } from '../../src/core/email/unsubscribe.js';
import { addLead } from '../../src/core/leads/add.js';
import { updateMailboxRow } from '../../src/core/mailboxes/store.js';
import { resolveEngineSettings } from '../../src/core/outreach/settings.js';
import { startSequence, getPosition } from '../../src/core/sequences/store.js';
import { MailLoginError } from '../../src/core/network/mail.js';
import { testCtx } from '../helpers.js';

const settings = resolveEngineSettings({ workingHours: null });
const HOUR = 3_600_000;

function setup() {
  const ctx = testCtx();
  ctx.safety = settings.safety;
  ctx.publicUrl = 'https://outreach.example.com';
  let n = 0;
  const lead = (email: string | undefined) => {
    const { leadId } = addLead(ctx, 'cmp_running', {
      networkUrl: `https://www.linkedin.com/in/email-lead-${++n}`,
      firstName: 'Lea',
      ...(email ? { email } : {}),
    });
    startSequence(ctx, { leadId, campaignId: 'cmp_running', agentId: 'tpl_intro', stepId: 'step_1', at: ctx.simClock.now() });
    return leadId;
  };
  const q = <T>(sql: string, ...args: unknown[]) => ctx.db.$client.prepare(sql).all(...args) as T[];
  // Past the mailbox's spacing, so each send may go.
  const later = () => ctx.clock.advance(10 * 60_000);
  return { ctx, lead, q, later };
}

describe('sendEmail and the inbox, on the simulated mail server', () => {
  it('sends with the unsubscribe link and the RFC 8058 headers, and records the Message-ID and the conversation', async () => {
    const { ctx, lead, q } = setup();
    const leadId = lead('lea@example.com');
    const r = await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId, subject: 'Hello Lea', text: 'A short note.' });
    expect(r).toMatchObject({ status: 'sent', messageId: expect.stringMatching(/^<eml_.+@outreach\.test>$/) });
    if (r.status !== 'sent') return;
    const [send] = q<{ message_id: string; state: string; address: string }>('SELECT message_id, state, address FROM email_sends');
    expect(send).toEqual({ message_id: r.messageId, state: 'sent', address: 'lea@example.com' });
    const [raw] = q<{ raw: string }>('SELECT raw FROM sim_mail');
    expect(raw).toBeUndefined(); // a plain address gets no answer
    const [thread] = q<{ last_channel: string; last_direction: string }>('SELECT last_channel, last_direction FROM conversations WHERE lead_id = ?', leadId);
    expect(thread).toEqual({ last_channel: 'email', last_direction: 'outbound' });
  });

  it('refuses no_email, and never mails an unsubscribed or bounced address again, in any campaign', async () => {
    const { ctx, lead, later } = setup();
    expect(await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: lead(undefined), subject: 's', text: 't' })).toEqual({
      status: 'skipped',
      reason: 'no_email',
    });

    const bouncing = lead('sim-bounces@example.com');
    expect((await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: bouncing, subject: 's', text: 't' })).status).toBe('sent');
    ctx.clock.advance(2 * 60_000);
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ read: 1, bounces: 1 });
    later();
    expect(await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: bouncing, subject: 's', text: 't' })).toEqual({ status: 'skipped', reason: 'bounced' });
    // The same address in another campaign is not mailed either.
    const { leadId: elsewhere } = addLead(ctx, 'cmp_q4', { networkUrl: 'https://www.linkedin.com/in/bounce-elsewhere', email: 'SIM-BOUNCES@example.com' });
    expect(await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: elsewhere, subject: 's', text: 't' })).toEqual({ status: 'skipped', reason: 'bounced' });
    const events = ctx.db.$client.prepare("SELECT payload FROM webhook_events WHERE type = 'email.bounced'").all() as { payload: string }[];
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.payload).data.email).toMatchObject({ address: 'sim-bounces@example.com', mailboxId: 'mbx_sales', status: '5.1.1' });
    // A bounce does not end the lead's sequence: its other steps may still reach it.
    expect(getPosition(ctx, bouncing)?.endReason).toBeNull();
  });

  it("a bounce reaches the lead's thread: the mail server's notice after the email, which is marked bounced", async () => {
    const { ctx, lead } = setup();
    const leadId = lead('sim-bounces@example.com');
    expect((await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId, subject: 'Hello Lea', text: 'A short note.' })).status).toBe('sent');
    // Before the report comes back, nothing says the email bounced.
    expect(getConversation(ctx, leadId).messages.map((m) => m.bouncedAt)).toEqual([null]);
    ctx.clock.advance(2 * 60_000);
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ bounces: 1 });
    const { messages } = getConversation(ctx, leadId);
    expect(messages).toHaveLength(2);
    const [sent, notice] = messages;
    expect(sent).toMatchObject({ sender: 'sequence', direction: 'outbound', channel: 'email', bouncedAt: notice!.at });
    expect(notice).toMatchObject({ sender: 'mail_server', direction: 'inbound', channel: 'email', bouncedAt: null });
    expect(notice!.text).toContain('Not delivered: the email "Hello Lea" to sim-bounces@example.com bounced.');
    expect(notice!.text).toMatch(/The mail server said: 5\.1\.1 \S/);
    expect(notice!.text).toContain('will not be emailed again');
    // The inbox list shows the bounce as the thread's newest message; it is nobody's reply.
    const thread = listConversations(ctx, 'secret', { filter: 'all', limit: 50 }).conversations.find((c) => c.leadId === leadId);
    expect(thread).toMatchObject({ needsReply: false, messageCount: 2, lastMessage: { sender: 'mail_server', direction: 'inbound', channel: 'email' } });
    expect(thread?.lastMessage.preview).toMatch(/^Not delivered: the email "Hello Lea"/);
    expect(ctx.db.$client.prepare("SELECT count(*) AS n FROM webhook_events WHERE type = 'lead.replied'").get()).toEqual({ n: 0 });
    // Read again, the same report adds nothing.
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ bounces: 0 });
    expect(getConversation(ctx, leadId).messages).toHaveLength(2);
  });

  it('a bounce that arrives before a reply written earlier is read when it arrives, and the reply when it does', async () => {
    const { ctx, lead, later } = setup();
    const replying = lead('sim-replies-after-1@example.com');
    const bouncing = lead('yan-sim-bounces@example.com');
    // The reply is written now, to arrive in an hour; the bounce after it, to arrive in a minute.
    await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: replying, subject: 'One', text: 'One.' });
    later();
    await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: bouncing, subject: 'Two', text: 'Two.' });
    ctx.clock.advance(2 * 60_000);
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ read: 1, bounces: 1, replies: 0 });
    ctx.clock.advance(HOUR);
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ read: 1, replies: 1 });
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ read: 0 });
  });

  it('a reply matched by In-Reply-To ends the sequence, reaches the inbox marked email and fires lead.replied', async () => {
    const { ctx, lead, q, later } = setup();
    const leadId = lead('sim-replies-after-2@example.com');
    await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId, subject: 'First', text: 'One.' });
    later();
    await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId, subject: 'Second', text: 'Two.' });
    ctx.clock.advance(30 * 60_000);
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ read: 0 });
    ctx.clock.advance(HOUR);
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ read: 1, replies: 1 });
    // Read once: the cursor moved with what it recorded.
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ read: 0 });
    expect(getPosition(ctx, leadId)).toMatchObject({ stepId: null, endReason: 'replied' });
    const [l] = q<{ replied: number; stage: string }>('SELECT replied, stage FROM leads WHERE id = ?', leadId);
    expect(l).toEqual({ replied: 1, stage: 'replied' });
    const inbound = q<{ text: string; channel: string; account_id: string }>(
      "SELECT text, channel, account_id FROM messages WHERE lead_id = ? AND direction = 'inbound'",
      leadId,
    );
    expect(inbound).toEqual([{ text: 'Thanks for writing. Could we talk next week?', channel: 'email', account_id: 'mbx_sales' }]);
    expect(q<{ last_channel: string }>('SELECT last_channel FROM conversations WHERE lead_id = ?', leadId)).toEqual([{ last_channel: 'email' }]);
    expect(q("SELECT id FROM webhook_events WHERE type = 'lead.replied'")).toHaveLength(1);
    // Read again from the start (the server's UIDVALIDITY changed, or the cursor was lost): the
    // reply is known by its Message-ID and recorded once.
    updateMailboxRow(ctx, 'mbx_sales', { inboxUidValidity: null, inboxLastUid: 0 });
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ read: 1, replies: 0, ignored: 1 });
    expect(q("SELECT id FROM messages WHERE lead_id = ? AND direction = 'inbound'", leadId)).toHaveLength(1);
    expect(q("SELECT id FROM webhook_events WHERE type = 'lead.replied'")).toHaveLength(1);
    expect(q("SELECT id FROM activity WHERE type = 'reply_received' AND lead_id = ?", leadId)).toHaveLength(1);
  });

  it('the one-click unsubscribe excludes the address and ends the sequence; a forged token does nothing', async () => {
    const { ctx, lead, later } = setup();
    const leadId = lead('ben@example.com');
    const r = await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId, subject: 's', text: 't' });
    if (r.status !== 'sent') throw new Error('not sent');
    expect(unsubscribe(ctx, `${r.sendId}.forged`)).toEqual({ ok: false });
    expect(unsubscribe(ctx, unsubscribeToken(ctx, r.sendId))).toEqual({ ok: true, address: 'ben@example.com' });
    expect(getPosition(ctx, leadId)).toMatchObject({ stepId: null, endReason: 'excluded' });
    later();
    expect(await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId, subject: 's', text: 't' })).toEqual({ status: 'skipped', reason: 'unsubscribed' });
    // A simulated lead that unsubscribes does it by itself.
    const other = lead('sim-unsubscribes@example.com');
    await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: other, subject: 's', text: 't' });
    ctx.clock.advance(HOUR);
    expect(await readMailbox(ctx, 'mbx_sales', settings)).toMatchObject({ unsubscribes: 1 });
    expect(getPosition(ctx, other)?.endReason).toBe('excluded');
    // Each unsubscribe's suggested tag goes out with the lead as it is after it: excluded.
    const suggested = (ctx.db.$client.prepare("SELECT payload FROM webhook_events WHERE type = 'lead.tag_suggested'").all() as { payload: string }[]).map(
      (e) => JSON.parse(e.payload).data,
    );
    expect(suggested.map((d) => [d.lead.id, d.lead.excluded])).toEqual([
      [leadId, true],
      [other, true],
    ]);
  });

  it('a reply whose send finds the login refused is account_disconnected, as once the mailbox is known refused', async () => {
    const { ctx, lead, later } = setup();
    const leadId = lead('rex@example.com');
    expect(await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId, subject: 'Hi Rex', text: 't' })).toMatchObject({ status: 'sent' });
    later();
    const mail = ctx.mail!;
    ctx.mail = Object.assign(Object.create(mail), {
      send: async () => {
        throw new MailLoginError('smtp', 'smtp.example.com', '535 5.7.8 Authentication failed');
      },
    });
    for (let i = 0; i < 2; i++) {
      await expect(replyToConversation(ctx, { leadId, text: 'Pricing starts at 10 EUR.', channel: 'email' })).rejects.toMatchObject({
        code: 'account_disconnected',
        details: { mailboxId: 'mbx_sales' },
      });
      expect(ctx.db.$client.prepare("SELECT status FROM mailboxes WHERE id = 'mbx_sales'").pluck().get()).toBe('login_failed');
      later();
    }
  });

  it('in steps, as the engine sends: the plan rolls back with its caller, the record commits with it', async () => {
    const { ctx, lead, q } = setup();
    const leadId = lead('lea@example.com');
    const input = { mailboxId: 'mbx_sales', leadId, subject: 'Hello Lea', text: 'A short note.' };
    // Planned in a transaction that then fails: nothing of the email is left, and it may be planned again.
    expect(() =>
      transaction(ctx.db, () => {
        expect(planEmail(ctx, input, ctx.simClock.now())).toMatchObject({ status: 'go' });
        throw new Error('the intent could not be recorded');
      }),
    ).toThrow('the intent could not be recorded');
    expect(q('SELECT id FROM email_sends')).toEqual([]);
    const planned = transaction(ctx.db, () => planEmail(ctx, input, ctx.simClock.now()));
    if (planned.status !== 'go') throw new Error(`planned ${planned.status}`);
    expect(q<{ state: string }>('SELECT state FROM email_sends')).toEqual([{ state: 'sending' }]);
    const sent = await deliverEmail(ctx, planned, input);
    if ('status' in sent) throw new Error(sent.error);
    // Delivered but not yet recorded: still on its way, and not in the thread.
    expect(q<{ state: string }>('SELECT state FROM email_sends')).toEqual([{ state: 'sending' }]);
    expect(q('SELECT lead_id FROM conversations WHERE lead_id = ?', leadId)).toEqual([]);
    transaction(ctx.db, () => recordEmailSent(ctx, sent));
    expect(q<{ state: string; message_id: string }>('SELECT state, message_id FROM email_sends')).toEqual([{ state: 'sent', message_id: planned.messageId }]);
    expect(q<{ last_channel: string }>('SELECT last_channel FROM conversations WHERE lead_id = ?', leadId)).toEqual([{ last_channel: 'email' }]);
  });

  it('waits while the mailbox may not send: spacing, then the warm-up day limit', async () => {
    const { ctx, lead } = setup();
    ctx.db.$client.prepare('UPDATE mailboxes SET daily_limit = 2, spacing_seconds = 60').run();
    const a = lead('a@example.com');
    expect((await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: a, subject: 's', text: 't' })).status).toBe('sent');
    expect(await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: a, subject: 's', text: 't' })).toMatchObject({ status: 'wait', reason: 'spacing' });
    ctx.clock.advance(61_000);
    expect((await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: a, subject: 's', text: 't' })).status).toBe('sent');
    ctx.clock.advance(61_000);
    expect(await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: a, subject: 's', text: 't' })).toMatchObject({ status: 'wait', reason: 'daily_limit' });
  });
});

describe('answering an email thread from the inbox', () => {
  /** A lead who answered our email (the simulator's marker): the thread the operator replies in. */
  async function answered(email = 'sim-replies-after-1@example.com') {
    const t = setup();
    const leadId = t.lead(email);
    const first = await sendEmail(t.ctx, { mailboxId: 'mbx_sales', leadId, subject: 'A question, Lea', text: 'Would a short call help?' });
    if (first.status !== 'sent') throw new Error('not sent');
    t.ctx.clock.advance(2 * HOUR);
    expect(await readMailbox(t.ctx, 'mbx_sales', settings)).toMatchObject({ replies: 1 });
    return { ...t, leadId, first };
  }
  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      if (err instanceof ApiError) return { code: err.code, message: err.message, details: err.details };
      throw err;
    }
    throw new Error('the reply was not refused');
  };

  it('goes out by email from the thread\'s mailbox, threaded under "Re:", and hands the lead to the person', async () => {
    const { ctx, leadId, first, q } = await answered();
    const before = getConversation(ctx, leadId);
    expect(before.reply).toEqual({
      channel: 'email',
      email: { mailboxId: 'mbx_sales', from: 'sales@outreach.test', to: 'sim-replies-after-1@example.com', subject: 'Re: A question, Lea' },
    });
    const leadsReply = q<{ external_id: string }>("SELECT external_id FROM messages WHERE lead_id = ? AND sender = 'lead'", leadId)[0]!.external_id;
    const r = await replyToConversation(ctx, { leadId, text: 'Tuesday at 10 suits me.' });
    expect(r).toMatchObject({ ok: true, chatId: first.messageId, messageId: expect.stringMatching(/^<eml_.+@outreach\.test>$/) });
    const [send] = q<{ subject: string; mailbox_id: string; state: string }>(
      'SELECT subject, mailbox_id, state FROM email_sends WHERE message_id = ?',
      r.messageId,
    );
    expect(send).toEqual({ subject: 'Re: A question, Lea', mailbox_id: 'mbx_sales', state: 'sent' });
    const after = getConversation(ctx, leadId);
    expect(after.messages.at(-1)).toMatchObject({
      sender: 'operator',
      direction: 'outbound',
      channel: 'email',
      text: 'Re: A question, Lea\n\nTuesday at 10 suits me.',
    });
    expect(after.lead).toMatchObject({ needsReply: false, handedOff: true });
    // The next answer keeps the subject: one "Re:", and the reply names the lead's message it answers.
    expect(after.reply.email?.subject).toBe('Re: A question, Lea');
    expect(leadsReply).toMatch(/^<sim-/);
  });

  it('sends the In-Reply-To and References a mail client threads by', async () => {
    const { ctx, leadId, first, q } = await answered();
    const sent: { inReplyTo?: string; references?: string[]; subject: string }[] = [];
    // The simulated server, with a record of what it was handed.
    const mail = ctx.mail;
    if (!mail) throw new Error('the test context has a mail adapter');
    const send = mail.send.bind(mail);
    mail.send = (mailbox, email) => {
      sent.push({
        subject: email.subject,
        ...(email.inReplyTo ? { inReplyTo: email.inReplyTo } : {}),
        ...(email.references ? { references: email.references } : {}),
      });
      return send(mailbox, email);
    };
    await replyToConversation(ctx, { leadId, text: 'Tuesday at 10 suits me.' });
    const leadsReply = q<{ external_id: string }>("SELECT external_id FROM messages WHERE lead_id = ? AND sender = 'lead'", leadId)[0]!.external_id;
    expect(sent).toEqual([{ subject: 'Re: A question, Lea', inReplyTo: leadsReply, references: [first.messageId, leadsReply] }]);
  });

  it('takes the channel asked for, and refuses email on a thread that holds none', async () => {
    const { ctx, lead } = setup();
    const leadId = lead('lea@example.com');
    expect(getConversation(ctx, leadId).reply).toEqual({ channel: 'linkedin', email: null });
    expect(await refusal(replyToConversation(ctx, { leadId, text: 'Hi', channel: 'email' }))).toMatchObject({
      code: 'validation_error',
      message: expect.stringContaining('holds no email to answer'),
      details: { fields: ['channel'] },
    });
    expect(ctx.db.$client.prepare('SELECT count(*) AS n FROM email_sends').get()).toEqual({ n: 0 });
  });

  it('refuses a bounced or unsubscribed address with a conflict that says why, and records nothing', async () => {
    const { ctx, lead, later } = setup();
    const bouncing = lead('sim-bounces@example.com');
    await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: bouncing, subject: 'Hello', text: 'A note.' });
    ctx.clock.advance(2 * 60_000);
    await readMailbox(ctx, 'mbx_sales', settings);
    later();
    // The thread's newest message is the bounce notice; the reply still defaults to email, and is refused.
    expect(getConversation(ctx, bouncing).reply.channel).toBe('email');
    expect(await refusal(replyToConversation(ctx, { leadId: bouncing, text: 'Hello again' }))).toEqual({
      code: 'conflict',
      message: 'sim-bounces@example.com bounced an earlier email, so it is never emailed again, in any campaign. Reply on LinkedIn instead.',
      details: { address: 'sim-bounces@example.com', reason: 'bounced' },
    });
    const leaving = lead('ben@example.com');
    const r = await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId: leaving, subject: 's', text: 't' });
    if (r.status !== 'sent') throw new Error('not sent');
    unsubscribe(ctx, unsubscribeToken(ctx, r.sendId));
    later();
    expect(await refusal(replyToConversation(ctx, { leadId: leaving, text: 'Hello again' }))).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('is not emailed'),
    });
    expect(ctx.db.$client.prepare("SELECT count(*) AS n FROM messages WHERE sender = 'operator'").get()).toEqual({ n: 0 });
  });

  it("holds to the mailbox's spacing and daily limit, with the time to retry", async () => {
    const { ctx, leadId } = await answered();
    ctx.db.$client.prepare('UPDATE mailboxes SET daily_limit = 3, spacing_seconds = 600').run();
    // The lead's reply came two hours after our email: the spacing has passed, the limit not reached.
    await replyToConversation(ctx, { leadId, text: 'One.' });
    expect(await refusal(replyToConversation(ctx, { leadId, text: 'Two.' }))).toMatchObject({
      code: 'rate_limited',
      details: { mailboxId: 'mbx_sales', retryAfterSeconds: 600 },
    });
    ctx.clock.advance(601_000);
    await replyToConversation(ctx, { leadId, text: 'Two.' });
    ctx.clock.advance(601_000);
    // The first email and two replies: the day's three are spent.
    const full = await refusal(replyToConversation(ctx, { leadId, text: 'Three.' }));
    expect(full).toMatchObject({ code: 'network_daily_quota', details: { mailboxId: 'mbx_sales' } });
    expect(full.message).toContain('sales@outreach.test');
    expect(full.details.retryAfterSeconds).toBeGreaterThan(0);
  });
});
