import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import type { Ctx } from '../../src/core/context.js';
import { draftQueues, listDrafts } from '../../src/core/drafts/list.js';
import { draftFor, prepareDraft } from '../../src/core/drafts/prepare.js';
import type { DraftStatus } from '../../src/core/drafts/rules.js';
import { changeDraft, claimDraftRow, DRAFT_TRANSITIONS, findDraftRow, markDraftRowSent, nextDraftStatus, skipDraftRow } from '../../src/core/drafts/store.js';
import { claimDraftForSend, draftAt, markDraftSent, releaseDraftClaim } from '../../src/core/drafts/send.js';
import { sendsToConfirm, updateDrafts } from '../../src/core/drafts/update.js';
import { deleteLeadsBatch } from '../../src/core/leads/delete.js';
import { handOffLead } from '../../src/core/leads/handoff.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { openDatabase } from '../../src/db/connection.js';
import { versionOf } from '../../src/db/cache.js';
import { drafts, leads, webhookEvents, workspace } from '../../src/db/schema.js';
import { approvalConfirmation, confirmationMessage, UpdateDraftsInput } from '../../src/tools/update-drafts.js';
import { testCtx } from '../helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';

const secretOf = (ctx: Ctx) => ctx.db.select().from(workspace).get()!.cursorSecret;

const step = noteFor;

const pendingEvents = (ctx: Ctx) =>
  ctx.db
    .select()
    .from(webhookEvents)
    .where(eq(webhookEvents.type, 'draft.pending'))
    .all()
    .map((e) => JSON.parse(e.payload));

describe('creating drafts (the engine side)', () => {
  it('gives a lead one draft per step, pending, with the rendered text kept beside it', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const d = draftFor(ctx, step('lead_r0'));
    expect(d).toMatchObject({ campaignId: 'cmp_review', leadId: 'lead_r0', stepId: 'stp_note', variant: 'A', kind: 'invite', status: 'pending' });
    expect(d.id).toMatch(/^drf_[0-9A-Za-z]{16}$/);
    expect(d.text).toBe('Hi there, lead_r0');
    expect(d.renderedText).toBe(d.text);
    expect(d.drafterError).toBeNull();
    // Asked again (every pass of the engine), the same draft comes back, whatever the text now.
    expect(draftFor(ctx, step('lead_r0', { text: 'other words' }))).toEqual(d);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })).toEqual(d);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_other' })).toBeNull();
    // Another step, and an agent reply turn, are drafts of their own.
    expect(draftFor(ctx, step('lead_r0', { stepId: 'stp_msg', kind: 'message' })).id).not.toBe(d.id);
    const reply = draftFor(ctx, step('lead_r0', { stepId: null, replyTurn: 0, kind: 'message', text: 'Happy to help.' }));
    expect(reply).toMatchObject({ stepId: null, kind: 'message' });
    expect(draftAt(ctx, 'lead_r0', { replyTurn: 0 })?.id).toBe(reply.id);
    expect(() => draftFor(ctx, step('lead_r0', { stepId: null }))).toThrow(/replyTurn/);
  });

  it('ends the open reply drafts skipped (handed_off) when a person takes the conversation over, so none waits approved for ever', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const waiting = draftFor(ctx, step('lead_r0', { stepId: null, replyTurn: 0, kind: 'message', text: 'Happy to help.' }));
    const approved = draftFor(ctx, step('lead_r0', { stepId: null, replyTurn: 1, kind: 'message', text: 'Here is the link.' }));
    const stepDraft = draftFor(ctx, step('lead_r0', { stepId: 'stp_msg', kind: 'message' }));
    const other = draftFor(ctx, step('lead_r1', { stepId: null, replyTurn: 0, kind: 'message', text: 'Not this one.' }));
    updateDrafts(ctx, [{ id: approved.id, status: 'approved' }]);
    expect(findDraftRow(ctx, approved.id)?.status).toBe('approved');
    const lead = ctx.db.select().from(leads).where(eq(leads.id, 'lead_r0')).get()!;
    ctx.db.transaction(() => handOffLead(ctx, lead as never, 'The operator answered by hand.', ctx.simClock.now(), null));
    expect(findDraftRow(ctx, waiting.id)).toMatchObject({ status: 'skipped', skipReason: 'handed_off' });
    expect(findDraftRow(ctx, approved.id)).toMatchObject({ status: 'skipped', skipReason: 'handed_off' });
    // The lead's step drafts and another lead's replies are not the conversation's.
    expect(findDraftRow(ctx, stepDraft.id)?.status).toBe('pending');
    expect(findDraftRow(ctx, other.id)?.status).toBe('pending');
    // Approving it afterwards is a conflict, not an approval that waits.
    const late = updateDrafts(ctx, [{ id: waiting.id, status: 'approved' }]);
    expect(late.results[0]).toMatchObject({ status: 'conflict' });
  });

  it('never holds {{ and never exceeds its kind, whatever the lead data rendered into it', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const note = draftFor(ctx, step('lead_r0', { text: `Hi {{Acme}} ${'word '.repeat(100)}` }));
    expect(note.text).not.toContain('{{');
    expect([...note.text].length).toBeLessThanOrEqual(300);
    const inmail = draftFor(ctx, step('lead_r1', { kind: 'inmail', subject: `{{x}} ${'s'.repeat(300)}`, text: 'Body' }));
    expect(inmail.subject).not.toContain('{{');
    expect([...(inmail.subject ?? '')].length).toBeLessThanOrEqual(200);
  });

  it('is approved at once in a campaign whose approval is off (turned off while it was being written)', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    expect(draftFor(ctx, step('lead_ada1', { campaignId: 'cmp_q4' })).status).toBe('approved');
  });

  it('records draft.pending when a campaign queue goes from empty to non-empty, and only then', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const first = draftFor(ctx, step('lead_r0'));
    draftFor(ctx, step('lead_r1'));
    expect(pendingEvents(ctx)).toHaveLength(1);
    const [event] = pendingEvents(ctx);
    expect(event).toMatchObject({
      type: 'draft.pending',
      data: {
        accountId: 'acc_ada',
        campaign: { id: 'cmp_review', name: 'Review' },
        lead: { id: 'lead_r0', fullName: 'Grace Hopper' },
        draft: { id: first.id, stepId: 'stp_note', kind: 'invite', variant: 'A' },
      },
    });
    // The queue drains; the next draft fills it again and is announced again.
    const all = listDrafts(ctx, secretOf(ctx), { campaignId: 'cmp_review', status: 'pending', limit: 100 }).drafts;
    updateDrafts(
      ctx,
      all.map((d) => ({ id: d.id, status: 'approved' as const })),
    );
    draftFor(ctx, step('lead_r2'));
    expect(pendingEvents(ctx).map((e) => e.data.lead.id)).toEqual(['lead_r0', 'lead_r2']);
  });
});

describe('update_drafts (the verb)', () => {
  const setup = () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const note = draftFor(ctx, step('lead_r0'));
    const message = draftFor(ctx, step('lead_r1', { stepId: 'stp_m', kind: 'message', text: 'A message' }));
    const inmail = draftFor(ctx, step('lead_r2', { stepId: 'stp_i', kind: 'inmail', subject: 'Hello', text: 'An InMail' }));
    return { ctx, note, message, inmail };
  };

  it('edits, approves and rejects, each item on its own, with a summary', () => {
    const { ctx, note, message, inmail } = setup();
    ctx.clock.advance(1000);
    const r = updateDrafts(ctx, [
      { id: note.id, text: 'Hi Grace, glad to connect.', status: 'approved' },
      { id: message.id, status: 'rejected' },
      { id: inmail.id, subject: 'A question', text: 'Dear Katherine' },
    ]);
    expect(r).toEqual({
      results: [
        { index: 0, draftId: note.id, status: 'updated' },
        { index: 1, draftId: message.id, status: 'updated' },
        { index: 2, draftId: inmail.id, status: 'updated' },
      ],
      summary: { total: 3, updated: 3, not_found: 0, validation_error: 0, conflict: 0 },
    });
    const byId = new Map(listDrafts(ctx, secretOf(ctx), { limit: 50 }).drafts.map((d) => [d.id, d]));
    expect(byId.get(note.id)).toMatchObject({ status: 'approved', text: 'Hi Grace, glad to connect.', renderedText: 'Hi there, lead_r0' });
    expect(byId.get(message.id)?.status).toBe('rejected');
    expect(byId.get(inmail.id)).toMatchObject({ status: 'pending', subject: 'A question', renderedSubject: 'Hello', text: 'Dear Katherine' });
    expect(byId.get(note.id)?.updatedAt).not.toBe(byId.get(note.id)?.createdAt);
  });

  it('holds every text to its kind: note 300, message 8000, InMail subject 200, no {{, not blank', () => {
    const { ctx, note, message, inmail } = setup();
    const r = updateDrafts(ctx, [
      { id: note.id, text: 'x'.repeat(301) },
      { id: message.id, text: 'x'.repeat(8001) },
      { id: inmail.id, subject: 's'.repeat(201) },
      { id: message.id, text: 'ok' },
    ]);
    expect(r.results.map((i) => i.status)).toEqual(['validation_error', 'validation_error', 'validation_error', 'validation_error']);
    expect(r.results[0]?.error?.message).toMatch(/drafts\[0\]\.text is 301 characters; an invitation note takes at most 300/);
    expect(r.results[1]?.error?.message).toMatch(/drafts\[1\]\.text .*at most 8000/);
    expect(r.results[2]?.error?.message).toMatch(/drafts\[2\]\.subject .*at most 200/);
    expect(r.results[3]?.error?.message).toMatch(/repeats drafts\[1\]\.id/);
    // Emoji count as one character each, as the network counts them.
    const emoji = '😀'.repeat(300);
    const braces = updateDrafts(ctx, [
      { id: note.id, text: emoji },
      { id: message.id, text: 'Hi {{firstName}}' },
      { id: inmail.id, text: '   ' },
    ]);
    expect(braces.results.map((i) => i.status)).toEqual(['updated', 'validation_error', 'validation_error']);
    expect(braces.results[1]?.error?.message).toContain('{{');
    expect(braces.results[2]?.error?.message).toMatch(/blank/);
    const subject = updateDrafts(ctx, [{ id: note.id, subject: 'Hi' }]);
    expect(subject.results[0]?.error?.message).toMatch(/only an InMail draft has a subject/);
  });

  it('answers not_found, a malformed id and an empty item per item', () => {
    const { ctx, note } = setup();
    const r = updateDrafts(ctx, [{ id: 'drf_nope', status: 'approved' }, { id: 'bad id!', status: 'approved' }, { id: note.id }]);
    expect(r.results.map((i) => [i.status, i.error?.code])).toEqual([
      ['not_found', 'not_found'],
      ['validation_error', 'validation_error'],
      ['validation_error', 'validation_error'],
    ]);
    expect(r.summary).toEqual({ total: 3, updated: 0, not_found: 1, validation_error: 2, conflict: 0 });
  });

  it('a sent or rejected draft is a conflict, and so is one on the wire', () => {
    const { ctx, note, message, inmail } = setup();
    updateDrafts(ctx, [
      { id: note.id, status: 'approved' },
      { id: message.id, status: 'rejected' },
      { id: inmail.id, status: 'approved' },
    ]);
    expect(claimDraftForSend(ctx, note.id, 'int_1')).not.toBeNull();
    expect(markDraftSent(ctx, note.id, 'int_1')).toBe(true);
    expect(claimDraftForSend(ctx, inmail.id, 'int_2')).not.toBeNull();
    const r = updateDrafts(ctx, [
      { id: note.id, text: 'too late' },
      { id: message.id, status: 'approved' },
      { id: inmail.id, status: 'rejected' },
    ]);
    expect(r.results.map((i) => i.status)).toEqual(['conflict', 'conflict', 'conflict']);
    expect(r.results.map((i) => i.error?.message)).toEqual([
      expect.stringMatching(/already sent/),
      expect.stringMatching(/was rejected/),
      expect.stringMatching(/being sent right now/),
    ]);
    // The send did not go out: the draft is free again, still approved, and can be rejected.
    expect(releaseDraftClaim(ctx, inmail.id, 'int_2')).toBe(true);
    expect(updateDrafts(ctx, [{ id: inmail.id, status: 'rejected' }]).results[0]?.status).toBe('updated');
  });

  it('two approvals of one draft approve it once, and it is sent once', () => {
    const { ctx, note } = setup();
    ctx.clock.advance(1000);
    updateDrafts(ctx, [{ id: note.id, status: 'approved' }]);
    const once = draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })!;
    ctx.clock.advance(1000);
    expect(updateDrafts(ctx, [{ id: note.id, status: 'approved' }]).results[0]?.status).toBe('updated');
    // Nothing moved the second time.
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })).toEqual(once);
    const claimed = claimDraftForSend(ctx, note.id, 'int_a');
    expect(claimed).toEqual({ draftId: note.id, text: 'Hi there, lead_r0', subject: null, accountId: 'acc_ada' });
    expect(claimDraftForSend(ctx, note.id, 'int_b')).toBeNull();
    expect(markDraftSent(ctx, note.id, 'int_b')).toBe(false);
    expect(markDraftSent(ctx, note.id, 'int_a')).toBe(true);
    expect(markDraftSent(ctx, note.id, 'int_a')).toBe(false);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })?.status).toBe('sent');
    expect(claimDraftForSend(ctx, note.id, 'int_c')).toBeNull();
  });

  it('new words on an approved draft wait for approval again, unless the campaign needs none', () => {
    const { ctx, note } = setup();
    updateDrafts(ctx, [{ id: note.id, status: 'approved' }]);
    updateDrafts(ctx, [{ id: note.id, text: 'Changed after approval' }]);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })).toMatchObject({ status: 'pending', text: 'Changed after approval' });
    // Changed and approved in one item: approved with the new words.
    updateDrafts(ctx, [{ id: note.id, text: 'Final words', status: 'approved' }]);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })).toMatchObject({ status: 'approved', text: 'Final words' });
    const q4 = draftFor(ctx, step('lead_ada1', { campaignId: 'cmp_q4' }));
    updateDrafts(ctx, [{ id: q4.id, text: 'Edited without approval' }]);
    expect(draftAt(ctx, 'lead_ada1', { stepId: 'stp_note' })).toMatchObject({ status: 'approved', text: 'Edited without approval' });
  });

  it('the transition table is the only way a status moves', () => {
    expect(DRAFT_TRANSITIONS.map((t) => `${t.event}: ${t.from.join('|')} → ${t.to}`)).toEqual([
      'approve: pending → approved',
      'reject: pending|approved → rejected',
      'edit: approved → pending',
      'release: pending → approved',
      'send: approved → sent',
      'skip: pending|approved → skipped',
    ]);
    for (const final of ['sent', 'rejected', 'skipped']) {
      for (const event of ['approve', 'reject', 'edit', 'release', 'send', 'skip'] as const) expect(nextDraftStatus(final, event)).toBeNull();
    }
  });
});

describe('approval on a campaign', () => {
  it('turning it off approves what is pending, as it stands; turning it on again leaves drafts be', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const a = draftFor(ctx, step('lead_r0'));
    const b = draftFor(ctx, step('lead_r1'));
    updateDrafts(ctx, [
      { id: a.id, text: 'Edited by a person' },
      { id: b.id, status: 'rejected' },
    ]);
    expect(updateCampaign(ctx, 'cmp_review', { approval: 'off' }).approval).toBe('off');
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })).toMatchObject({ status: 'approved', text: 'Edited by a person' });
    expect(draftAt(ctx, 'lead_r1', { stepId: 'stp_note' })?.status).toBe('rejected');
    expect(updateCampaign(ctx, 'cmp_review', { approval: 'required' }).approval).toBe('required');
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })?.status).toBe('approved');
    expect(draftFor(ctx, step('lead_r2')).status).toBe('pending');
  });
});

describe('list_drafts (the verb)', () => {
  it('lists oldest first with the lead, filters by campaign and status, and pages by cursor', () => {
    const ctx = testCtx({ workspace: reviewWorkspace(5) });
    const made = [0, 1, 2, 3, 4].map((i) => draftFor(ctx, step(`lead_r${i}`)));
    draftFor(ctx, step('lead_ada1', { campaignId: 'cmp_q4' }));
    const secret = secretOf(ctx);
    const first = listDrafts(ctx, secret, { campaignId: 'cmp_review', status: 'pending', limit: 2 });
    expect(first.drafts.map((d) => d.id)).toEqual([made[0]!.id, made[1]!.id]);
    expect(first.drafts[0]?.lead).toEqual({
      fullName: 'Grace Hopper',
      jobTitle: 'VP Engineering',
      companyName: 'Navy Labs',
      headline: null,
      location: 'London',
      personalization: null,
      networkUrl: 'https://www.linkedin.com/in/grace-hopper-0',
    });
    // The reviewer approves the page just read; its cursor still leads on.
    updateDrafts(
      ctx,
      first.drafts.map((d) => ({ id: d.id, status: 'approved' as const })),
    );
    const second = listDrafts(ctx, secret, { campaignId: 'cmp_review', status: 'pending', limit: 2, cursor: first.nextCursor! });
    expect(second.drafts.map((d) => d.id)).toEqual([made[2]!.id, made[3]!.id]);
    const last = listDrafts(ctx, secret, { campaignId: 'cmp_review', status: 'pending', limit: 2, cursor: second.nextCursor! });
    expect(last).toEqual({ drafts: [expect.objectContaining({ id: made[4]!.id })], nextCursor: null });
    expect(listDrafts(ctx, secret, { status: 'approved', limit: 50 }).drafts.map((d) => d.leadId)).toEqual(['lead_r0', 'lead_r1', 'lead_ada1']);
    expect(listDrafts(ctx, secret, { limit: 50 }).drafts).toHaveLength(6);
    // A cursor of another filter, or of a deleted draft's position, is refused.
    expect(() => listDrafts(ctx, secret, { status: 'pending', limit: 2, cursor: first.nextCursor! })).toThrow(/Invalid cursor/);
    deleteLeadsBatch(ctx, 'cmp_review', ['lead_r1']);
    expect(() => listDrafts(ctx, secret, { campaignId: 'cmp_review', status: 'pending', limit: 2, cursor: first.nextCursor! })).toThrow(/Invalid cursor/);
    expect(() => listDrafts(ctx, secret, { campaignId: 'cmp_nope', limit: 2 })).toThrow(/Campaign cmp_nope not found/);
  });

  it('counts the queues for the navigation; a deleted lead takes its drafts along', () => {
    const ctx = testCtx({ workspace: reviewWorkspace(3) });
    for (const i of [0, 1, 2]) draftFor(ctx, step(`lead_r${i}`));
    expect(draftQueues(ctx)).toEqual({ queues: [{ campaignId: 'cmp_review', name: 'Review', pending: 3 }], pending: 3 });
    deleteLeadsBatch(ctx, 'cmp_review', ['lead_r0']);
    expect(draftQueues(ctx).pending).toBe(2);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })).toBeNull();
  });
});

describe('the confirmation before approving', () => {
  it('counts what an approval would send, per account, and says it in a sentence', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const a = draftFor(ctx, step('lead_r0'));
    const b = draftFor(ctx, step('lead_r1'));
    const c = draftFor(ctx, step('lead_r2', { accountId: 'acc_nav' }));
    const d = draftFor(ctx, step('lead_r3', { accountId: null }));
    updateDrafts(ctx, [{ id: d.id, status: 'rejected' }]);
    const sends = sendsToConfirm(ctx, [
      { id: a.id, status: 'approved' },
      { id: b.id, status: 'approved' },
      { id: c.id, status: 'approved' },
      { id: d.id, status: 'approved' },
      { id: a.id, status: 'approved' },
      { id: 'drf_missing', status: 'approved' },
    ]);
    expect(sends).toEqual({
      count: 3,
      accounts: [
        { accountId: 'acc_ada', name: 'Ada', count: 2 },
        { accountId: 'acc_nav', name: 'Navigator', count: 1 },
      ],
      kinds: { invite: 3, message: 0, inmail: 0 },
    });
    // Invitations are named as invitations (approving one once asked "Send 1 message").
    expect(confirmationMessage(sends)).toBe('Send 3 invitations: 2 from Ada, 1 from Navigator?');
    expect(confirmationMessage(sendsToConfirm(ctx, [{ id: a.id, status: 'approved' }]))).toBe('Send 1 invitation from Ada?');
    // A draft without a fixed sender goes from its campaign agent's account.
    const e = draftFor(ctx, step('lead_r4', { accountId: null }));
    expect(confirmationMessage(sendsToConfirm(ctx, [{ id: e.id, status: 'approved' }]))).toBe('Send 1 invitation from Ada?');
    // Edits and rejections send nothing, so there is nothing to ask.
    expect(
      confirmationMessage(
        sendsToConfirm(ctx, [
          { id: a.id, text: 'new words' },
          { id: b.id, status: 'rejected' },
        ]),
      ),
    ).toBeNull();
    updateDrafts(ctx, [{ id: a.id, status: 'approved' }]);
    expect(confirmationMessage(sendsToConfirm(ctx, [{ id: a.id, status: 'approved' }]))).toBeNull();
    expect(confirmationMessage(sendsToConfirm(ctx, [{ id: a.id, text: 'Other words', status: 'approved' }]))).toBe('Send 1 invitation from Ada?');
    expect(confirmationMessage({ count: 2, accounts: [{ accountId: null, name: null, count: 2 }], kinds: { invite: 0, message: 2, inmail: 0 } })).toBe(
      "Send 2 messages from the campaign's account?",
    );
    // Kinds together: messages, InMails, then invitations, each named.
    const m = draftFor(ctx, step('lead_r0', { stepId: 'stp_m1', kind: 'message', text: 'One' }));
    const m2 = draftFor(ctx, step('lead_r1', { stepId: 'stp_m1', kind: 'message', text: 'Two' }));
    const i = draftFor(ctx, step('lead_r0', { stepId: 'stp_in', kind: 'inmail', text: 'Three', subject: 'Hi' }));
    const mixed = (ids: string[]) =>
      confirmationMessage(
        sendsToConfirm(
          ctx,
          ids.map((id) => ({ id, status: 'approved' as const })),
        ),
      );
    expect(mixed([m.id, m2.id, b.id])).toBe('Send 2 messages and 1 invitation from Ada?');
    expect(mixed([m.id, i.id, b.id, c.id])).toBe('Send 1 message, 1 InMail and 2 invitations: 3 from Ada, 1 from Navigator?');
    // The seam a transport calls with the tool's parsed input, before the tool runs.
    const input = UpdateDraftsInput.parse({
      drafts: [
        { id: b.id, status: 'approved' },
        { id: c.id, status: 'approved' },
      ],
    });
    expect(approvalConfirmation(ctx, input)).toBe('Send 2 invitations: 1 from Ada, 1 from Navigator?');
    expect(approvalConfirmation(ctx, UpdateDraftsInput.parse({ drafts: [{ id: b.id, text: 'x' }] }))).toBeNull();
  });
});

describe('prepareDraft without a model', () => {
  it('is draftFor, and refuses to run inside a transaction', async () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const d = await prepareDraft(ctx, step('lead_r0'));
    expect(d).toMatchObject({ status: 'pending', text: 'Hi there, lead_r0', drafterError: null });
    await expect(
      (async () => {
        ctx.db.$client.exec('BEGIN');
        try {
          await prepareDraft(ctx, step('lead_r1'));
        } finally {
          ctx.db.$client.exec('ROLLBACK');
        }
      })(),
    ).rejects.toThrow(/outside any transaction/);
  });
});

describe('one writer of drafts, held by SQLite', () => {
  const STATUSES = ['pending', 'approved', 'rejected', 'sent', 'skipped'] as const;
  type Status = (typeof STATUSES)[number];

  /** A draft of lead_r0 for its own step, brought to `status` through the store's verbs. */
  function draftIn(ctx: Ctx, status: Status, n: number): string {
    const id = draftFor(ctx, step('lead_r0', { stepId: `stp_w${n}` })).id;
    if (status === 'rejected') updateDrafts(ctx, [{ id, status: 'rejected' }]);
    if (status === 'skipped') expect(skipDraftRow(ctx, id, 'replied')).toBe(true);
    if (status === 'approved' || status === 'sent') updateDrafts(ctx, [{ id, status: 'approved' }]);
    if (status === 'sent') {
      expect(claimDraftForSend(ctx, id, `int_w${n}`)).not.toBeNull();
      expect(markDraftSent(ctx, id, `int_w${n}`)).toBe(true);
    }
    return id;
  }
  const rowOf = (ctx: Ctx, id: string) => ctx.db.select().from(drafts).where(eq(drafts.id, id)).get();
  const newRow = (id: string) => ({
    id,
    campaignId: 'cmp_review',
    leadId: 'lead_r1',
    slot: `step:${id}`,
    kind: 'invite',
    text: 'Sneaked in',
    renderedText: 'Sneaked in',
    status: 'approved',
    createdAt: 1,
    updatedAt: 1,
  });

  it('refuses a raw SQL insert, change or delete of a draft outside the drafts store', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const id = draftIn(ctx, 'pending', 0);
    const before = rowOf(ctx, id);
    const sqlite = ctx.db.$client;
    expect(() =>
      sqlite
        .prepare(
          "INSERT INTO drafts (id, campaign_id, lead_id, slot, kind, text, rendered_text, status, created_at, updated_at) VALUES ('drf_x', 'cmp_review', 'lead_r1', 'step:x', 'invite', 'x', 'x', 'approved', 1, 1)",
        )
        .run(),
    ).toThrow(/written only by the drafts store/);
    expect(() => sqlite.prepare("UPDATE drafts SET status = 'approved' WHERE id = ?").run(id)).toThrow(/written only by the drafts store/);
    expect(() => sqlite.prepare("UPDATE drafts SET text = 'Not what a person approved' WHERE id = ?").run(id)).toThrow(/written only by the drafts store/);
    expect(() => sqlite.prepare('DELETE FROM drafts WHERE id = ?').run(id)).toThrow(/deleted only by the drafts store/);
    expect(() => sqlite.exec('DELETE FROM drafts')).toThrow(/deleted only by the drafts store/);
    expect(rowOf(ctx, id)).toEqual(before);
    expect(ctx.db.select().from(drafts).all()).toHaveLength(1);
  });

  it('refuses a drizzle insert, change or delete of a draft just the same', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const id = draftIn(ctx, 'approved', 0);
    const before = rowOf(ctx, id);
    expect(() => ctx.db.insert(drafts).values(newRow('drf_y')).run()).toThrow(/written only by the drafts store/);
    expect(() => ctx.db.update(drafts).set({ sendingIntentId: 'int_sneaky' }).where(eq(drafts.id, id)).run()).toThrow(/written only by the drafts store/);
    expect(() => ctx.db.update(drafts).set({ status: 'rejected' }).run()).toThrow(/written only by the drafts store/);
    expect(() => ctx.db.delete(drafts).where(eq(drafts.id, id)).run()).toThrow(/deleted only by the drafts store/);
    expect(rowOf(ctx, id)).toEqual(before);
  });

  it('holds every status change to the transition table, in the store: SQLite refuses only a wrong writer', () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    /** Tries to bring a draft to `to` with the store's writes, as a caller that read it now and as callers that read it stale. */
    const tryMove = (id: string, to: Status): void => {
      const row = findDraftRow(ctx, id)!;
      for (const judged of [row.status, 'pending', 'approved'] as DraftStatus[]) {
        try {
          if (to === 'skipped') skipDraftRow(ctx, id, 'replied');
          else if (to === 'sent') {
            if (claimDraftRow(ctx, id, `int_${id}`)) markDraftRowSent(ctx, id, `int_${id}`, 1);
          } else changeDraft(ctx, id, judged, row.revision, { text: to === 'pending' ? 'New words' : row.text, subject: row.subject, status: to });
        } catch (err) {
          expect((err as Error).message).toMatch(/is not a transition/);
        }
      }
    };
    const allowed = new Set(DRAFT_TRANSITIONS.flatMap((t) => t.from.map((from) => `${from} → ${t.to}`)));
    expect(allowed).toEqual(
      new Set([
        'pending → approved',
        'pending → rejected',
        'approved → rejected',
        'approved → pending',
        'approved → sent',
        'pending → skipped',
        'approved → skipped',
      ]),
    );
    let n = 0;
    const outcomes: string[] = [];
    for (const from of STATUSES) {
      for (const to of STATUSES) {
        if (to === from) continue;
        const id = draftIn(ctx, from, n++);
        tryMove(id, to);
        const moved = findDraftRow(ctx, id)!.status === to;
        if (!moved) expect(findDraftRow(ctx, id)!.status).toBe(from);
        if (moved !== allowed.has(`${from} → ${to}`)) outcomes.push(`${from} → ${to}: ${moved ? 'moved' : 'refused'}`);
      }
    }
    expect(outcomes).toEqual([]);
    // A skipped draft says why, and only a skipped one does; a draft starts at revision 1, and new words move it by one.
    const kept = draftIn(ctx, 'pending', n++);
    expect(findDraftRow(ctx, kept)).toMatchObject({ revision: 1, skipReason: null });
    expect(changeDraft(ctx, kept, 'pending', 1, { text: 'Seen', subject: null, status: 'pending' })).toBe(true);
    expect(changeDraft(ctx, kept, 'pending', 2, { text: 'Seen', subject: null, status: 'approved' })).toBe(true);
    expect(findDraftRow(ctx, kept)).toMatchObject({ text: 'Seen', revision: 2, status: 'approved', skipReason: null });
    expect(skipDraftRow(ctx, kept, 'replied')).toBe(true);
    expect(findDraftRow(ctx, kept)).toMatchObject({ status: 'skipped', skipReason: 'replied' });
    // A claimed draft is on the wire: it becomes sent (or skipped, when the provider refused it), and nothing else.
    const claimed = draftIn(ctx, 'approved', n++);
    expect(claimDraftForSend(ctx, claimed, 'int_claim')).not.toBeNull();
    const row = findDraftRow(ctx, claimed)!;
    expect(changeDraft(ctx, claimed, 'approved', row.revision, { text: row.text, subject: null, status: 'rejected' })).toBe(false);
    expect(changeDraft(ctx, claimed, 'approved', row.revision, { text: row.text, subject: null, status: 'pending' })).toBe(false);
    expect(skipDraftRow(ctx, claimed, 'replied')).toBe(false);
    expect(markDraftRowSent(ctx, claimed, 'int_other', 1)).toBe(false);
    expect(markDraftRowSent(ctx, claimed, 'int_claim', 1)).toBe(true);
    expect(findDraftRow(ctx, claimed)?.status).toBe('sent');
    // The triggers on drafts refuse a write from outside the store, and decide nothing else.
    const triggers = ctx.db.$client
      .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'drafts' ORDER BY name")
      .pluck()
      .all();
    expect(triggers).toEqual(['drafts_writer_delete_guard', 'drafts_writer_insert_guard', 'drafts_writer_update_guard']);
  });

  it("hands a decided draft's lead to the engine by a call: due at once, and the engine's memory of campaigns dropped", () => {
    const ctx = testCtx({ workspace: reviewWorkspace(3) });
    const ids = [0, 1, 2].map((i) => draftFor(ctx, step(`lead_r${i}`)).id);
    const later = 9_999_999_999;
    for (const i of [0, 1, 2])
      ctx.db
        .update(leads)
        .set({ nextActionAt: later })
        .where(eq(leads.id, `lead_r${i}`))
        .run();
    const dueOf = (i: number) =>
      ctx.db
        .select()
        .from(leads)
        .where(eq(leads.id, `lead_r${i}`))
        .get()!.nextActionAt;
    const campaignsBefore = versionOf(ctx.db, 'campaigns');
    // New words alone decide nothing: the lead stays where it was.
    updateDrafts(ctx, [{ id: ids[0]!, text: 'Other words' }]);
    expect(dueOf(0)).toBe(later);
    expect(versionOf(ctx.db, 'campaigns')).toBe(campaignsBefore);
    updateDrafts(ctx, [{ id: ids[0]!, status: 'approved' }]);
    expect(dueOf(0)).toBe(1);
    expect(versionOf(ctx.db, 'campaigns')).not.toBe(campaignsBefore);
    updateDrafts(ctx, [{ id: ids[1]!, status: 'rejected' }]);
    expect(dueOf(1)).toBe(1);
    // Approval turned off releases the rest, and wakes their leads.
    updateCampaign(ctx, 'cmp_review', { approval: 'off' });
    expect(dueOf(2)).toBe(1);
  });

  it('lets the store do all it does: create, edit, approve, reject, release, claim, send, forget', () => {
    const ctx = testCtx({ workspace: reviewWorkspace(3) });
    const a = draftFor(ctx, step('lead_r0'));
    const b = draftFor(ctx, step('lead_r1'));
    const c = draftFor(ctx, step('lead_r2'));
    expect(
      updateDrafts(ctx, [
        { id: a.id, text: 'Edited', status: 'approved' },
        { id: b.id, status: 'rejected' },
      ]).summary.updated,
    ).toBe(2);
    updateDrafts(ctx, [{ id: a.id, text: 'Edited again' }]);
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })).toMatchObject({ status: 'pending', text: 'Edited again' });
    updateCampaign(ctx, 'cmp_review', { approval: 'off' });
    expect(draftAt(ctx, 'lead_r0', { stepId: 'stp_note' })?.status).toBe('approved');
    expect(draftAt(ctx, 'lead_r2', { stepId: 'stp_note' })?.status).toBe('approved');
    expect(claimDraftForSend(ctx, c.id, 'int_1')).not.toBeNull();
    expect(releaseDraftClaim(ctx, c.id, 'int_1')).toBe(true);
    expect(claimDraftForSend(ctx, c.id, 'int_2')).not.toBeNull();
    expect(markDraftSent(ctx, c.id, 'int_2')).toBe(true);
    expect(draftAt(ctx, 'lead_r2', { stepId: 'stp_note' })?.status).toBe('sent');
  });

  it('still deletes a lead with its drafts, and a workspace replaced whole with all of them', () => {
    const ctx = testCtx({ workspace: reviewWorkspace(3) });
    for (const i of [0, 1, 2]) draftFor(ctx, step(`lead_r${i}`));
    draftIn(ctx, 'sent', 9);
    expect(deleteLeadsBatch(ctx, 'cmp_review', ['lead_r0', 'lead_r1']).summary.deleted).toBe(2);
    expect(ctx.db.select({ leadId: drafts.leadId }).from(drafts).all()).toEqual([{ leadId: 'lead_r2' }]);
    loadWorkspace(ctx, WorkspaceFile.parse(reviewWorkspace(1)), { reset: true });
    expect(ctx.db.select().from(drafts).all()).toEqual([]);
    expect(draftFor(ctx, step('lead_r0')).status).toBe('pending');
  });

  it('refuses every draft write on a connection that never registered the gate (the sqlite3 shell)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drafts-gate-'));
    try {
      const file = join(dir, 'outreach.db');
      const ctx = testCtx({ workspace: null });
      ctx.db.$client.close();
      const db = openDatabase(file);
      loadWorkspace({ ...ctx, db }, WorkspaceFile.parse(reviewWorkspace(1)), { reset: false });
      const id = draftFor({ ...ctx, db }, step('lead_r0')).id;
      db.$client.close();
      const bare = new Database(file);
      try {
        expect(() => bare.prepare("UPDATE drafts SET status = 'approved' WHERE id = ?").run(id)).toThrow(/no such function: drafts_writer/);
        expect(() => bare.prepare('DELETE FROM drafts').run()).toThrow(/no such function: drafts_writer/);
      } finally {
        bare.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
