import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { addExclusions } from '../../src/core/exclusions/exclusions.js';
import { callTool, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';

/**
 * Every path that excludes a lead ends its open drafts: a draft of an excluded lead can never be
 * sent (the engine no longer looks at the lead), so it ends `skipped` with `skipReason:
 * excluded` instead of waiting pending or approved for ever. The exclusion reaches every lead
 * with the profile URL, in every campaign, and so do the drafts it closes.
 */

const R0_URL = 'https://www.linkedin.com/in/grace-hopper-0';

/** cmp_review (approval required) with lead_r0…lead_r3, and lead_twin: lead_r0's profile in cmp_running (approval off). */
function workspace() {
  const ws = reviewWorkspace(4) as any;
  ws.campaigns.find((c: any) => c.id === 'cmp_running').leads = [{ id: 'lead_twin', networkUrl: R0_URL, firstName: 'Grace' }];
  return ws;
}

interface Listed {
  id: string;
  leadId: string;
  status: string;
  skipReason: string | null;
}

describe("an excluded lead's open drafts end skipped (excluded), on every path that excludes", () => {
  let server: TestServer;
  let mcp: Client | undefined;
  afterEach(async () => {
    mcp = undefined;
    await server?.close();
  });

  /** Pending drafts for lead_r0 (two steps), lead_r1, lead_r2 and lead_r3, and lead_twin's draft, approved at once (approval off). */
  async function start() {
    server = await startTestServer({ limits: RELAXED_LIMITS, workspace: workspace() });
    const ctx = server.ctx;
    const ids = {
      r0: draftFor(ctx, noteFor('lead_r0')).id,
      r0Message: draftFor(ctx, noteFor('lead_r0', { stepId: 'stp_msg', kind: 'message', text: 'A message' })).id,
      r1: draftFor(ctx, noteFor('lead_r1')).id,
      r2: draftFor(ctx, noteFor('lead_r2')).id,
      r3: draftFor(ctx, noteFor('lead_r3')).id,
      twin: draftFor(ctx, noteFor('lead_twin', { campaignId: 'cmp_running' })).id,
    };
    return ids;
  }

  /** Every draft as GET /drafts lists it, by id. */
  async function drafts(): Promise<Map<string, Listed>> {
    const r = await server.rest('/drafts?limit=100');
    expect(r.status).toBe(200);
    return new Map((r.body.drafts as Listed[]).map((d) => [d.id, d]));
  }

  const skipped = { status: 'skipped', skipReason: 'excluded' };
  const open = (status: 'pending' | 'approved') => ({ status, skipReason: null });

  it("an agent's reply waiting for approval ends with the exclusion, and the lead no longer holds the answer to send", async () => {
    await start();
    const ctx = server.ctx;
    ctx.db.$client.prepare("UPDATE leads SET agent_send_kind = 'reply', agent_send_text = 'Happy to help.', needs_reply = 1 WHERE id = 'lead_r0'").run();
    const reply = draftFor(ctx, noteFor('lead_r0', { stepId: null, replyTurn: 0, kind: 'message', text: 'Happy to help.' })).id;
    expect((await drafts()).get(reply)).toMatchObject(open('pending'));
    const r = await server.rest('/campaigns/cmp_review/leads/lead_r0', { method: 'PATCH', body: JSON.stringify({ excluded: true }) });
    expect(r.status).toBe(200);
    expect((await drafts()).get(reply)).toMatchObject(skipped);
    const row = ctx.db.$client.prepare('SELECT agent_send_kind AS kind, agent_send_text AS text FROM leads WHERE id = ?').get('lead_r0');
    expect(row).toEqual({ kind: null, text: null });
  });

  it('PATCH a lead {"excluded":true}: its pending drafts and those of its profile in another campaign (approved) are skipped', async () => {
    const ids = await start();
    expect((await drafts()).get(ids.twin)).toMatchObject(open('approved'));
    const r = await server.rest('/campaigns/cmp_review/leads/lead_r0', { method: 'PATCH', body: JSON.stringify({ excluded: true }) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ leadId: 'lead_r0', excluded: true });
    const after = await drafts();
    expect(after.get(ids.r0)).toMatchObject(skipped);
    expect(after.get(ids.r0Message)).toMatchObject(skipped);
    expect(after.get(ids.twin)).toMatchObject(skipped);
    // Other leads' drafts are untouched.
    for (const id of [ids.r1, ids.r2, ids.r3]) expect(after.get(id)).toMatchObject(open('pending'));
    // The queue's count no longer holds them: the campaign's waiting drafts are the three others.
    const queues = await server.rest('/drafts?campaignId=cmp_review&status=pending&limit=100');
    expect(queues.body.drafts.map((d: Listed) => d.id).sort()).toEqual([ids.r1, ids.r2, ids.r3].sort());
    // Listed under status=skipped, with its reason.
    const listed = await server.rest('/drafts?status=skipped&limit=100');
    expect(listed.body.drafts.map((d: Listed) => [d.id, d.skipReason]).sort()).toEqual(
      [
        [ids.r0, 'excluded'],
        [ids.r0Message, 'excluded'],
        [ids.twin, 'excluded'],
      ].sort(),
    );
  });

  it('update_lead over MCP with a tag that auto-excludes ("Not interested"): the lead’s draft is skipped', async () => {
    const ids = await start();
    mcp = await server.mcp(undefined, 'toolsets=manage');
    const r = await callTool(mcp, 'update_lead', { campaignId: 'cmp_review', leadId: 'lead_r1', tag: 'Not interested' });
    expect(r.isError).toBe(false);
    expect(r.body).toMatchObject({ leadId: 'lead_r1', tag: 'Not interested', excluded: true });
    const after = await drafts();
    expect(after.get(ids.r1)).toMatchObject(skipped);
    for (const id of [ids.r0, ids.r0Message, ids.r2, ids.r3]) expect(after.get(id)).toMatchObject(open('pending'));
    expect(after.get(ids.twin)).toMatchObject(open('approved'));
    // A later update_drafts on it is a conflict naming why: it can no longer change, nor be sent.
    const approve = await server.rest('/drafts/batch-update', { method: 'POST', body: JSON.stringify({ drafts: [{ id: ids.r1, status: 'approved' }] }) });
    expect(approve.body.results[0]).toMatchObject({ status: 'conflict', error: { current: { status: 'skipped' } } });
    expect(approve.body.results[0].error.message).toContain('excluded');
  });

  it('update_leads_batch: each item that excludes (excluded: true, or "Wrong person") skips its lead’s drafts; a plain tag does not', async () => {
    const ids = await start();
    const r = await server.rest('/campaigns/cmp_review/leads/batch-update', {
      method: 'POST',
      body: JSON.stringify({
        updates: [
          { leadId: 'lead_r2', excluded: true },
          { leadId: 'lead_r3', tag: 'Wrong person' },
          { leadId: 'lead_r1', tag: 'Interested' },
        ],
      }),
    });
    expect(r.status).toBe(200);
    expect(r.body.summary).toMatchObject({ total: 3, updated: 3 });
    const after = await drafts();
    expect(after.get(ids.r2)).toMatchObject(skipped);
    expect(after.get(ids.r3)).toMatchObject(skipped);
    for (const id of [ids.r0, ids.r0Message, ids.r1]) expect(after.get(id)).toMatchObject(open('pending'));
  });

  it('the drafts close in the exclusion’s transaction: a batch item that fails after its writes leaves its lead’s drafts open', async () => {
    const ids = await start();
    server.ctx.faults = {
      hit: (point, subject) => {
        if (point === 'leads.update.item' && subject === 'lead_r3') throw new Error('database is locked');
      },
    };
    const r = await server.rest('/campaigns/cmp_review/leads/batch-update', {
      method: 'POST',
      body: JSON.stringify({
        updates: [
          { leadId: 'lead_r2', excluded: true },
          { leadId: 'lead_r3', excluded: true },
        ],
      }),
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { status: string }) => x.status)).toEqual(['updated', 'failed']);
    const after = await drafts();
    expect(after.get(ids.r2)).toMatchObject(skipped);
    // The failed item's exclusion rolled back, and its draft's skip with it.
    expect(after.get(ids.r3)).toMatchObject(open('pending'));
  });

  it('adding the profile to the exclusion list skips the drafts of every lead with it, in every campaign', async () => {
    const ids = await start();
    expect(addExclusions(server.ctx, [R0_URL])).toMatchObject({ added: [R0_URL], leadsExcluded: 2 });
    const after = await drafts();
    for (const id of [ids.r0, ids.r0Message, ids.twin]) expect(after.get(id)).toMatchObject(skipped);
    for (const id of [ids.r1, ids.r2, ids.r3]) expect(after.get(id)).toMatchObject(open('pending'));
  });
});
