import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDrafts } from '../../src/core/drafts/list.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { claimDraftForSend, draftAt } from '../../src/core/drafts/send.js';
import { skipDraftRow } from '../../src/core/drafts/store.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { RELAXED_LIMITS, startTestServer, testCtx, type TestServer } from '../helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';

describe('draft revisions', () => {
  it('start at 1, grow by one with each change of text or subject, and not with a status change', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const d = draftFor(ctx, noteFor('lead_r0'));
    expect(d.revision).toBe(1);
    updateDrafts(ctx, [{ id: d.id, text: 'New words' }]);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })?.revision).toBe(2);
    // The same words again change nothing.
    updateDrafts(ctx, [{ id: d.id, text: 'New words' }]);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })?.revision).toBe(2);
    updateDrafts(ctx, [{ id: d.id, status: 'approved', revision: 2 }]);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })).toMatchObject({ revision: 2, status: 'approved' });
    const inmail = draftFor(ctx, noteFor('lead_r1', { stepId: 'stp_in', kind: 'inmail', subject: 'Hi', text: 'Body' }));
    updateDrafts(ctx, [{ id: inmail.id, subject: 'Hello' }]);
    updateDrafts(ctx, [{ id: inmail.id, subject: 'Hello again', text: 'Other body' }]);
    const listed = listDrafts(ctx, 'secret', { campaignId: 'cmp_review', limit: 10 }).drafts;
    expect(listed.map((x) => [x.id, x.revision, x.skipReason])).toEqual([
      [d.id, 2, null],
      [inmail.id, 3, null],
    ]);
  });

  it('a stale revision is a conflict naming the current revision, status and text; nothing of the item is written', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const d = draftFor(ctx, noteFor('lead_r0'));
    const other = draftFor(ctx, noteFor('lead_r1'));
    // An assistant rewrites the draft while a reviewer looks at revision 1.
    updateDrafts(ctx, [{ id: d.id, text: 'Words the reviewer never saw' }]);
    const r = updateDrafts(ctx, [
      { id: d.id, text: 'Reviewer words', status: 'approved', revision: 1 },
      { id: other.id, status: 'approved', revision: 1 },
    ]);
    expect(r.summary).toEqual({ total: 2, updated: 1, not_found: 0, validation_error: 0, conflict: 1 });
    expect(r.results[0]).toEqual({
      index: 0,
      draftId: d.id,
      status: 'conflict',
      error: {
        code: 'conflict',
        message: expect.stringMatching(/revision 2, not 1.*Words the reviewer never saw/),
        current: { revision: 2, status: 'pending', text: 'Words the reviewer never saw', subject: null },
      },
    });
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })).toMatchObject({ text: 'Words the reviewer never saw', status: 'pending', revision: 2 });
    // Without a revision, an item applies as before.
    expect(updateDrafts(ctx, [{ id: d.id, status: 'approved' }]).summary.updated).toBe(1);
    // A sent, rejected or skipped draft's conflict names what it is now too.
    updateDrafts(ctx, [{ id: other.id, status: 'rejected' }]);
    const skipped = draftFor(ctx, noteFor('lead_r2'));
    skipDraftRow(ctx, skipped.id, 'replied');
    const closed = updateDrafts(ctx, [
      { id: other.id, status: 'approved' },
      { id: skipped.id, status: 'approved', revision: 1 },
    ]);
    expect(closed.results.map((x) => [x.status, x.error?.current?.status])).toEqual([
      ['conflict', 'rejected'],
      ['conflict', 'skipped'],
    ]);
    expect(closed.results[1]!.error!.message).toMatch(/skipped \(replied\)/);
    // On the wire: a conflict with what it is.
    const wire = draftFor(ctx, noteFor('lead_r3'));
    updateDrafts(ctx, [{ id: wire.id, status: 'approved' }]);
    claimDraftForSend(ctx, wire.id, 'int_wire');
    expect(updateDrafts(ctx, [{ id: wire.id, text: 'Too late', revision: 1 }]).results[0]!.error).toMatchObject({
      code: 'conflict',
      current: { revision: 1, status: 'approved', text: 'Hi there, lead_r3' },
    });
    // A revision that is not an integer ≥ 1 is that item's validation error.
    expect(updateDrafts(ctx, [{ id: wire.id, status: 'approved', revision: 0 }]).results[0]!.status).toBe('validation_error');
  });

  it('of two items changing one draft in one batch, one is updated and the other, carrying the old revision, a conflict', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const d = draftFor(ctx, noteFor('lead_r0'));
    // Two different drafts' items of one writer each, racing: the second carries the revision both read.
    const first = updateDrafts(ctx, [{ id: d.id, text: 'First', revision: 1 }]);
    const second = updateDrafts(ctx, [{ id: d.id, text: 'Second', status: 'approved', revision: 1 }]);
    expect([first.results[0]!.status, second.results[0]!.status]).toEqual(['updated', 'conflict']);
    expect(second.results[0]!.error!.current).toEqual({ revision: 2, status: 'pending', text: 'First', subject: null });
  });
});

describe('concurrent approvals over REST', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS, workspace: reviewWorkspace(2) });
  });
  afterAll(() => server.close());

  it('20 concurrent approvals carrying 20 different texts at revision 1: exactly one is updated, and its words are the draft', async () => {
    const d = draftFor(server.ctx, noteFor('lead_r0'));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        server.rest('/drafts/batch-update', {
          method: 'POST',
          body: JSON.stringify({ drafts: [{ id: d.id, text: `Text number ${i}`, status: 'approved', revision: 1 }] }),
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const items = answers.map((a) => a.body.results[0]);
    const winners = items.filter((x) => x.status === 'updated');
    expect(winners).toHaveLength(1);
    const winner = answers.findIndex((a) => a.body.results[0].status === 'updated');
    const now = draftAt(server.ctx, 'lead_r0', { stepId: 'stp_note' })!;
    expect(now).toMatchObject({ text: `Text number ${winner}`, status: 'approved', revision: 2 });
    for (const item of items.filter((x) => x.status !== 'updated')) {
      expect(item).toMatchObject({
        status: 'conflict',
        error: { code: 'conflict', current: { revision: 2, status: 'approved', text: now.text, subject: null } },
      });
    }
    // A revision of the wrong type is a whole-request 400 naming it.
    const bad = await server.rest('/drafts/batch-update', {
      method: 'POST',
      body: JSON.stringify({ drafts: [{ id: d.id, status: 'approved', revision: 'two' }] }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields).toEqual(['drafts[0].revision']);
  });
});
