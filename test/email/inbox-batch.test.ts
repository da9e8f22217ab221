import { describe, expect, it } from 'vitest';
import { recordInboxBatch } from '../../src/core/email/inbox.js';
import { sendEmail } from '../../src/core/email/send.js';
import { addLead } from '../../src/core/leads/add.js';
import { findMailbox } from '../../src/core/mailboxes/store.js';
import type { InboundEmail } from '../../src/core/network/mail.js';
import { resolveEngineSettings } from '../../src/core/outreach/settings.js';
import { getPosition, startSequence } from '../../src/core/sequences/store.js';
import { testCtx } from '../helpers.js';

/*
 * A batch of inbox messages is recorded in one transaction with its cursor (recordInboxBatch,
 * what the mail poller runs per batch it reads): a message whose record fails is left out alone,
 * and a failure of the batch itself leaves nothing of it behind.
 */

const settings = resolveEngineSettings({ workingHours: null });

async function setup(leads: number) {
  const ctx = testCtx();
  ctx.safety = settings.safety;
  ctx.publicUrl = 'https://outreach.example.com';
  const sent: { leadId: string; messageId: string }[] = [];
  for (let i = 0; i < leads; i++) {
    const { leadId } = addLead(ctx, 'cmp_running', {
      networkUrl: `https://www.linkedin.com/in/batch-lead-${i}`,
      firstName: 'Lea',
      email: `lea${i}@example.com`,
    });
    startSequence(ctx, { leadId, campaignId: 'cmp_running', agentId: 'tpl_intro', stepId: 'step_1', at: ctx.simClock.now() });
    const r = await sendEmail(ctx, { mailboxId: 'mbx_sales', leadId, subject: `Hello ${i}`, text: 'A short note.' });
    if (r.status !== 'sent') throw new Error(`email ${i} not sent: ${r.status}`);
    sent.push({ leadId, messageId: r.messageId });
    // Past the mailbox's spacing, so the next send may go.
    ctx.clock.advance(10 * 60_000);
  }
  const q = <T>(sql: string, ...args: unknown[]) => ctx.db.$client.prepare(sql).all(...args) as T[];
  const reply = (to: number, uid: number, messageId: string): InboundEmail => ({
    uid,
    messageId,
    inReplyTo: sent[to]!.messageId,
    references: [sent[to]!.messageId],
    from: `lea${to}@example.com`,
    subject: `Re: Hello ${to}`,
    text: `Reply ${to}: Tuesday works.\n\nOn Mon, Ada Sales wrote:\n> A short note.\n`,
    date: ctx.clock.now(),
    bounce: null,
    simUnsubscribe: false,
  });
  /** Everything a recorded reply leaves for a lead, so a test can say it is there once, or not at all. */
  const recorded = (i: number) => {
    const leadId = sent[i]!.leadId;
    const [lead] = q<{ replied: number; stage: string }>('SELECT replied, stage FROM leads WHERE id = ?', leadId);
    return {
      replied: lead!.replied,
      stage: lead!.stage,
      inbound: q<{ text: string }>("SELECT text FROM messages WHERE lead_id = ? AND direction = 'inbound'", leadId).map((m) => m.text),
      activity: q("SELECT id FROM activity WHERE type = 'reply_received' AND lead_id = ?", leadId).length,
      events: q<{ payload: string }>("SELECT payload FROM webhook_events WHERE type = 'lead.replied'").filter(
        (e) => JSON.parse(e.payload).data.lead.id === leadId,
      ).length,
      sendRepliedAt: q<{ replied_at: number | null }>('SELECT replied_at FROM email_sends WHERE message_id = ?', sent[i]!.messageId)[0]!.replied_at,
      endReason: getPosition(ctx, leadId)?.endReason ?? null,
    };
  };
  const cursor = () => {
    const m = findMailbox(ctx, 'mbx_sales')!;
    // When it was read is the server's clock at the batch's commit.
    expect(m.inboxReadAt).toBe(m.inboxLastUid === 0 ? null : ctx.clock.now());
    return { uidValidity: m.inboxUidValidity, lastUid: m.inboxLastUid };
  };
  return { ctx, q, reply, recorded, cursor };
}

const nothing = { replied: 0, stage: 'new', inbound: [], activity: 0, events: 0, sendRepliedAt: null, endReason: null };

describe('recordInboxBatch', () => {
  it('a failing message and a duplicate are left out; the rest of the batch and the cursor commit together', async () => {
    const { ctx, reply, recorded, cursor } = await setup(3);
    // Lead 1's reply fails half-way through its record (its message row is refused, after the
    // lead, its sequence, its activity and its counters were written).
    ctx.db.$client.exec(
      "CREATE TEMP TRIGGER refuse_one BEFORE INSERT ON messages WHEN NEW.external_id = '<broken@example.com>' BEGIN SELECT RAISE(ABORT, 'refused for the test'); END",
    );
    const batch = {
      messages: [reply(0, 11, '<r0@example.com>'), reply(1, 12, '<broken@example.com>'), reply(0, 13, '<r0@example.com>'), reply(2, 14, '<r2@example.com>')],
      cursor: { uidValidity: '7', lastUid: 20 },
      skipped: 6,
    };
    expect(recordInboxBatch(ctx, 'mbx_sales', batch, settings)).toEqual({ read: 10, replies: 2, bounces: 0, unsubscribes: 0, ignored: 7, failed: 1 });
    const once = { replied: 1, stage: 'replied', activity: 1, events: 1, sendRepliedAt: expect.any(Number), endReason: 'replied' };
    expect(recorded(0)).toEqual({ ...once, inbound: ['Reply 0: Tuesday works.'] });
    expect(recorded(2)).toEqual({ ...once, inbound: ['Reply 2: Tuesday works.'] });
    // Nothing of the failing reply is left: not the lead's stage, its sequence's end, its activity or its event.
    expect(recorded(1)).toEqual(nothing);
    expect(cursor()).toEqual({ uidValidity: '7', lastUid: 20 });

    // Read again (the cursor lost): what was recorded stays once; the failed one, now accepted, is recorded.
    ctx.db.$client.exec('DROP TRIGGER refuse_one');
    expect(recordInboxBatch(ctx, 'mbx_sales', batch, settings)).toMatchObject({ replies: 1, ignored: 9, failed: 0 });
    expect(recorded(0)).toEqual({ ...once, inbound: ['Reply 0: Tuesday works.'] });
    expect(recorded(1)).toEqual({ ...once, inbound: ['Reply 1: Tuesday works.'] });
    expect(recorded(2)).toEqual({ ...once, inbound: ['Reply 2: Tuesday works.'] });
  });

  it('an exception that stops the batch (the cursor cannot be written) leaves nothing of it half-applied', async () => {
    const { ctx, reply, recorded, cursor } = await setup(2);
    const before = cursor();
    ctx.db.$client.exec("CREATE TEMP TRIGGER refuse_cursor BEFORE UPDATE OF inbox_last_uid ON mailboxes BEGIN SELECT RAISE(ABORT, 'cursor refused'); END");
    const batch = { messages: [reply(0, 1, '<a@example.com>'), reply(1, 2, '<b@example.com>')], cursor: { uidValidity: '7', lastUid: 2 }, skipped: 0 };
    expect(() => recordInboxBatch(ctx, 'mbx_sales', batch, settings)).toThrow('cursor refused');
    expect(recorded(0)).toEqual(nothing);
    expect(recorded(1)).toEqual(nothing);
    expect(cursor()).toEqual(before);
    expect(ctx.db.$client.inTransaction).toBe(false);

    // An error that makes SQLite end the transaction itself mid-batch (a full disk) commits nothing either.
    ctx.db.$client.exec('DROP TRIGGER refuse_cursor');
    ctx.db.$client.exec(
      "CREATE TEMP TRIGGER disk_full BEFORE INSERT ON messages WHEN NEW.external_id = '<b@example.com>' BEGIN SELECT RAISE(ROLLBACK, 'database or disk is full'); END",
    );
    expect(() => recordInboxBatch(ctx, 'mbx_sales', batch, settings)).toThrow('database or disk is full');
    expect(recorded(0)).toEqual(nothing);
    expect(recorded(1)).toEqual(nothing);
    expect(cursor()).toEqual(before);

    // The same batch read again once the fault is gone records both replies, once each.
    ctx.db.$client.exec('DROP TRIGGER disk_full');
    expect(recordInboxBatch(ctx, 'mbx_sales', batch, settings)).toMatchObject({ replies: 2, failed: 0 });
    expect(recorded(0).inbound).toEqual(['Reply 0: Tuesday works.']);
    expect(recorded(1).inbound).toEqual(['Reply 1: Tuesday works.']);
    expect(cursor()).toEqual({ uidValidity: '7', lastUid: 2 });
  });
});
