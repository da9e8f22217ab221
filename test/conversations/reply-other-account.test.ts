import { asc, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { applyInbound } from '../../src/core/outreach/inbound.js';
import { activity, webhookEvents } from '../../src/db/schema.js';
import { resolveEngineSettings } from '../../src/workers/outreach/index.js';
import { fixture, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';

/**
 * POST /inbox/messages may send from an account other than the lead's (`accountId`). The lead's
 * answer comes back in that account's chat: it is the lead's reply all the same, and the lead's
 * events name the account of the chat it is in.
 */
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ADA = 'https://www.linkedin.com/in/ada-lovelace';

/** Ada writes back on `accountId`, in `chatId`: the engine's inbound verb, as the provider's event reaches it. */
const adaReplies = (s: TestServer, accountId: string, chatId: string, text: string) =>
  applyInbound(
    s.ctx,
    {
      type: 'message_received',
      id: `evt_${accountId}_${chatId}`,
      accountId,
      networkUrl: ADA,
      providerId: 'ada-provider',
      chatId,
      text,
      at: s.ctx.simClock.now(),
    },
    resolveEngineSettings(),
  );

/** A server on the fixture, and an operator's message to lead_ada1 (cmp_q4) from `accountId`: its chat. */
async function setup() {
  server = await startTestServer({ workspace: fixture(), limits: RELAXED_LIMITS });
  const s = server;
  const write = async (accountId: string, text: string): Promise<string> => {
    const res = await s.rest('/inbox/messages', { method: 'POST', body: JSON.stringify({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text, accountId }) });
    expect(res.status).toBe(200);
    return res.body.chatId as string;
  };
  return { s, write };
}

describe('a lead written from another account than its own', () => {
  it('its reply in that chat is recorded: replied, the activity, and lead.replied naming that account', async () => {
    const { s, write } = await setup();
    // lead_ada1 has no account of its own; its campaign's agent sends from acc_ada.
    const chatId = await write('acc_nav', 'Hello Ada, from the other desk');
    const changed = adaReplies(s, 'acc_nav', chatId, 'Happy to talk');
    expect(changed).toEqual(['cmp_q4']);
    const lead = await s.rest('/campaigns/cmp_q4/leads/lead_ada1');
    expect(lead.body).toMatchObject({ replied: true });
    const replies = s.ctx.db.select().from(activity).where(eq(activity.type, 'reply_received')).all();
    expect(replies.filter((a) => a.leadId === 'lead_ada1' && a.messagePreview === 'Happy to talk').map((a) => a.accountId)).toEqual(['acc_nav']);
    const events = s.ctx.db.select().from(webhookEvents).orderBy(asc(webhookEvents.createdAt)).all();
    const replied = events.filter((e) => e.type === 'lead.replied').map((e) => JSON.parse(e.payload).data);
    expect(replied).toEqual([expect.objectContaining({ accountId: 'acc_nav', lead: expect.objectContaining({ id: 'lead_ada1' }) })]);
  });

  it('a reply on another account, in a chat the lead is not in, is still not the lead’s', async () => {
    const { s, write } = await setup();
    await write('acc_ada', 'Hello Ada');
    const changed = adaReplies(s, 'acc_nav', 'chat_somewhere_else', 'Hi');
    expect(changed).toEqual([]);
    expect((await s.rest('/campaigns/cmp_q4/leads/lead_ada1')).body).toMatchObject({ replied: false });
  });

  it("a lead event of no chat (a tag) names the account of the lead's chat before the agent's", async () => {
    const { s, write } = await setup();
    const tagged = async () => {
      const events = s.ctx.db.select().from(webhookEvents).where(eq(webhookEvents.type, 'lead.tagged')).orderBy(asc(webhookEvents.createdAt)).all();
      return events.map((e) => JSON.parse(e.payload).data.accountId);
    };
    // No chat yet: the agent's account, the one that would write first.
    expect((await s.rest('/campaigns/cmp_q4/leads/lead_ada1', { method: 'PATCH', body: JSON.stringify({ tag: 'Interested' }) })).status).toBe(200);
    expect(await tagged()).toEqual(['acc_ada']);
    // Written from acc_nav: its chat's account.
    await write('acc_nav', 'Hello Ada');
    expect((await s.rest('/campaigns/cmp_q4/leads/lead_ada1', { method: 'PATCH', body: JSON.stringify({ tag: 'Meeting request' }) })).status).toBe(200);
    expect(await tagged()).toEqual(['acc_ada', 'acc_nav']);
  });
});
