import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveMatchingDrafts, previewApproveDrafts } from '../../src/core/drafts/approve-all.js';
import { listDrafts } from '../../src/core/drafts/list.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { operatorTools } from '../../src/tools/operator/index.js';
import { tools } from '../../src/tools/index.js';
import { startTestServer, testCtx, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';

const pendingIds = (ctx: ReturnType<typeof testCtx>) =>
  listDrafts(ctx, 'secret', { campaignId: 'cmp_review', status: 'pending', limit: 100 }).drafts.map((d) => d.id);

describe('approve all N matching (the core verbs)', () => {
  it('previews per sender (most first) and kind, then approves exactly what it counted and has not changed since', () => {
    const ctx = testCtx({ workspace: reviewWorkspace(8) });
    const secret = 's3cret';
    const made = [
      draftFor(ctx, noteFor('lead_r0')),
      draftFor(ctx, noteFor('lead_r1')),
      draftFor(ctx, noteFor('lead_r2', { accountId: 'acc_nav' })),
      draftFor(ctx, noteFor('lead_r3', { stepId: 'stp_m', kind: 'message', text: 'Hello' })),
      draftFor(ctx, noteFor('lead_r4', { stepId: 'stp_i', kind: 'inmail', text: 'Hello', subject: 'Hi' })),
      draftFor(ctx, noteFor('lead_r5')),
    ];
    // A decided draft is not counted.
    updateDrafts(ctx, [{ id: made[5]!.id, status: 'rejected' }]);
    const preview = previewApproveDrafts(ctx, secret, { campaignId: 'cmp_review' });
    expect(preview).toEqual({
      count: 5,
      accounts: [
        { accountId: 'acc_ada', name: 'Ada', count: 4 },
        { accountId: 'acc_nav', name: 'Navigator', count: 1 },
      ],
      kinds: { invite: 3, message: 1, inmail: 1 },
      token: expect.any(String),
    });
    // After the preview: one draft edited, one made. Both stay pending.
    ctx.clock.advance(1000);
    updateDrafts(ctx, [{ id: made[1]!.id, text: 'Words changed after the preview' }]);
    const late = draftFor(ctx, noteFor('lead_r6'));
    const result = approveMatchingDrafts(ctx, secret, { campaignId: 'cmp_review', token: preview.token });
    expect(result).toEqual({ approved: 4, leftPending: 2 });
    expect(pendingIds(ctx).sort()).toEqual([made[1]!.id, late.id].sort());
    // Used again, it approves nothing more: what is left changed (or came) after the preview.
    expect(approveMatchingDrafts(ctx, secret, { campaignId: 'cmp_review', token: preview.token })).toEqual({ approved: 0, leftPending: 2 });
  });

  it('refuses a token of another filter, a forged one, and an unknown campaign', () => {
    const ctx = testCtx({ workspace: reviewWorkspace(2) });
    draftFor(ctx, noteFor('lead_r0'));
    const preview = previewApproveDrafts(ctx, 's', { campaignId: 'cmp_review' });
    expect(() => approveMatchingDrafts(ctx, 's', { token: preview.token })).toThrow(/token/);
    expect(() => approveMatchingDrafts(ctx, 's', { campaignId: 'cmp_review', token: `${preview.token}x` })).toThrow(/token/);
    expect(() => approveMatchingDrafts(ctx, 'other-secret', { campaignId: 'cmp_review', token: preview.token })).toThrow(/token/);
    expect(() => previewApproveDrafts(ctx, 's', { campaignId: 'cmp_nope' })).toThrow(/not found/);
    // Every campaign at once is a filter of its own.
    const all = previewApproveDrafts(ctx, 's', {});
    expect(all.count).toBe(1);
    expect(approveMatchingDrafts(ctx, 's', { token: all.token })).toEqual({ approved: 1, leftPending: 0 });
  });
});

describe('approve all N matching (the operator tools)', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir(), workspace: reviewWorkspace(3) });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());

  it('are the dashboard’s, through /app/api/call, and never in the REST or MCP registry', async () => {
    const made = Array.from({ length: 3 }, (_, i) => draftFor(server.ctx, noteFor(`lead_r${i}`)).id);
    const preview = (await appCall(server.url, cookie, 'preview_approve_drafts', { campaignId: 'cmp_review' })).body.structuredContent;
    expect(preview).toMatchObject({ count: 3, accounts: [{ accountId: 'acc_ada', name: 'Ada', count: 3 }], kinds: { invite: 3, message: 0, inmail: 0 } });
    const done = (await appCall(server.url, cookie, 'approve_matching_drafts', { campaignId: 'cmp_review', token: preview.token })).body.structuredContent;
    expect(done).toEqual({ approved: 3, leftPending: 0 });
    // The trail's one event names the campaign and every draft it approved, so a search by draft finds it.
    const event = server.ctx.db.$client.prepare("SELECT * FROM audit_events WHERE action = 'approve_matching_drafts'").all() as Array<{ targets: string }>;
    expect(event).toHaveLength(1);
    expect(JSON.parse(event[0]!.targets).sort()).toEqual(['cmp_review', ...made].sort());
    for (const id of made) {
      const found = server.ctx.db.$client
        .prepare('SELECT e.action FROM audit_targets t JOIN audit_events e ON e.seq = t.event_seq WHERE t.target_id = ?')
        .pluck()
        .all(id);
      expect(found, id).toEqual(['approve_matching_drafts']);
    }
    const names = tools.map((t) => t.name);
    expect(names).not.toContain('preview_approve_drafts');
    expect(names).not.toContain('approve_matching_drafts');
    expect(operatorTools.map((t) => t.name)).toEqual(expect.arrayContaining(['preview_approve_drafts', 'approve_matching_drafts']));
  });
});
