import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveMatchingDrafts, previewApproveDrafts } from '../../src/core/drafts/approve-all.js';
import { callTool, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';
import { reviewWorkspace } from './helpers.js';

/** An unknown campaign on list_drafts is the 404 every campaign filter answers: naming `campaignId` in details.fields. */
describe('list_drafts with an unknown campaignId', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS, workspace: reviewWorkspace(1) });
  });
  afterAll(() => server.close());

  it('GET /drafts?campaignId=cmp_nope is 404 with details.fields ["campaignId"], the same shape as GET /agents/{id}/stats', async () => {
    const drafts = await server.rest('/drafts?campaignId=cmp_nope');
    expect(drafts.status).toBe(404);
    expect(drafts.body.error).toEqual({
      code: 'not_found',
      message: expect.stringContaining('Campaign cmp_nope not found'),
      details: { fields: ['campaignId'] },
    });
    const stats = await server.rest('/agents/tpl_intro/stats?campaignId=cmp_nope');
    expect(stats.status).toBe(404);
    expect(Object.keys(stats.body.error).sort()).toEqual(Object.keys(drafts.body.error).sort());
    expect(stats.body.error.details).toEqual(drafts.body.error.details);
  });

  it("approve-all's preview and approval name it the same way", () => {
    const notFound = { code: 'not_found', details: { fields: ['campaignId'] } };
    expect(() => previewApproveDrafts(server.ctx, 'secret', { campaignId: 'cmp_nope' })).toThrow(expect.objectContaining(notFound));
    expect(() => approveMatchingDrafts(server.ctx, 'secret', { campaignId: 'cmp_nope', token: 'x' })).toThrow(expect.objectContaining(notFound));
  });

  it('list_drafts over MCP names the field too', async () => {
    const mcp = await server.mcp(undefined, 'toolsets=drafts');
    const r = await callTool(mcp, 'list_drafts', { campaignId: 'cmp_nope' });
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'not_found', details: { fields: ['campaignId'] } });
  });
});
