import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { addMember } from '../../src/core/members/members.js';
import { RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';
import { noteFor, reviewWorkspace } from '../drafts/helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';

/** A draft's decidedBy: the key, the OAuth client or the member who approved or rejected it. */
describe('decidedBy', () => {
  let server: TestServer;
  const ids: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS, workspace: reviewWorkspace(3), uiDir: fakeUiDir() });
    for (let i = 0; i < 3; i++) {
      const d = draftFor(server.ctx, noteFor(`lead_r${i}`));
      ids.push(d.id);
    }
  });
  afterAll(() => server.close());

  const draft = async (id: string) => (await server.rest('/drafts?campaignId=cmp_review&limit=100')).body.drafts.find((d: { id: string }) => d.id === id);

  it('is null until someone decides, then names the key that approved over REST', async () => {
    expect((await draft(ids[0]!)).decidedBy).toBeNull();
    const r = await server.rest('/drafts/batch-update', { method: 'POST', body: JSON.stringify({ drafts: [{ id: ids[0], status: 'approved' }] }) });
    expect(r.status).toBe(200);
    const key = server.ctx.db.$client.prepare("SELECT id, name FROM api_keys WHERE env = 'test' LIMIT 1").get() as { id: string; name: string };
    expect((await draft(ids[0]!)).decidedBy).toEqual({ type: 'key', id: key.id, name: key.name });
  });

  it('names the member who rejected on the dashboard; the last approver of the words is named, and nobody while the draft waits', async () => {
    const owner = addMember(server.ctx, { name: 'Olga Owner', email: 'olga@example.com' });
    const reviewer = addMember(server.ctx, { name: 'Rita Reviewer', email: 'rita@example.com', role: 'reviewer' });
    const cookie = await login(server.url, server.ctx, reviewer.id);
    const rejected = await appCall(server.url, cookie, 'update_drafts', { drafts: [{ id: ids[1], status: 'rejected' }] });
    expect(rejected.body.isError).toBe(false);
    expect((await draft(ids[1]!)).decidedBy).toEqual({ type: 'member', id: reviewer.id, name: 'Rita Reviewer' });

    const ownerCookie = await login(server.url, server.ctx, owner.id);
    const asOwner = { type: 'member', id: owner.id, name: 'Olga Owner' };
    const asReviewer = { type: 'member', id: reviewer.id, name: 'Rita Reviewer' };
    await appCall(server.url, ownerCookie, 'update_drafts', { drafts: [{ id: ids[2], status: 'approved' }] });
    expect((await draft(ids[2]!)).decidedBy).toEqual(asOwner);
    // Approving again with new words: the reviewer let these words out, not the owner.
    const again = await appCall(server.url, cookie, 'update_drafts', { drafts: [{ id: ids[2], status: 'approved', text: 'Hi, a kinder note for you.' }] });
    expect(again.body.isError).toBe(false);
    expect(await draft(ids[2]!)).toMatchObject({ status: 'approved', text: 'Hi, a kinder note for you.', decidedBy: asReviewer });
    // New words alone send it back for approval: nobody has decided on them yet.
    await appCall(server.url, ownerCookie, 'update_drafts', { drafts: [{ id: ids[2], text: 'Hi, a shorter note.' }] });
    expect(await draft(ids[2]!)).toMatchObject({ status: 'pending', decidedBy: null });
    await appCall(server.url, ownerCookie, 'update_drafts', { drafts: [{ id: ids[2], status: 'approved' }] });
    expect(await draft(ids[2]!)).toMatchObject({ status: 'approved', decidedBy: asOwner });
    // Approving the same words again changes nothing, and keeps who decided.
    await appCall(server.url, cookie, 'update_drafts', { drafts: [{ id: ids[2], status: 'approved' }] });
    expect((await draft(ids[2]!)).decidedBy).toEqual(asOwner);
  });
});
