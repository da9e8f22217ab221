import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getConversation, listConversations, markConversationDone, replyToConversation } from '../../src/core/conversations/threads.js';
import { sendMessage } from '../../src/core/inbox/send.js';
import { deleteLeadsBatch } from '../../src/core/leads/delete.js';
import { accounts, activity, messages } from '../../src/db/schema.js';
import { silentLogger } from '../../src/log.js';
import { handleUnipileWebhook } from '../../src/network/unipile/inbound.js';
import { SqliteUnipileStore } from '../../src/core/network/unipile-store.js';
import { engineWorkspace, harness, HOUR, url } from '../engine/helpers.js';

const SECRET = 'cursor-secret';
const count = (rows: unknown[]) => rows.length;

function setup() {
  const h = harness(
    engineWorkspace([
      { slug: 'pat-sim-fast-accept-sim-replies-positive', firstName: 'Pat' },
      { slug: 'quinn-sim-fast-accept-sim-replies-negative', firstName: 'Quinn' },
      { slug: 'rue-sim-fast-accept-sim-no-reply', firstName: 'Rue' },
    ]),
  );
  const messagesOf = (leadId: string) => h.ctx.db.select().from(messages).where(eq(messages.leadId, leadId)).all();
  const activityOf = (leadId: string, type: string, manual = false) =>
    h.ctx.db
      .select()
      .from(activity)
      .where(and(eq(activity.leadId, leadId), eq(activity.type, type), eq(activity.manual, manual)))
      .all();
  return { h, messagesOf, activityOf };
}

describe('the conversation store', () => {
  it('records exactly one message per engine send and per simulated reply, never the invitation', async () => {
    const { h, messagesOf, activityOf } = setup();
    await h.runUntil(() => h.lead('lead_1').agentTurns > 0 && h.lead('lead_2').replied && h.lead('lead_3').sequenceStep > 0, 10 * 60_000);
    for (const id of ['lead_1', 'lead_2', 'lead_3']) {
      const thread = messagesOf(id);
      // Invitations are not messages; every other send and every reply is one message.
      expect(activityOf(id, 'connection_request_sent')).toHaveLength(1);
      expect(count(thread.filter((m) => m.sender === 'sequence'))).toBe(activityOf(id, 'message_sent').length);
      expect(count(thread.filter((m) => m.sender === 'agent'))).toBe(activityOf(id, 'agent_replied').length + activityOf(id, 'cta_sent').length);
      expect(count(thread.filter((m) => m.sender === 'lead'))).toBe(activityOf(id, 'reply_received').length);
      expect(thread.every((m) => (m.sender === 'lead') === (m.direction === 'inbound'))).toBe(true);
    }
    const pat = messagesOf('lead_1');
    expect(pat.map((m) => m.sender)).toEqual(['sequence', 'lead', 'agent']);
    expect(pat[0]!.text).toBe('Thanks for connecting, Pat!');
    expect(activityOf('lead_1', 'cta_sent')).toHaveLength(1);
    // The simulated reply lands in the thread in full.
    const reply = pat[1]!;
    expect(reply.text.length).toBeGreaterThan(0);
    expect(getConversation(h.ctx, 'lead_1').messages.map((m) => m.text)).toContain(reply.text);
    expect(messagesOf('lead_3').map((m) => m.sender)).toEqual(['sequence']);
  });

  it('records the API send_message and the operator reply as one message each, as api and operator', async () => {
    const { h, messagesOf, activityOf } = setup();
    await sendMessage(h.ctx, { campaignId: 'cmp', leadId: 'lead_3', text: 'Hello from the API' });
    expect(messagesOf('lead_3').map((m) => [m.sender, m.direction, m.text])).toEqual([['api', 'outbound', 'Hello from the API']]);
    await replyToConversation(h.ctx, { leadId: 'lead_3', text: 'And from the operator' });
    expect(messagesOf('lead_3').map((m) => m.sender)).toEqual(['api', 'operator']);
    // Manual sends stay out of the listed activity.
    expect(activityOf('lead_3', 'message_sent', false)).toHaveLength(0);
    expect(activityOf('lead_3', 'message_sent', true)).toHaveLength(2);
  });

  it('records nothing when the send is refused', async () => {
    const { h, messagesOf } = setup();
    await expect(replyToConversation(h.ctx, { leadId: 'lead_missing', text: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    h.ctx.db.update(accounts).set({ status: 'disconnected' }).where(eq(accounts.id, 'acc_a')).run();
    await expect(replyToConversation(h.ctx, { leadId: 'lead_3', text: 'x' })).rejects.toMatchObject({ code: 'account_disconnected' });
    expect(messagesOf('lead_3')).toEqual([]);
  });

  it('puts a Unipile inbound message in the thread, beside a simulated one', async () => {
    const { h, messagesOf } = setup();
    await h.runUntil(() => h.lead('lead_3').sequenceStep > 0, 10 * 60_000);
    h.ctx.db.update(accounts).set({ providerAccountId: 'UNI_A' }).where(eq(accounts.id, 'acc_a')).run();
    const store = new SqliteUnipileStore(h.ctx.db, h.ctx.simClock);
    const sim = h.ctx.network;
    const drainSim = sim.drainInbound.bind(sim);
    h.ctx.network = Object.assign(Object.create(Object.getPrototypeOf(sim) as object) as object, sim, {
      drainInbound: async (now: number) => [...(await drainSim(now)), ...store.drain(now, 100)],
    }) as typeof sim;
    const outcome = handleUnipileWebhook(
      { store, clock: h.ctx.clock, log: silentLogger() },
      {
        event: 'message_received',
        account_id: 'UNI_A',
        account_info: { user_id: 'ACoSELF' },
        chat_id: 'chat-rue',
        message_id: 'msg-rue-1',
        message: 'Hi! Could you tell me more about pricing for a team of 12?',
        timestamp: new Date(h.ctx.clock.now()).toISOString(),
        sender: { attendee_provider_id: 'ACoRUE', attendee_profile_url: `${url('rue-sim-fast-accept-sim-no-reply')}/` },
      },
    );
    expect(outcome.status).toBe('queued');
    h.ctx.clock.advance(HOUR);
    await h.tick();
    const thread = messagesOf('lead_3');
    // The agent may answer in the same tick; the lead's message is in the thread either way.
    expect(thread.slice(0, 2).map((m) => m.sender)).toEqual(['sequence', 'lead']);
    expect(thread[1]!.text).toBe('Hi! Could you tell me more about pricing for a team of 12?');
    expect(h.lead('lead_3').replied).toBe(true);
  });

  it('lists threads newest inbound first, filters them, and Done clears needsReply', async () => {
    const { h } = setup();
    await h.runUntil(() => h.lead('lead_1').agentTurns > 0 && h.lead('lead_2').stage === 'handed_off' && h.lead('lead_3').sequenceStep > 0, 10 * 60_000);
    const all = listConversations(h.ctx, SECRET, { filter: 'all', limit: 50 });
    expect(all.conversations.map((c) => c.leadId).sort()).toEqual(['lead_1', 'lead_2', 'lead_3']);
    const inbound = all.conversations.filter((c) => c.lastInboundAt !== null).map((c) => c.lastInboundAt!);
    expect(inbound).toEqual([...inbound].sort().reverse());
    // The thread the lead never wrote in comes last.
    expect(all.conversations.at(-1)!.leadId).toBe('lead_3');
    expect(all.conversations.find((c) => c.leadId === 'lead_2')).toMatchObject({
      handedOff: true,
      needsReply: true,
      campaign: { id: 'cmp', name: 'Engine test' },
    });

    const handedOff = listConversations(h.ctx, SECRET, { filter: 'handed_off', limit: 50 });
    expect(handedOff.conversations.map((c) => c.leadId)).toEqual(['lead_2']);
    expect(listConversations(h.ctx, SECRET, { filter: 'needs_reply', limit: 50 }).conversations.map((c) => c.leadId)).toEqual(['lead_2']);

    markConversationDone(h.ctx, 'lead_2');
    expect(h.lead('lead_2').needsReply).toBe(false);
    expect(listConversations(h.ctx, SECRET, { filter: 'needs_reply', limit: 50 }).conversations).toEqual([]);

    // Keyset paging walks every thread once.
    const first = listConversations(h.ctx, SECRET, { filter: 'all', limit: 2 });
    expect(first.conversations).toHaveLength(2);
    const second = listConversations(h.ctx, SECRET, { filter: 'all', limit: 2, cursor: first.nextCursor! });
    expect([...first.conversations, ...second.conversations].map((c) => c.leadId)).toEqual(all.conversations.map((c) => c.leadId));
    expect(second.nextCursor).toBeNull();
    expect(() => listConversations(h.ctx, SECRET, { filter: 'needs_reply', limit: 2, cursor: first.nextCursor! })).toThrow(/Invalid cursor/);
  });

  it('deletes a thread with its lead', async () => {
    const { h, messagesOf } = setup();
    await sendMessage(h.ctx, { campaignId: 'cmp', leadId: 'lead_3', text: 'Hello' });
    expect(messagesOf('lead_3')).toHaveLength(1);
    deleteLeadsBatch(h.ctx, 'cmp', ['lead_3']);
    expect(messagesOf('lead_3')).toEqual([]);
    expect(listConversations(h.ctx, SECRET, { filter: 'all', limit: 50 }).conversations).toEqual([]);
    expect(() => getConversation(h.ctx, 'lead_3')).toThrow(/No lead/);
  });
});
