import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { leadSequence } from '../../src/core/sequences/lead-sequence.js';
import { endSequence, recordStep, startSequence } from '../../src/core/sequences/store.js';
import { startTestServer, testCtx, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';

/** The lead page's read: where one lead is in its agent's steps, what happened at each, its drafts. */
describe('a lead’s sequence', () => {
  it('is null before the lead starts, then names its step, each event with its reason, and its drafts', () => {
    const ctx = testCtx();
    expect(leadSequence(ctx, 'cmp_q4', 'lead_ada1')).toEqual({ position: null, events: [], drafts: [] });
    startSequence(ctx, { leadId: 'lead_ada1', campaignId: 'cmp_q4', agentId: 'tpl_intro', stepId: 'stp_visit', at: Date.parse('2026-11-02T09:00:00Z') });
    recordStep(ctx, {
      leadId: 'lead_ada1',
      campaignId: 'cmp_q4',
      agentId: 'tpl_intro',
      stepId: 'stp_like',
      kind: 'like_post',
      variant: 'A',
      event: 'skipped',
      reason: 'no_posts',
      at: Date.parse('2026-11-02T10:00:00Z'),
    });
    recordStep(ctx, {
      leadId: 'lead_ada1',
      campaignId: 'cmp_q4',
      agentId: 'tpl_intro',
      stepId: 'stp_note',
      kind: 'invite',
      variant: 'B',
      event: 'sent',
      at: Date.parse('2026-11-02T11:00:00Z'),
    });
    const d = draftFor(ctx, {
      campaignId: 'cmp_q4',
      leadId: 'lead_ada1',
      stepId: 'stp_msg',
      variant: 'A',
      kind: 'message',
      accountId: 'acc_ada',
      text: 'Thanks for connecting, Ada.',
    });
    const seq = leadSequence(ctx, 'cmp_q4', 'lead_ada1');
    expect(seq.position).toEqual({ agentId: 'tpl_intro', stepId: 'stp_visit', enteredAt: '2026-11-02T09:00:00.000Z', endReason: null, endedAt: null });
    expect(seq.events).toEqual([
      { stepId: 'stp_like', kind: 'like_post', variant: 'A', event: 'skipped', reason: 'no_posts', at: '2026-11-02T10:00:00.000Z' },
      { stepId: 'stp_note', kind: 'invite', variant: 'B', event: 'sent', reason: null, at: '2026-11-02T11:00:00.000Z' },
    ]);
    expect(seq.drafts.map((x) => [x.id, x.text, x.status])).toEqual([[d.id, 'Thanks for connecting, Ada.', d.status]]);
    endSequence(ctx, { leadId: 'lead_ada1', reason: 'replied', at: Date.parse('2026-11-03T09:00:00Z') });
    expect(leadSequence(ctx, 'cmp_q4', 'lead_ada1').position).toMatchObject({ stepId: null, endReason: 'replied', endedAt: '2026-11-03T09:00:00.000Z' });
  });

  it('refuses a lead of another campaign or none, naming leadId', () => {
    const ctx = testCtx();
    expect(() => leadSequence(ctx, 'cmp_running', 'lead_ada1')).toThrow(expect.objectContaining({ code: 'not_found', details: { fields: ['leadId'] } }));
    expect(() => leadSequence(ctx, 'cmp_q4', 'lead_nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});

describe('get_lead_sequence, for the dashboard only', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());

  it('answers the dashboard, and is no tool of the public API', async () => {
    const r = await appCall(server.url, cookie, 'get_lead_sequence', { campaignId: 'cmp_q4', leadId: 'lead_ada1' });
    expect(r.body.structuredContent).toEqual({ position: null, events: [], drafts: [] });
    const bad = await appCall(server.url, cookie, 'get_lead_sequence', { campaignId: 'cmp_q4', leadId: 'lead_nope' });
    expect(bad.body.structuredContent.error).toMatchObject({ code: 'not_found' });
    const rest = await server.rest('/app/tools/get_lead_sequence', { method: 'POST', body: JSON.stringify({ campaignId: 'cmp_q4', leadId: 'lead_ada1' }) });
    expect(rest.status).not.toBe(200);
  });
});
