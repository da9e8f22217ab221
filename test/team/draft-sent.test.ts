import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { StepInput } from '../../src/core/agents/steps.js';
import { withAudit } from '../../src/core/audit/scope.js';
import type { Ctx } from '../../src/core/context.js';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { claimDraftForSend, markDraftSent } from '../../src/core/drafts/send.js';
import { listDrafts } from '../../src/core/drafts/list.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { DraftSentEvent } from '../../src/core/webhooks/payloads.js';
import { transaction } from '../../src/db/tx.js';
import { webhookEvents } from '../../src/db/schema.js';
import { testCtx } from '../helpers.js';
import { HOUR, MINUTE } from '../engine/helpers.js';
import { noteFor, reviewWorkspace } from '../drafts/helpers.js';
import { stepsHarness } from '../sequences/runner-helpers.js';

const sentEvents = (ctx: Ctx) =>
  ctx.db
    .select()
    .from(webhookEvents)
    .where(eq(webhookEvents.type, 'draft.sent'))
    .all()
    .map((e) => JSON.parse(e.payload));

const RITA = { type: 'member' as const, id: 'usr_rita', name: 'Rita Reviewer' };

/** The `draft.sent` webhook: a draft that went out, with who approved it (decidedBy), never its words. */
describe('draft.sent', () => {
  it('the engine sends an approved note: one event naming the member who approved it, with the draft and the lead, no words', async () => {
    const steps: StepInput[] = [{ kind: 'invite', note: 'Hi {{firstName}}, glad to connect.' }];
    const h = await stepsHarness(steps, [{ slug: 'amy-sim-never-accepts', firstName: 'Amy' }], { approval: 'required' });
    for (let t = 0; t < 2 * HOUR; t += 10 * MINUTE) {
      await h.tick();
      h.ctx.clock.advance(10 * MINUTE);
    }
    const [note] = listDrafts(h.ctx, 'secret', { campaignId: 'cmp', limit: 10, status: 'pending' }).drafts;
    expect(note).toBeDefined();
    expect(sentEvents(h.ctx)).toEqual([]);
    const words = 'Amy, a private sentence that must not leave the server.';
    await withAudit(h.ctx, { actor: RITA, action: 'update_drafts', targets: [note!.id], summary: 'Update drafts' }, () =>
      updateDrafts(h.ctx, [{ id: note!.id, text: words, status: 'approved' }]),
    );
    await h.tick();
    expect(h.net.calls.at(-1)).toMatchObject({ op: 'connect', text: words });

    const events = sentEvents(h.ctx);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(DraftSentEvent.safeParse(event).success).toBe(true);
    expect(event).toMatchObject({
      type: 'draft.sent',
      data: {
        campaign: { id: 'cmp' },
        // The lead as the send left it (the event is recorded before the lead's row is written).
        lead: { id: 'lead_1', firstName: 'Amy', stage: 'connection_sent' },
        draft: { id: note!.id, kind: 'invite', stepId: h.steps[0]!.id },
        decidedBy: RITA,
      },
    });
    expect(event.data.draft.sentAt).toEqual(expect.any(String));
    expect(JSON.stringify(event)).not.toContain('private sentence');
    expect(Object.keys(event.data.draft).sort()).toEqual(['createdAt', 'id', 'kind', 'sentAt', 'stepId', 'variant']);
    expect(Object.keys(event.data.decidedBy).sort()).toEqual(['id', 'name', 'type']);

    // More ticks send nothing again: one event per sent draft.
    await h.tick();
    expect(sentEvents(h.ctx)).toHaveLength(1);
  });

  it('names a key that approved, and is null for a draft nobody decided (approval turned off)', async () => {
    const ctx = testCtx({ workspace: reviewWorkspace(2) });
    const keyed = draftFor(ctx, noteFor('lead_r0'));
    const released = draftFor(ctx, noteFor('lead_r1'));
    const key = ctx.db.$client.prepare("SELECT id, name FROM api_keys WHERE env = 'test' LIMIT 1").get() as { id: string; name: string };
    await withAudit(ctx, { actor: { type: 'key', id: key.id }, action: 'update_drafts', targets: [], summary: 'Update drafts' }, () =>
      updateDrafts(ctx, [{ id: keyed.id, status: 'approved' }]),
    );
    updateCampaign(ctx, 'cmp_review', { approval: 'off' });
    for (const [draft, intent] of [
      [keyed, 'int_1'],
      [released, 'int_2'],
    ] as const) {
      expect(claimDraftForSend(ctx, draft.id, intent)).not.toBeNull();
      expect(markDraftSent(ctx, draft.id, intent)).toBe(true);
    }
    const events = sentEvents(ctx);
    expect(events.map((e) => [e.data.lead.id, e.data.decidedBy])).toEqual([
      ['lead_r0', { type: 'key', id: key.id, name: key.name }],
      ['lead_r1', null],
    ]);
  });

  it('is recorded in the transaction that marks the draft sent: rolled back with it, and not for a send that does not hold the draft', () => {
    const ctx = testCtx({ workspace: reviewWorkspace(1) });
    const draft = draftFor(ctx, noteFor('lead_r0'));
    updateDrafts(ctx, [{ id: draft.id, status: 'approved' }]);
    expect(claimDraftForSend(ctx, draft.id, 'int_1')).not.toBeNull();
    expect(markDraftSent(ctx, draft.id, 'int_other')).toBe(false);
    expect(sentEvents(ctx)).toEqual([]);
    expect(() =>
      transaction(ctx.db, () => {
        expect(markDraftSent(ctx, draft.id, 'int_1')).toBe(true);
        expect(sentEvents(ctx)).toHaveLength(1);
        throw new Error('the send result could not be recorded');
      }),
    ).toThrow('could not be recorded');
    expect(sentEvents(ctx)).toEqual([]);
    expect(markDraftSent(ctx, draft.id, 'int_1')).toBe(true);
    const [event] = sentEvents(ctx);
    // Approved outside any call (no actor): nobody is named.
    expect(event.data.decidedBy).toBeNull();
  });
});
