import type { Client } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countAccountDaily } from '../../src/core/activity/record.js';
import { connectAccount, updateAccount } from '../../src/core/accounts/manage.js';
import { createCampaign, updateCampaign } from '../../src/core/campaigns/manage.js';
import { bestSender, campaignSenders, pickSender, pinSender } from '../../src/core/sequences/senders.js';
import { accounts, leads } from '../../src/db/schema.js';
import { callTool, RELAXED_LIMITS, startTestServer, testCtx, type TestServer } from '../helpers.js';

/** Two full-limit accounts beside the fixture's acc_ada (25 a day) and acc_nav. */
async function withSenders() {
  const ctx = testCtx();
  const a = (await connectAccount(ctx, { name: 'A', warmUp: false, connectionRequestLimit: 20 })).account.id;
  const b = (await connectAccount(ctx, { name: 'B', warmUp: false, connectionRequestLimit: 20 })).account.id;
  return { ctx, a, b };
}

describe('picking a lead sender', () => {
  it('a campaign without senders uses its agent account', () => {
    const ctx = testCtx();
    expect(campaignSenders(ctx, 'cmp_q4')).toEqual(['acc_ada']);
    expect(campaignSenders(ctx, 'cmp_noagent')).toEqual([]);
    expect(pickSender(ctx, { accountId: null, campaignId: 'cmp_q4' }, ctx.simClock.now())).toEqual({ accountId: 'acc_ada', pinned: false });
  });

  it('keeps the lead own account, else picks the sender with the most invitations left, the lowest id on a tie', async () => {
    const { ctx, a, b } = await withSenders();
    const now = ctx.simClock.now();
    const c = createCampaign(ctx, { name: 'Two senders', senderAccountIds: [b, a] });
    const [low, high] = [a, b].sort();
    expect(pickSender(ctx, { accountId: null, campaignId: c.id }, now)).toEqual({ accountId: low, pinned: false });
    countAccountDaily(ctx, low!, 'connectionRequestsSent');
    expect(pickSender(ctx, { accountId: null, campaignId: c.id }, now).accountId).toBe(high);
    countAccountDaily(ctx, high!, 'connectionRequestsSent');
    expect(pickSender(ctx, { accountId: null, campaignId: c.id }, now).accountId).toBe(low);
    expect(pickSender(ctx, { accountId: 'acc_nav', campaignId: c.id }, now)).toEqual({ accountId: 'acc_nav', pinned: true });
    // Invitations promised this round count as spent.
    expect(bestSender(ctx, [low!, high!], now, new Map([[low!, 2]]))).toBe(high);
  });

  it('a lower daily limit or a warm-up leaves fewer invitations', async () => {
    const { ctx, a, b } = await withSenders();
    updateAccount(ctx, a, { connectionRequestLimit: 5 });
    expect(bestSender(ctx, [a, b], ctx.simClock.now())).toBe(b);
    updateAccount(ctx, b, { warmUp: true });
    updateAccount(ctx, a, { connectionRequestLimit: 3 });
    // Warming up, b may send 5 on its first day; a, 3.
    expect(bestSender(ctx, [a, b], ctx.simClock.now())).toBe(b);
    updateAccount(ctx, a, { connectionRequestLimit: 20 });
    // Warming up, b may send 5 on its first day; a, 20.
    expect(bestSender(ctx, [a, b], ctx.simClock.now())).toBe(a);
  });

  it('leaves out senders that cannot send now; none left is null', async () => {
    const { ctx, a, b } = await withSenders();
    updateAccount(ctx, a, { active: false });
    expect(bestSender(ctx, [a, b], ctx.simClock.now())).toBe(b);
    ctx.db.update(accounts).set({ status: 'disconnected' }).where(eq(accounts.id, b)).run();
    expect(bestSender(ctx, [a, b], ctx.simClock.now())).toBeNull();
    expect(bestSender(ctx, ['acc_off'], ctx.simClock.now())).toBeNull();
  });

  it('pinSender stores the sender as the lead account once; the lead keeps it', async () => {
    const { ctx, a, b } = await withSenders();
    const c = createCampaign(ctx, { name: 'Pinned', senderAccountIds: [a, b] });
    const leadId = 'lead_pin';
    const now = ctx.simClock.now();
    ctx.db.insert(leads).values({ id: leadId, campaignId: c.id, networkUrl: 'https://www.linkedin.com/in/pin', createdAt: now, updatedAt: now }).run();
    const first = pinSender(ctx, leadId, now);
    expect([a, b]).toContain(first);
    expect(ctx.db.select().from(leads).where(eq(leads.id, leadId)).get()!.accountId).toBe(first);
    for (let i = 0; i < 5; i++) countAccountDaily(ctx, first!, 'connectionRequestsSent');
    expect(pinSender(ctx, leadId, now)).toBe(first);
    expect(pinSender(ctx, 'lead_missing', now)).toBeNull();
  });

  it('updateCampaign: senders are checked, a repeat counts once, and a running campaign refuses a change', async () => {
    const { ctx, a } = await withSenders();
    expect(updateCampaign(ctx, 'cmp_q4', { senderAccountIds: [a, a, 'acc_ada'] }).senderAccountIds).toEqual([a, 'acc_ada']);
    expect(() => updateCampaign(ctx, 'cmp_running', { senderAccountIds: [a] })).toThrow(/pause/);
    // Setting the same senders again, or a rename, is no change.
    expect(updateCampaign(ctx, 'cmp_running', { senderAccountIds: [], name: 'Same' }).senderAccountIds).toEqual([]);
  });
});

describe('senders over REST and MCP', () => {
  let server: TestServer;
  let mcp: Client;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    mcp = await server.mcp(undefined, 'toolsets=manage');
  });
  afterAll(() => server.close());
  const send = (path: string, body: unknown, method = 'POST') => server.rest(path, { method, body: JSON.stringify(body) });

  it('create, update, get and list carry senderAccountIds', async () => {
    const c = await send('/campaigns', { name: 'Rotating', assignedTemplateId: 'tpl_intro', senderAccountIds: ['acc_ada', 'acc_nav'] });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ name: 'Rotating', senderAccountIds: ['acc_ada', 'acc_nav'] });
    expect((await server.rest(`/campaigns/${c.body.id}`)).body.senderAccountIds).toEqual(['acc_ada', 'acc_nav']);
    const listed = (await server.rest('/campaigns?limit=100')).body.campaigns.find((x: { id: string }) => x.id === c.body.id);
    expect(listed.senderAccountIds).toEqual(['acc_ada', 'acc_nav']);
    const u = await send(`/campaigns/${c.body.id}`, { senderAccountIds: ['acc_nav'] }, 'PATCH');
    expect(u.body.senderAccountIds).toEqual(['acc_nav']);
    const m = await callTool(mcp, 'update_campaign', { campaignId: c.body.id, senderAccountIds: [] });
    expect(m.body.senderAccountIds).toEqual([]);
    // Every campaign shows the field, empty by default.
    expect((await server.rest('/campaigns/cmp_q4')).body.senderAccountIds).toEqual([]);
    expect((await callTool(await server.mcp(), 'get_campaign', { campaignId: 'cmp_q4' })).body.senderAccountIds).toEqual([]);
  });

  it('an unknown account is 404 naming senderAccountIds[1]; over 20 is 400; a running campaign is 409', async () => {
    const bad = await send('/campaigns', { name: 'X', senderAccountIds: ['acc_ada', 'acc_nope'] });
    expect(bad.status).toBe(404);
    expect(bad.body.error).toMatchObject({ code: 'not_found', details: { fields: ['senderAccountIds[1]'] } });
    const m = await callTool(mcp, 'create_campaign', { name: 'X', senderAccountIds: ['acc_ada', 'acc_nope'] });
    expect(m.body.error.details.fields).toEqual(['senderAccountIds[1]']);
    const many = await send('/campaigns', { name: 'X', senderAccountIds: Array.from({ length: 21 }, () => 'acc_ada') });
    expect(many.status).toBe(400);
    expect(many.body.error.details.fields).toEqual(['senderAccountIds']);
    const malformed = await send('/campaigns', { name: 'X', senderAccountIds: ['bad id!'] });
    expect(malformed.body.error.details.fields).toEqual(['senderAccountIds[0]']);
    const running = await send('/campaigns/cmp_running', { senderAccountIds: ['acc_nav'] }, 'PATCH');
    expect(running.status).toBe(409);
    expect(running.body.error.code).toBe('conflict');
    const unknownOnUpdate = await send('/campaigns/cmp_q4', { senderAccountIds: ['acc_zzz'] }, 'PATCH');
    expect(unknownOnUpdate.body.error.details.fields).toEqual(['senderAccountIds[0]']);
  });
});
