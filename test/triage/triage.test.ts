import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordMessage } from '../../src/core/conversations/record.js';
import { getConversation, listConversations } from '../../src/core/conversations/threads.js';
import { updateLead } from '../../src/core/leads/update.js';
import { suggestTagByAssistant, triagePendingByModel } from '../../src/core/triage/suggest.js';
import { conversations, webhookEvents } from '../../src/db/schema.js';
import { createTriager } from '../../src/network/drafter/index.js';
import { StandInModel } from '../drafts/stand-in-model.js';
import { engineWorkspace, harness } from '../engine/helpers.js';

const SECRET = 'cursor-secret';

function setup() {
  const h = harness(
    engineWorkspace([
      { slug: 'olive-sim-fast-accept-sim-out-of-office', firstName: 'Olive' },
      { slug: 'quinn-sim-fast-accept-sim-replies-question', firstName: 'Quinn' },
      { slug: 'pat-sim-fast-accept-sim-replies-positive', firstName: 'Pat' },
    ]),
  );
  const suggestedEvents = () =>
    h.ctx.db
      .select()
      .from(webhookEvents)
      .where(eq(webhookEvents.type, 'lead.tag_suggested'))
      .all()
      .map((e) => JSON.parse(e.payload) as { data: { lead: { id: string }; suggestion: Record<string, unknown> } });
  const row = (leadId: string) => h.ctx.db.select().from(conversations).where(eq(conversations.leadId, leadId)).get()!;
  return { h, suggestedEvents, row };
}

const allReplied = (h: ReturnType<typeof setup>['h']) => ['lead_1', 'lead_2', 'lead_3'].every((id) => h.lead(id).replied);

describe('triage of replies', () => {
  let model: StandInModel;
  beforeAll(async () => {
    model = await new StandInModel().start();
  });
  afterAll(() => model.close());

  it('without a model: a rule suggests a tag for an out-of-office reply, and nothing calls a model', async () => {
    const { h, suggestedEvents, row } = setup();
    await h.runUntil(() => allReplied(h), 10 * 60_000);
    const seen = model.seen.length;
    // The out-of-office reply got the rule's suggestion, stored with its thread.
    expect(getConversation(h.ctx, 'lead_1').suggestion).toMatchObject({ tag: 'To be defined', suggestedBy: 'rule', confidence: 0.9, reason: 'out_of_office' });
    expect(h.lead('lead_1').tag).toBeNull(); // a suggestion tags nothing
    // The others wait for nobody: no model is configured.
    for (const id of ['lead_2', 'lead_3']) {
      expect(getConversation(h.ctx, id).suggestion).toBeNull();
      expect(row(id).triagePendingAt).toBeNull();
    }
    expect(await triagePendingByModel(h.ctx)).toEqual({ suggested: 0, failed: 0 });
    expect(model.seen.length).toBe(seen);
    // One lead.tag_suggested, with the suggestion and the lead as it stands.
    expect(suggestedEvents()).toEqual([
      expect.objectContaining({
        type: 'lead.tag_suggested',
        data: expect.objectContaining({
          lead: expect.objectContaining({ id: 'lead_1', tag: null }),
          suggestion: { tag: 'To be defined', suggestedBy: 'rule', confidence: 0.9, reason: 'out_of_office' },
        }),
      }),
    ]);
    // The reply's own event comes first: a receiver working in event order hears of the reply, then of its suggestion.
    const order = h.ctx.db
      .select({ type: webhookEvents.type, payload: webhookEvents.payload })
      .from(webhookEvents)
      .orderBy(webhookEvents.seq)
      .all()
      .filter((e) => JSON.parse(e.payload).data.lead.id === 'lead_1' && (e.type === 'lead.replied' || e.type === 'lead.tag_suggested'))
      .map((e) => e.type);
    expect(order).toEqual(['lead.replied', 'lead.tag_suggested']);
  });

  it('with the drafter model: the replies the rules leave open get its suggestion, from the thread, outside the reply', async () => {
    const { h, suggestedEvents, row } = setup();
    h.ctx.triager = createTriager({ baseUrl: model.url, model: 'stand-in-1' });
    model.seen.length = 0;
    model.behaviour = (req) => {
      const thread = req.body.messages.find((m) => m.role === 'user')?.content ?? '';
      return thread.includes('pricing') || thread.includes('different') || thread.includes('case study')
        ? { kind: 'reply', text: '{"tag":"Information request","confidence":0.82,"reason":"asks a question first"}' }
        : { kind: 'reply', text: 'Here you go: {"tag":"Meeting request","confidence":0.9,"reason":"proposes a time"}' };
    };
    await h.runUntil(() => allReplied(h), 10 * 60_000);
    // Recording the reply called no model: the two open replies wait.
    expect(model.seen).toHaveLength(0);
    expect(row('lead_2').triagePendingAt).toBe(h.lead('lead_2').lastInboundMessageAt);
    expect(row('lead_1').triagePendingAt).toBeNull(); // the rule answered
    expect(await triagePendingByModel(h.ctx)).toEqual({ suggested: 2, failed: 0 });
    expect(model.seen).toHaveLength(2);
    const [first] = model.seen;
    const system = first?.body.messages.find((m) => m.role === 'system')?.content ?? '';
    const user = first?.body.messages.find((m) => m.role === 'user')?.content ?? '';
    for (const tag of ['Meeting request', 'Interested', 'Information request', 'Not interested', 'Wrong person', 'To be defined'])
      expect(system).toContain(tag);
    expect(user).toMatch(/\[Us\] .+\n\[Lead\] /);
    expect(getConversation(h.ctx, 'lead_2').suggestion).toMatchObject({ tag: 'Information request', suggestedBy: 'model', confidence: 0.82 });
    expect(getConversation(h.ctx, 'lead_3').suggestion).toMatchObject({ tag: 'Meeting request', suggestedBy: 'model', reason: 'proposes a time' });
    expect(row('lead_2').triagePendingAt).toBeNull();
    // Asked again, nothing waits: no second call.
    expect(await triagePendingByModel(h.ctx)).toEqual({ suggested: 0, failed: 0 });
    expect(model.seen).toHaveLength(2);
    expect(
      suggestedEvents()
        .map((e) => [e.data.lead.id, e.data.suggestion.suggestedBy])
        .sort(),
    ).toEqual([
      ['lead_1', 'rule'],
      ['lead_2', 'model'],
      ['lead_3', 'model'],
    ]);

    // The inbox filters by suggested tag, and its cursor keeps the filter.
    const meetings = listConversations(h.ctx, SECRET, { filter: 'all', suggestedTag: 'Meeting request', limit: 50 });
    expect(meetings.conversations.map((c) => [c.leadId, c.suggestion?.tag, c.tag])).toEqual([['lead_3', 'Meeting request', null]]);
    const page = listConversations(h.ctx, SECRET, { filter: 'all', limit: 1 });
    expect(page.nextCursor).not.toBeNull();
    expect(() => listConversations(h.ctx, SECRET, { filter: 'all', suggestedTag: 'Interested', limit: 1, cursor: page.nextCursor ?? '' })).toThrow(/cursor/i);

    // Confirming is setting the tag with the existing verb.
    await updateLead(h.ctx, 'cmp', 'lead_3', { tag: 'Meeting request' });
    const confirmed = listConversations(h.ctx, SECRET, { filter: 'all', suggestedTag: 'Meeting request', limit: 50 });
    expect(confirmed.conversations[0]).toMatchObject({ leadId: 'lead_3', tag: 'Meeting request' });
  });

  it('a model that fails or answers outside the contract leaves the reply unsuggested, and is not asked again', async () => {
    const { h, row } = setup();
    h.ctx.triager = createTriager({ baseUrl: model.url, model: 'stand-in-1' });
    model.seen.length = 0;
    model.behaviour = (req) =>
      (req.body.messages.find((m) => m.role === 'user')?.content ?? '').includes('Pat')
        ? { kind: 'status', status: 500 }
        : { kind: 'reply', text: '{"tag":"Hot lead","confidence":0.99}' };
    await h.runUntil(() => allReplied(h), 10 * 60_000);
    expect(await triagePendingByModel(h.ctx)).toEqual({ suggested: 0, failed: 2 });
    for (const id of ['lead_2', 'lead_3']) {
      expect(getConversation(h.ctx, id).suggestion).toBeNull();
      expect(row(id).triagePendingAt).toBeNull();
    }
    const calls = model.seen.length;
    expect(await triagePendingByModel(h.ctx)).toEqual({ suggested: 0, failed: 0 });
    expect(model.seen.length).toBe(calls);
  });

  it('a newer reply while the model thinks: the older answer is dropped, and the newer reply is asked about', async () => {
    const { h, row } = setup();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let calls = 0;
    h.ctx.triager = {
      async suggestTag() {
        calls++;
        if (calls === 1) {
          // While the first answer is on its way, the lead writes again.
          h.ctx.db.update(conversations).set({ triagePendingAt: 999 }).where(eq(conversations.leadId, 'lead_2')).run();
          await gate;
          return '{"tag":"Interested","confidence":0.7}';
        }
        return '{"tag":"Meeting request","confidence":0.9}';
      },
    };
    await h.runUntil(() => h.lead('lead_2').replied, 10 * 60_000);
    h.ctx.db.update(conversations).set({ triagePendingAt: null }).where(eq(conversations.leadId, 'lead_3')).run();
    const pass = triagePendingByModel(h.ctx);
    release();
    expect(await pass).toEqual({ suggested: 0, failed: 0 });
    expect(getConversation(h.ctx, 'lead_2').suggestion).toBeNull();
    // The lease keeps a second process off the thread until it runs out; then the newer reply is asked about.
    h.ctx.clock.advance(12 * 60_000);
    expect(await triagePendingByModel(h.ctx)).toEqual({ suggested: 1, failed: 0 });
    expect(getConversation(h.ctx, 'lead_2').suggestion).toMatchObject({ tag: 'Meeting request' });
    expect(row('lead_2').triagePendingAt).toBeNull();
  });

  it("the assistant's suggestion is stored like the others and replaces them; a lead without a thread, or that never replied, is not_found", async () => {
    const { h, suggestedEvents } = setup();
    await h.runUntil(() => h.lead('lead_1').replied, 10 * 60_000);
    const got = suggestTagByAssistant(h.ctx, { leadId: 'lead_1', tag: 'Interested', confidence: 0.6, reason: 'back next week, asked for details' });
    expect(got).toEqual({
      leadId: 'lead_1',
      suggestion: {
        tag: 'Interested',
        suggestedBy: 'assistant',
        confidence: 0.6,
        reason: 'back next week, asked for details',
        suggestedAt: expect.any(String),
      },
    });
    expect(getConversation(h.ctx, 'lead_1').suggestion?.suggestedBy).toBe('assistant');
    expect(suggestedEvents().map((e) => e.data.suggestion.suggestedBy)).toEqual(['rule', 'assistant']);
    expect(() => suggestTagByAssistant(h.ctx, { leadId: 'lead_nope', tag: 'Interested', confidence: 0.5 })).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    const before = suggestedEvents().length;
    expect(() => suggestTagByAssistant(h.ctx, { leadId: 'lead_3', tag: 'Interested', confidence: 0.5 })).toThrow(/no conversation/);
    // The refused call left nothing behind.
    expect(suggestedEvents()).toHaveLength(before);
    // A thread of our own messages only holds no reply to suggest a tag for.
    const lead3 = h.lead('lead_3');
    recordMessage(h.ctx, {
      lead: { id: 'lead_3', campaignId: lead3.campaignId },
      sender: 'sequence',
      text: 'Hi, worth a chat?',
      at: h.ctx.simClock.now(),
      accountId: null,
    });
    expect(() => suggestTagByAssistant(h.ctx, { leadId: 'lead_3', tag: 'Interested', confidence: 0.5 })).toThrow(
      expect.objectContaining({ code: 'not_found', message: expect.stringContaining('has not replied yet') }),
    );
    expect(getConversation(h.ctx, 'lead_3').suggestion).toBeNull();
    expect(suggestedEvents()).toHaveLength(before);
  });
});
