import { describe, expect, it } from 'vitest';
import { readMailbox } from '../../src/core/email/inbox.js';
import { deliverEmail, planEmail, recordEmailSent, sendEmail, unsubscribeToken } from '../../src/core/email/send.js';
import { transaction } from '../../src/db/tx.js';
import { unsubscribe } from '../../src/core/email/unsubscribe.js';
import { addLead } from '../../src/core/leads/add.js';
import { resolveEngineSettings } from '../../src/core/outreach/settings.js';
import { startSequence, getPosition } from '../../src/core/sequences/store.js';
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
