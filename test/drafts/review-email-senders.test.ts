import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewApproveDrafts } from '../../src/core/drafts/approve-all.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { approvalConfirmation } from '../../src/tools/update-drafts.js';
import { startTestServer, testCtx, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';

/**
 * Email drafts in the confirmations: the preview of "approve all" counts them under `email`,
 * and both it and update_drafts' question name the mailbox that sends them, by its name (or its
 * address when it was given none), as a LinkedIn draft names its account.
 */

/** cmp_review with two mailboxes: North (named) and one loaded from the workspace file without a name. */
function workspace() {
  const ws = reviewWorkspace(4) as any;
  ws.mailboxes = [
    { id: 'mbx_north', name: 'North', address: 'north@outreach.test' },
    { id: 'mbx_plain', address: 'plain@outreach.test' },
  ];
  return ws;
}

const emailFor = (leadId: string, mailboxId: string) =>
  noteFor(leadId, { stepId: 'stp_email', kind: 'email', accountId: mailboxId, subject: 'A question', text: 'Hello by email' });

describe('email drafts in the approval confirmations', () => {
  it('the preview counts email drafts under kinds.email, beside the LinkedIn kinds, and names each mailbox', () => {
    const ctx = testCtx({ workspace: workspace() });
    draftFor(ctx, noteFor('lead_r0'));
    draftFor(ctx, emailFor('lead_r1', 'mbx_north'));
    draftFor(ctx, emailFor('lead_r2', 'mbx_north'));
    draftFor(ctx, emailFor('lead_r3', 'mbx_plain'));
    const preview = previewApproveDrafts(ctx, 's', { campaignId: 'cmp_review' });
    expect(preview).toEqual({
      count: 4,
      accounts: [
        { accountId: 'mbx_north', name: 'North', count: 2 },
        { accountId: 'acc_ada', name: 'Ada', count: 1 },
        { accountId: 'mbx_plain', name: 'plain@outreach.test', count: 1 },
      ],
      kinds: { invite: 1, message: 0, inmail: 0, email: 3 },
      token: expect.any(String),
    });
    // The kinds add up to the count.
    expect(Object.values(preview.kinds).reduce((n, k) => n + (k ?? 0), 0)).toBe(preview.count);
  });

  it('update_drafts asks "Send 1 email from North?", naming the mailbox, not its id', () => {
    const ctx = testCtx({ workspace: workspace() });
    const north = draftFor(ctx, emailFor('lead_r1', 'mbx_north'));
    const plain = draftFor(ctx, emailFor('lead_r2', 'mbx_plain'));
    const invite = draftFor(ctx, noteFor('lead_r0'));
    expect(approvalConfirmation(ctx, { drafts: [{ id: north.id, status: 'approved' }] })).toBe('Send 1 email from North?');
    expect(approvalConfirmation(ctx, { drafts: [{ id: plain.id, status: 'approved' }] })).toBe('Send 1 email from plain@outreach.test?');
    expect(
      approvalConfirmation(ctx, {
        drafts: [
          { id: north.id, status: 'approved' },
          { id: invite.id, status: 'approved' },
        ],
      }),
    ).toBe('Send 1 email and 1 invitation: 1 from Ada, 1 from North?');
  });
});

describe('preview_approve_drafts (the dashboard’s tool) with an email draft pending', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir(), workspace: workspace() });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());

  it('answers kinds.email as a number (not null) and the mailbox by name', async () => {
    draftFor(server.ctx, emailFor('lead_r1', 'mbx_north'));
    const r = await appCall(server.url, cookie, 'preview_approve_drafts', { campaignId: 'cmp_review' });
    expect(r.body.structuredContent).toMatchObject({
      count: 1,
      accounts: [{ accountId: 'mbx_north', name: 'North', count: 1 }],
      kinds: { invite: 0, message: 0, inmail: 0, email: 1 },
    });
  });
});
