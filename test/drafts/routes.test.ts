import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { callTool, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';

/** The two draft routes and approval on campaigns, over REST and MCP (?toolsets=drafts and manage). */
describe('drafts over REST and MCP', () => {
  let server: TestServer;
  let mcp: Client;
  const ids: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS, workspace: reviewWorkspace(5) });
    mcp = await server.mcp(undefined, 'toolsets=drafts');
    for (let i = 0; i < 5; i++) {
      const kind = i === 4 ? 'inmail' : i === 3 ? 'message' : 'invite';
      const d = draftFor(server.ctx, {
        campaignId: 'cmp_review',
        leadId: `lead_r${i}`,
        stepId: `stp_${kind}`,
        variant: 'A',
        kind,
        accountId: 'acc_ada',
        text: `Hello lead ${i}`,
        subject: kind === 'inmail' ? 'A question' : null,
      });
      ids.push(d.id);
    }
  });
  afterAll(() => server.close());

  it('GET /drafts lists oldest first with each lead, the same as list_drafts', async () => {
    const r = await server.rest('/drafts?campaignId=cmp_review&status=pending&limit=2');
    expect(r.status).toBe(200);
    expect(r.body.drafts.map((d: any) => d.id)).toEqual(ids.slice(0, 2));
    expect(Object.keys(r.body.drafts[0]).sort()).toEqual(
      [
        'accountId',
        'campaignId',
        'createdAt',
        'decidedBy',
        'drafterError',
        'id',
        'kind',
        'lead',
        'leadId',
        'renderedSubject',
        'renderedText',
        'revision',
        'skipReason',
        'status',
        'stepId',
        'subject',
        'text',
        'updatedAt',
        'variant',
      ].sort(),
    );
    expect(Object.keys(r.body.drafts[0].lead).sort()).toEqual(['companyName', 'fullName', 'headline', 'jobTitle', 'location', 'networkUrl', 'personalization']);
    const next = await server.rest(`/drafts?campaignId=cmp_review&status=pending&limit=2&cursor=${encodeURIComponent(r.body.nextCursor)}`);
    expect(next.body.drafts.map((d: any) => d.id)).toEqual(ids.slice(2, 4));
    const m = await callTool(mcp, 'list_drafts', { campaignId: 'cmp_review', status: 'pending', limit: 2 });
    expect(m.body).toEqual(r.body);
  });

  it('GET /drafts refuses a bad status, limit or cursor by name, and an unknown campaign with 404', async () => {
    for (const [query, field] of [
      ['status=sending', 'status'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=abc', 'cursor'],
      ['campaignId=bad%20id', 'campaignId'],
      ['bogus=1', 'bogus'],
    ]) {
      const r = await server.rest(`/drafts?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details.fields).toEqual([field]);
    }
    const unknown = await server.rest('/drafts?campaignId=cmp_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('POST /drafts/batch-update answers 200 with per-item results whenever the envelope is valid', async () => {
    const r = await server.rest('/drafts/batch-update', {
      method: 'POST',
      body: JSON.stringify({
        drafts: [
          { id: ids[0], text: 'Hi Grace, your work on compilers is why I write.', status: 'approved' },
          { id: ids[1], status: 'rejected' },
          { id: ids[2], text: 'x'.repeat(301) },
          { id: 'drf_missing', status: 'approved' },
          { id: ids[1], status: 'approved' },
          // A string that is no decision is the item's own error, as a string that is no profile URL is in a batch of leads.
          { id: ids[3], status: 'sent' },
        ],
      }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-policy')).toContain('"manage"');
    expect(r.body.results.map((i: any) => [i.index, i.draftId, i.status])).toEqual([
      [0, ids[0], 'updated'],
      [1, ids[1], 'updated'],
      [2, ids[2], 'validation_error'],
      [3, 'drf_missing', 'not_found'],
      [4, ids[1], 'validation_error'],
      [5, ids[3], 'validation_error'],
    ]);
    expect(r.body.results[5].error).toEqual({ code: 'validation_error', message: 'drafts[5].status must be approved or rejected.' });
    expect(r.body.summary).toEqual({ total: 6, updated: 2, not_found: 1, validation_error: 3, conflict: 0 });
    // The rejected draft is final: a later approval is that item's conflict.
    const again = await callTool(mcp, 'update_drafts', { drafts: [{ id: ids[1], status: 'approved' }] });
    expect(again.isError).toBe(false);
    expect(again.body.results[0]).toMatchObject({ status: 'conflict', error: { code: 'conflict' } });
    expect(again.body.summary.conflict).toBe(1);
    const listed = await server.rest(`/drafts?campaignId=cmp_review&status=approved`);
    expect(listed.body.drafts).toEqual([
      expect.objectContaining({ id: ids[0], text: 'Hi Grace, your work on compilers is why I write.', renderedText: 'Hello lead 0' }),
    ]);
  });

  it('refuses the whole request, naming the field, for more than 100 items, an unknown key or a bad type', async () => {
    const post = (body: unknown) => server.rest('/drafts/batch-update', { method: 'POST', body: JSON.stringify(body) });
    const cases: [unknown, string][] = [
      [{ drafts: Array.from({ length: 101 }, (_, i) => ({ id: `drf_${i}`, status: 'approved' })) }, 'drafts'],
      [{ drafts: [] }, 'drafts'],
      [{ drafts: [{ id: ids[2], status: 'approved', bogus: 1 }] }, 'drafts[0].bogus'],
      [{ drafts: [{ id: ids[2], text: 5 }] }, 'drafts[0].text'],
      [{ drafts: [{ id: ids[2], status: 5 }] }, 'drafts[0].status'],
      [{ drafts: [{ text: 'no id' }] }, 'drafts[0].id'],
      [{ drafts: [{ id: ids[2], status: 'approved' }], extra: true }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const r = await post(body);
      expect(r.status, field).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details.fields).toContain(field);
    }
    // Nothing of a refused request was applied.
    expect((await server.rest(`/drafts?campaignId=cmp_review&status=pending`)).body.drafts.map((d: any) => d.id)).toEqual(ids.slice(2));
  });

  it('campaigns carry approval: create, update any time, get and list return it; another value is 400 naming approval', async () => {
    const manage = await server.mcp(undefined, 'toolsets=manage');
    const created = await callTool(manage, 'create_campaign', { name: 'Careful', approval: 'required' });
    expect(created.body.approval).toBe('required');
    const plain = await server.rest('/campaigns', { method: 'POST', body: JSON.stringify({ name: 'Plain' }) });
    expect(plain.body.approval).toBe('off');
    for (const bad of ['on', null, true]) {
      const r = await server.rest(`/campaigns/${created.body.id}`, { method: 'PATCH', body: JSON.stringify({ approval: bad }) });
      expect(r.status).toBe(400);
      expect(r.body.error.details.fields).toEqual(['approval']);
      const c = await server.rest('/campaigns', { method: 'POST', body: JSON.stringify({ name: 'X', approval: bad }) });
      expect(c.status).toBe(400);
      expect(c.body.error.details.fields).toEqual(['approval']);
    }
    // A running campaign's approval changes too (its agent would need a pause first).
    const off = await server.rest('/campaigns/cmp_review', { method: 'PATCH', body: JSON.stringify({ approval: 'off' }) });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ status: 'CAMPAIGN_IN_PROGRESS', approval: 'off' });
    expect((await server.rest('/campaigns/cmp_review')).body.approval).toBe('off');
    const listed = await server.rest('/campaigns?limit=100');
    expect(listed.body.campaigns.find((c: any) => c.id === created.body.id).approval).toBe('required');
    // What was pending went out as it stood: approved now.
    const pending = await server.rest('/drafts?campaignId=cmp_review&status=pending');
    expect(pending.body.drafts).toEqual([]);
    const approved = await server.rest('/drafts?campaignId=cmp_review&status=approved');
    expect(approved.body.drafts.map((d: any) => d.id)).toEqual([ids[0], ...ids.slice(2)]);
  });
});

describe('two operators at once', () => {
  it('approving the same draft together approves it once; approving and rejecting together ends in one decision', async () => {
    const server = await startTestServer({ limits: RELAXED_LIMITS, workspace: reviewWorkspace(2) });
    try {
      const make = (i: number) => draftFor(server.ctx, noteFor(`lead_r${i}`)).id;
      const [a, b] = [make(0), make(1)];
      const post = (body: unknown) => server.rest('/drafts/batch-update', { method: 'POST', body: JSON.stringify(body) });
      server.ctx.clock.advance(1000);
      const approvals = await Promise.all(Array.from({ length: 8 }, () => post({ drafts: [{ id: a, status: 'approved' }] })));
      expect(approvals.map((r) => [r.status, r.body.results[0].status])).toEqual(Array.from({ length: 8 }, () => [200, 'updated']));
      const afterFirst = (await server.rest('/drafts?status=approved')).body.drafts[0];
      expect(afterFirst).toMatchObject({ id: a, status: 'approved' });
      // Every later approval found it approved and wrote nothing.
      server.ctx.clock.advance(1000);
      await post({ drafts: [{ id: a, status: 'approved' }] });
      expect((await server.rest('/drafts?status=approved')).body.drafts[0].updatedAt).toBe(afterFirst.updatedAt);

      const [approve, reject] = await Promise.all([post({ drafts: [{ id: b, status: 'approved' }] }), post({ drafts: [{ id: b, status: 'rejected' }] })]);
      const final = (await server.rest('/drafts?campaignId=cmp_review')).body.drafts.find((d: any) => d.id === b);
      // Either order is one decision: approve then reject (rejected), or reject then a refused approval.
      if (final.status === 'rejected' && approve.body.results[0].status === 'conflict') expect(reject.body.results[0].status).toBe('updated');
      else expect([final.status, approve.body.results[0].status, reject.body.results[0].status]).toEqual(['rejected', 'updated', 'updated']);
    } finally {
      await server.close();
    }
  });
});
