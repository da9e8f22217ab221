// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { describe, expect, it } from 'vitest';
import type { StepInput } from '../../src/core/agents/steps.js';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { listDrafts } from '../../src/core/drafts/list.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { createDrafter } from '../../src/network/drafter/index.js';
import { Engine } from '../../src/workers/outreach/index.js';
import { StandInModel } from '../drafts/stand-in-model.js';
import { engineSettings, HOUR, MINUTE } from '../engine/helpers.js';
import { stepsHarness, type StepsHarness } from './runner-helpers.js';

const AMY = 'amy-sim-accepts-after-2h-sim-no-reply';
const BEN = 'ben-sim-never-accepts';

const STEPS: StepInput[] = [
  { kind: 'visit' },
  { kind: 'invite', note: 'Hi {{firstName}}, glad to connect.', variants: [{ note: 'Hello {{firstName}}!' }] },
  {
    kind: 'if',
    condition: 'accepted',
    withinHours: 24,
    then: [{ kind: 'message', text: 'Thanks {{firstName}}.' }],
    else: [{ kind: 'inmail', subject: 'For {{firstName}}', text: 'Hi {{firstName}}, one idea.' }],
  },
];

const drafts = (h: StepsHarness, status?: 'pending' | 'approved' | 'rejected' | 'sent') =>
  listDrafts(h.ctx, 'secret', { campaignId: 'cmp', limit: 100, ...(status ? { status } : {}) }).drafts;

/** Ticks, a simulated `step` apart, for `span`. */
async function run(h: StepsHarness, span: number, step = 10 * MINUTE): Promise<void> {
  for (let t = 0; t < span; t += step) {
    await h.tick();
    h.ctx.clock.advance(step);
  }
}

describe('drafts and approval in the step runner', () => {
  it('with approval required, a note waits as a draft; the approved words are sent exactly, then the next step is drafted in turn', async () => {
    const h = await stepsHarness(STEPS, [{ slug: AMY, firstName: 'Amy' }], { approval: 'required' });
    await run(h, 6 * HOUR);
    // The visit went; the invitation waits for its draft.
    expect(h.net.calls.map((c) => c.op)).toEqual(['visit']);
    const [note] = drafts(h);
    expect(note).toMatchObject({ kind: 'invite', status: 'pending', leadId: 'lead_1', stepId: h.steps[1]!.id });
    expect(['Hi Amy, glad to connect.', 'Hello Amy!']).toContain(note!.text);
    expect(note!.variant).toMatch(/^[AB]$/);
    expect(h.lead('lead_1').nextActionAt).not.toBeNull();
    expect(h.campaign().status).toBe('CAMPAIGN_IN_PROGRESS');

    const words = 'Amy, your talk on queues was superb — glad to connect. ✨';
    expect(updateDrafts(h.ctx, [{ id: note!.id, text: words, status: 'approved' }]).summary.updated).toBe(1);
    // The decision makes the lead due at once.
    await h.tick();
    const invite = h.intents('lead_1').find((i) => i.kind === 'connection_request')!;
    expect(h.net.calls.at(-1)).toMatchObject({ op: 'connect', text: words });
    expect(invite.text).toBe(words);
    expect(drafts(h, 'sent').map((d) => d.text)).toEqual([words]);

    // Accepted: the message step is drafted in its turn, and sent once approved.
    await h.runUntil(() => drafts(h, 'pending').length === 1, 10 * MINUTE, 500);
    const [message] = drafts(h, 'pending');
    expect(message).toMatchObject({ kind: 'message', text: 'Thanks Amy.' });
    expect(h.net.calls.filter((c) => c.op === 'message')).toHaveLength(0);
    updateDrafts(h.ctx, [{ id: message!.id, status: 'approved' }]);
    await h.tick();
    expect(h.net.calls.at(-1)).toMatchObject({ op: 'message', text: 'Thanks Amy.' });
    await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE, 500);
    expect(h.eventsOf('lead_1')).toEqual(['visit:sent', 'invite:sent', 'if:sent', 'invite:accepted', 'message:sent']);
  });

  it('a rejected draft ends the lead sequence: nothing more is sent to it', async () => {
    const h = await stepsHarness(STEPS, [{ slug: AMY, firstName: 'Amy' }], { approval: 'required' });
    await run(h, 2 * HOUR);
    const [note] = drafts(h, 'pending');
    updateDrafts(h.ctx, [{ id: note!.id, status: 'rejected' }]);
    await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE, 100);
    expect(h.net.calls.map((c) => c.op)).toEqual(['visit']);
    expect(h.position('lead_1')).toMatchObject({ stepId: null, endReason: 'rejected' });
  });

  it('approval off sends at once, with no draft; turning it off sends what waits as it stands', async () => {
    const off = await stepsHarness(STEPS, [{ slug: BEN, firstName: 'Ben' }]);
    await run(off, HOUR);
    expect(off.net.calls.map((c) => c.op)).toEqual(['visit', 'connect']);
    expect(drafts(off)).toEqual([]);

    const h = await stepsHarness(STEPS, [{ slug: BEN, firstName: 'Ben' }], { approval: 'required' });
    await run(h, 2 * HOUR);
    const [note] = drafts(h, 'pending');
    updateDrafts(h.ctx, [{ id: note!.id, text: 'Ben — as edited, not approved.' }]);
    // Approval turned off while the campaign runs: the edited words go as they stand.
    expect(updateCampaign(h.ctx, 'cmp', { approval: 'off' }).approval).toBe('off');
    await h.tick();
    expect(h.net.calls.at(-1)).toMatchObject({ op: 'connect', text: 'Ben — as edited, not approved.' });
    // Later steps go without drafts: the InMail when the invitation times out.
    await h.runUntil(() => h.net.calls.some((c) => c.op === 'inmail'), 10 * MINUTE, 500);
    expect(h.net.calls.at(-1)).toMatchObject({ op: 'inmail', text: 'Hi Ben, one idea.' });
    expect(drafts(h).map((d) => d.status)).toEqual(['sent']);
  });

  it('an InMail draft carries its subject; a kill while the approved words are on the wire sends them once', async () => {
    const h = await stepsHarness([{ kind: 'inmail', subject: 'For {{firstName}}', text: 'Hi {{firstName}}, one idea.' }], [{ slug: BEN, firstName: 'Ben' }], {
      approval: 'required',
    });
    await run(h, HOUR);
    const [draft] = drafts(h, 'pending');
    expect(draft).toMatchObject({ kind: 'inmail', subject: 'For Ben', text: 'Hi Ben, one idea.' });
    updateDrafts(h.ctx, [{ id: draft!.id, subject: 'A thought, Ben', text: 'Ben, exactly this.', status: 'approved' }]);
    h.net.hold();
    const crashed = h.tick();
    await h.net.arrived;
    // The draft is held by the send: nobody can change it now.
    expect(updateDrafts(h.ctx, [{ id: draft!.id, text: 'Too late' }]).results[0]!.status).toBe('conflict');
    h.ctx.clock.advance(31_000);
    const second = new Engine(h.ctx, { settings: engineSettings({ replyWaitDays: 0 }), random: () => 0, holder: 'engine-after-kill' });
    await second.tick();
    h.net.release();
    await crashed;
    for (let i = 0; i < 6; i++) {
      h.ctx.clock.advance(10 * MINUTE);
      await second.tick();
    }
    expect(h.net.calls).toEqual([{ op: 'inmail', networkUrl: expect.stringContaining(BEN), text: 'Ben, exactly this.', accountId: expect.any(String) }]);
    expect(drafts(h).map((d) => d.status)).toEqual(['sent']);
    expect(h.intents('lead_1').map((i) => [i.kind, i.state, i.text])).toEqual([['inmail', 'assumed_sent', 'Ben, exactly this.']]);
  });

  it('with a model configured, the draft waiting for approval holds its words', async () => {
    const model = await new StandInModel().start();
    try {
      model.behaviour = { kind: 'reply', text: 'Amy, I read your piece on queues. Glad to connect?' };
      const h = await stepsHarness([{ kind: 'invite', note: 'Hi {{firstName}}' }], [{ slug: AMY, firstName: 'Amy' }], { approval: 'required' });
      h.ctx.drafter = createDrafter({ baseUrl: model.url, model: 'stand-in-1' }, {});
      await run(h, HOUR);
      expect(drafts(h, 'pending')).toMatchObject([{ text: 'Amy, I read your piece on queues. Glad to connect?', renderedText: 'Hi Amy' }]);
      expect(h.net.calls).toEqual([]);
    } finally {
      await model.close();
    }
  });
});

describe("the agent's replies under approval", () => {
  const QUESTION = 'amy-sim-fast-accept-sim-replies-question';
  const run2 = async (h: StepsHarness, pred: () => boolean) => h.runUntil(pred, 10 * MINUTE, 1000);

  it('an answer waits as a draft of its reply turn; approved, exactly its words go, once', async () => {
    const h = await stepsHarness(
      [
        { kind: 'invite', note: null },
        { kind: 'if', condition: 'accepted', withinHours: 48, then: [{ kind: 'message', text: 'Thanks {{firstName}}' }] },
      ],
      [{ slug: QUESTION, firstName: 'Amy' }],
      // A reply may take days: the campaign keeps running for it.
      { approval: 'required', config: { replyWaitDays: 7 } },
    );
    await run2(h, () => drafts(h, 'pending').length === 1);
    updateDrafts(h.ctx, [{ id: drafts(h, 'pending')[0]!.id, status: 'approved' }]);
    await run2(h, () => drafts(h, 'pending').length === 1);
    const [reply] = drafts(h, 'pending');
    expect(reply).toMatchObject({ kind: 'message', stepId: null, variant: null });
    expect(h.lead('lead_1')).toMatchObject({ stage: 'replied', agentSendKind: 'reply' });
    const sentBefore = h.net.calls.length;
    await run(h, HOUR);
    expect(h.net.calls).toHaveLength(sentBefore);
    updateDrafts(h.ctx, [{ id: reply!.id, text: 'It costs nothing to try, Amy: shall I send the details?', status: 'approved' }]);
    await h.tick();
    expect(h.net.calls.at(-1)).toMatchObject({ op: 'message', text: 'It costs nothing to try, Amy: shall I send the details?' });
    expect(h.intents('lead_1').at(-1)).toMatchObject({ kind: 'agent_reply', text: 'It costs nothing to try, Amy: shall I send the details?' });
    expect(drafts(h).find((d) => d.id === reply!.id)?.status).toBe('sent');
    expect(h.lead('lead_1')).toMatchObject({ agentTurns: 1, agentSendKind: null });
  });

  it('a rejected answer is not sent: the conversation goes to a person', async () => {
    const h = await stepsHarness(
      [
        { kind: 'invite', note: null },
        { kind: 'if', condition: 'accepted', withinHours: 48, then: [{ kind: 'message', text: 'Thanks {{firstName}}' }] },
      ],
      [{ slug: QUESTION, firstName: 'Amy' }],
      // A reply may take days: the campaign keeps running for it.
      { approval: 'required', config: { replyWaitDays: 7 } },
    );
    await run2(h, () => drafts(h, 'pending').length === 1);
    updateDrafts(h.ctx, [{ id: drafts(h, 'pending')[0]!.id, status: 'approved' }]);
    await run2(h, () => drafts(h, 'pending').length === 1);
    const sentBefore = h.net.calls.length;
    updateDrafts(h.ctx, [{ id: drafts(h, 'pending')[0]!.id, status: 'rejected' }]);
    await run2(h, () => h.lead('lead_1').stage === 'handed_off');
    expect(h.net.calls).toHaveLength(sentBefore);
    expect(h.events('agent_handed_off').map((e) => e.handOffReason)).toEqual(["A person rejected the agent's reply; a person should answer."]);
  });
});
