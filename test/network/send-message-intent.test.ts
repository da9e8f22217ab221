import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { accountDaily, activity, engineIntents } from '../../src/db/schema.js';
import { Engine, resolveEngineSettings } from '../../src/workers/outreach/index.js';
import { fixture, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';

/**
 * send_message records an intent before the provider call, as the engine does: when recording
 * the send fails after the provider sent it, the caller is told it was sent, the idempotency key
 * keeps that answer, and a retry never sends twice.
 */
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup() {
  server = await startTestServer({ workspace: fixture(), limits: RELAXED_LIMITS });
  const s = server;
  const sends: string[] = [];
  const inner = s.ctx.network.sendMessage.bind(s.ctx.network);
  s.ctx.network.sendMessage = async (input) => {
    sends.push(input.text);
    return inner(input);
  };
  const post = (body: Record<string, unknown>, key?: string) =>
    s.rest('/inbox/messages', { method: 'POST', body: JSON.stringify(body), ...(key ? { headers: { 'Idempotency-Key': key } } : {}) });
  const intents = () => s.ctx.db.select().from(engineIntents).where(eq(engineIntents.leadId, 'lead_ada1')).all();
  const manualSends = () =>
    s.ctx.db
      .select()
      .from(activity)
      .where(and(eq(activity.leadId, 'lead_ada1'), eq(activity.manual, true), eq(activity.type, 'message_sent')))
      .all();
  const dailyMessages = () =>
    s.ctx.db
      .select()
      .from(accountDaily)
      .where(eq(accountDaily.accountId, 'acc_ada'))
      .all()
      .reduce((n, d) => n + d.messagesSent, 0);
  return { s, sends, post, intents, manualSends, dailyMessages };
}

describe('send_message intents', () => {
  it('records a sent intent with the chat and message ids', async () => {
    const t = await setup();
    const r = await t.post({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hello Ada' });
    expect(r.status).toBe(200);
    expect(t.intents()).toEqual([
      expect.objectContaining({
        kind: 'manual_message',
        state: 'sent',
        accountId: 'acc_ada',
        text: 'Hello Ada',
        chatId: r.body.chatId,
        messageId: r.body.messageId,
      }),
    ]);
  });

  it('a failure to record after the provider sent: success, the key keeps it, a retry sends nothing, recovery counts it once', async () => {
    const t = await setup();
    const daily = t.dailyMessages();
    t.s.ctx.faults = {
      hit: (point) => {
        if (point === 'inbox.send.record') throw new Error('disk I/O error');
      },
    };
    const body = { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Only once, please' };
    const first = await t.post(body, 'key-once');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ ok: true, messageId: expect.any(String) });
    expect(t.sends).toEqual(['Only once, please']);
    // Nothing of the send landed but its intent, still pending.
    expect(t.intents()).toEqual([expect.objectContaining({ state: 'pending', kind: 'manual_message' })]);
    expect(t.manualSends()).toHaveLength(0);

    t.s.ctx.faults = undefined;
    const retry = await t.post(body, 'key-once');
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(t.sends).toHaveLength(1);

    // The engine settles it on recovery: counted as sent, once, never sent again.
    const engine = new Engine(t.s.ctx, { settings: resolveEngineSettings(), holder: 'recovery-test' });
    await engine.tick();
    await engine.stop();
    expect(t.intents()).toEqual([expect.objectContaining({ state: 'assumed_sent' })]);
    expect(t.manualSends()).toHaveLength(1);
    expect(t.dailyMessages()).toBe(daily + 1);
    expect(t.sends).toHaveLength(1);
  });

  it('a provider refusal closes the intent as failed and changes nothing else', async () => {
    const t = await setup();
    t.s.ctx.network.sendMessage = async () => {
      const { networkError } = await import('../../src/core/network/provider.js');
      throw networkError('send_failed');
    };
    const daily = t.dailyMessages();
    const r = await t.post({ campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Refused' });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('send_failed');
    expect(t.intents()).toEqual([expect.objectContaining({ state: 'failed', errorCode: 'send_failed' })]);
    expect(t.manualSends()).toHaveLength(0);
    expect(t.dailyMessages()).toBe(daily);
  });
});
