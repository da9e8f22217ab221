import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/core/clock.js';
import type { PendingSend } from '../../../src/core/outreach/deferral.js';
import { ACCOUNT_RETRY_MS, RETRY_BASE_MS } from '../../../src/core/outreach/failures.js';
import { resolveEngineSettings } from '../../../src/core/outreach/settings.js';
import { getLead, loadCampaignInfo } from '../../../src/core/outreach/state.js';
import { AGENT_FAILED, afterAgent, agentInput, bySendOrder, leadFailed, workLead } from '../../../src/core/outreach/work.js';
import { agents, exclusions, leads } from '../../../src/db/schema.js';
import { engineWorkspace } from '../../engine/helpers.js';
import { testCtx } from '../../helpers.js';
import { HOUR } from './helpers.js';

const NOW = Date.parse('2026-11-03T10:00:00Z');
const settings = resolveEngineSettings({ workingHours: null });

function setup(over: Partial<typeof leads.$inferInsert> = {}) {
  const ctx = testCtx({ workspace: engineWorkspace(['ann', 'bob']), clock: new FakeClock(NOW) });
  if (Object.keys(over).length > 0) ctx.db.update(leads).set(over).where(eq(leads.id, 'lead_1')).run();
  const info = loadCampaignInfo(ctx, 'cmp')!;
  const lead = () => getLead(ctx, 'lead_1')!;
  return { ctx, info, lead };
}

describe("a due lead's next action", () => {
  it('queues an invitation from the campaign sender for a new lead', () => {
    const { ctx, info, lead } = setup();
    expect(workLead(ctx, lead(), info, settings, NOW)).toEqual({
      kind: 'send',
      send: { leadId: 'lead_1', kind: 'connect', accountId: 'acc_a', due: 0, followsSender: true },
    });
  });

  it("sends from the lead's own account, which its campaign does not follow", () => {
    const { ctx, info, lead } = setup({ accountId: 'acc_b' });
    expect(workLead(ctx, lead(), info, settings, NOW)).toMatchObject({ kind: 'send', send: { accountId: 'acc_b', followsSender: false } });
  });

  it('records a later due time when the plan is not due yet, and the end of its work when there is none', () => {
    const { ctx, info, lead } = setup({ stage: 'connected', connectionRequestAccepted: true, connectedAt: NOW, nextActionAt: NOW });
    expect(workLead(ctx, lead(), info, settings, NOW)).toEqual({ kind: 'recorded' });
    expect(lead().nextActionAt).toBe(NOW + HOUR);
    ctx.db.update(leads).set({ excluded: true }).where(eq(leads.id, 'lead_1')).run();
    expect(workLead(ctx, lead(), info, settings, NOW)).toEqual({ kind: 'recorded' });
    expect(lead().nextActionAt).toBeNull();
  });

  it('fails a lead with no profile to reach; withdraws our timed-out invitation, and only ends one it did not send', () => {
    const { ctx, info, lead } = setup({ networkUrl: null });
    expect(workLead(ctx, lead(), info, settings, NOW)).toEqual({ kind: 'recorded' });
    expect(lead().stage).toBe('failed');
    const ours = setup({ stage: 'connection_sent', invitedAt: NOW - 30 * 24 * HOUR, nextActionAt: 5 });
    expect(workLead(ours.ctx, ours.lead(), ours.info, settings, NOW)).toMatchObject({ kind: 'send', send: { kind: 'withdraw', due: 5 } });
    const loaded = setup({ stage: 'connection_sent', updatedAt: NOW - 30 * 24 * HOUR, nextActionAt: 5 });
    expect(workLead(loaded.ctx, loaded.lead(), loaded.info, settings, NOW)).toEqual({ kind: 'recorded' });
    expect(loaded.lead().nextActionAt).toBeNull();
  });

  it('waits an hour when no account can send for the lead', () => {
    const { ctx, lead } = setup({ nextActionAt: 7 });
    ctx.db.update(agents).set({ accountId: null }).run();
    const info = loadCampaignInfo(ctx, 'cmp')!;
    expect(workLead(ctx, lead(), info, settings, NOW)).toEqual({ kind: 'recorded' });
    expect(lead().nextActionAt).toBe(NOW + ACCOUNT_RETRY_MS);
  });

  it('sends a polite close in an open conversation, and excludes at once without one', () => {
    const open = setup({ politeClosePendingAt: NOW, replied: true, stage: 'replied', chatId: 'chat_1' });
    expect(workLead(open.ctx, open.lead(), open.info, settings, NOW)).toMatchObject({ kind: 'send', send: { kind: 'polite_close' } });
    const closed = setup({ politeClosePendingAt: NOW });
    expect(workLead(closed.ctx, closed.lead(), closed.info, settings, NOW)).toEqual({ kind: 'recorded' });
    expect(closed.lead()).toMatchObject({ excluded: true, politeClosePendingAt: null });
    expect(
      closed.ctx.db
        .select()
        .from(exclusions)
        .all()
        .map((e) => e.networkUrl),
    ).toEqual([closed.lead().networkUrl]);
  });

  it('asks the agent about a pending reply, then queues its answer; a superseded or empty answer sends nothing', () => {
    const { ctx, info, lead } = setup({ stage: 'replied', replied: true, pendingReplyText: 'What does it cost?', chatId: 'chat_1', nextActionAt: NOW });
    const work = workLead(ctx, lead(), info, settings, NOW);
    expect(work).toEqual({ kind: 'ask_agent', input: agentInput(lead()) });
    expect(agentInput(lead())).toMatchObject({ text: 'What does it cost?', lead: { firstName: 'Person1' }, turns: 0 });
    if (work.kind !== 'ask_agent') throw new Error('expected ask_agent');
    // A newer reply arrived while the agent thought: its decision is dropped.
    expect(afterAgent(ctx, 'lead_1', info, settings, { ...work.input, text: 'older' }, { kind: 'reply', text: 'Hi' }, NOW)).toEqual({ kind: 'recorded' });
    expect(afterAgent(ctx, 'lead_1', info, settings, work.input, { kind: 'reply', text: 'It is free.' }, NOW)).toMatchObject({
      kind: 'send',
      send: { leadId: 'lead_1', kind: 'agent_send', accountId: 'acc_a' },
    });
    expect(lead()).toMatchObject({ pendingReplyText: null, agentSendKind: 'reply', agentSendText: 'It is free.' });
  });

  it('hands the conversation to a person when the agent fails', () => {
    const { ctx, info, lead } = setup({ stage: 'replied', replied: true, pendingReplyText: 'Hm?', chatId: 'chat_1', nextActionAt: NOW });
    expect(afterAgent(ctx, 'lead_1', info, settings, agentInput(lead()), AGENT_FAILED, NOW)).toEqual({ kind: 'recorded' });
    expect(lead().stage).toBe('handed_off');
  });

  it('looks at a lead the engine could not work again later, its polite close too', () => {
    const { ctx, lead } = setup({ nextActionAt: 5 });
    expect(leadFailed(ctx, lead(), new Error('boom'))).toBeNull();
    expect(lead().nextActionAt).toBe(NOW + RETRY_BASE_MS);
    ctx.db.update(leads).set({ politeClosePendingAt: NOW }).where(eq(leads.id, 'lead_1')).run();
    expect(leadFailed(ctx, lead(), new Error('boom'))).toBe(NOW + RETRY_BASE_MS);
  });

  it("orders an account's sends: conversations first, then the sequence, withdrawals before new invitations", () => {
    const kinds: PendingSend['kind'][] = ['connect', 'withdraw', 'message', 'agent_send', 'polite_close'];
    const sends = kinds.map((kind) => ({ leadId: kind, kind, accountId: 'acc_a', due: 0, followsSender: true }));
    expect(sends.sort(bySendOrder).map((s) => s.kind)).toEqual(['polite_close', 'agent_send', 'message', 'withdraw', 'connect']);
  });
});
