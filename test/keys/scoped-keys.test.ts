import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/auth/keys.js';
import { reachOf, withReach, type KeyScope } from '../../src/core/auth/scope.js';
import { completeCampaignIds } from '../../src/core/campaigns/complete.js';
import { tools } from '../../src/tools/index.js';
import { recordMessage } from '../../src/core/conversations/record.js';
import { leadStatements } from '../../src/db/sql/leads.js';
import { callTool, startTestServer, type TestServer } from '../helpers.js';
import { ERROR_STATUS } from '../../src/core/errors.js';
import type { Client } from '@modelcontextprotocol/client';
import { restPath } from '../transports.js';

/**
 * Scoped API keys over both faces: a read-only key is refused every write, a key held to one
 * campaign cannot learn that another exists, an expired key is 401 key_expired, and MCP lists a
 * scoped key only its tools.
 */
let server: TestServer;
const keyWith = (scope: KeyScope, name = 'scoped') => createApiKey(server.ctx, 'test', name, scope).key;

/** A REST request for any tool: its method and path, ids filled in, an empty JSON body for a write. */
function restCall(name: string, key: string) {
  const tool = tools.find((t) => t.name === name)!;
  const ids: Record<string, string> = { campaignId: 'cmp_q4', leadId: 'lead_x', agentId: 'tpl_x', accountId: 'acc_x' };
  const path = tool.pathParams.reduce((p, param) => p.replace(`:${param}`, ids[param] ?? 'x'), tool.http.path);
  return server.rest(path, { method: tool.http.method, key, ...(tool.http.method === 'GET' ? {} : { body: '{}' }) });
}

/** One read over REST and MCP with the same key: both must answer alike. */
async function readBoth(key: string, client: Client, name: string, args: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const rest = await server.rest(restPath(name, args), { key });
  const mcp = await callTool(client, name, args);
  expect(mcp.body, `${name} over MCP and REST`).toEqual(rest.body);
  expect(mcp.isError).toBe(rest.status !== 200);
  if (rest.status !== 200) expect(rest.status).toBe(ERROR_STATUS[rest.body.error.code as keyof typeof ERROR_STATUS]);
  return rest;
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('a read-only key', () => {
  const writes = tools.filter((t) => !t.annotations.readOnlyHint);

  it('is refused every write tool over REST with 403 forbidden, and nothing changes', async () => {
    expect(writes.length).toBeGreaterThan(10);
    const key = keyWith({ readOnly: true });
    const before = (await server.rest('/credits', { key })).body;
    for (const tool of writes) {
      const res = await restCall(tool.name, key);
      expect([tool.name, res.status, res.body.error?.code]).toEqual([tool.name, 403, 'forbidden']);
    }
    expect((await server.rest('/credits', { key })).body).toEqual(before);
    const leads = await server.rest('/campaigns/cmp_q4/leads', { key });
    expect(leads.status).toBe(200);
    expect(leads.body.leads).toHaveLength(1);
  });

  it('is refused every write tool over MCP with the same error, and lists only read tools', async () => {
    const key = keyWith({ readOnly: true });
    const client = await server.mcp(key, 'toolsets=manage,triage,audit');
    const listed = (await client.listTools()).tools.map((t) => t.name);
    const reads = tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
    expect(listed.sort()).toEqual([...reads].sort());
    for (const tool of writes) {
      const res = await callTool(client, tool.name, {});
      expect([tool.name, res.isError, res.body.error?.code]).toEqual([tool.name, true, 'forbidden']);
    }
    expect((await callTool(client, 'get_credits')).isError).toBe(false);
  });
});

describe('a key held to toolsets', () => {
  it('lists only its toolsets over MCP, without asking for them, and REST refuses the rest with 403', async () => {
    const key = keyWith({ toolsets: ['drafts'] });
    const client = await server.mcp(key);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['list_drafts', 'update_drafts']);
    const credits = await server.rest('/credits', { key });
    expect([credits.status, credits.body.error.code]).toEqual([403, 'forbidden']);
    expect((await server.rest('/drafts', { key })).status).toBe(200);
    const refused = await callTool(client, 'list_drafts', {});
    expect(refused.isError).toBe(false);
  });

  it('what the URL narrows (?readonly=, ?tools=) narrows the tools its toolsets add: the URL never widens the key', async () => {
    const key = keyWith({ toolsets: ['drafts'] });
    const readOnly = await server.mcp(key, 'readonly=1');
    expect((await readOnly.listTools()).tools.map((t) => t.name)).toEqual(['list_drafts']);
    // A tool the connection was not offered is unknown on it, as for an unscoped key on ?readonly=1.
    const write = await readOnly.callTool({ name: 'update_drafts', arguments: { drafts: [{ id: 'drf_x', status: 'rejected' }] } });
    expect(write.isError).toBe(true);
    expect(JSON.stringify(write.content)).toContain('update_drafts');
    expect(JSON.stringify(write.content)).not.toContain('"updated"');
    const named = await server.mcp(key, 'tools=get_credits,list_drafts');
    expect((await named.listTools()).tools.map((t) => t.name)).toEqual(['list_drafts']);
    const alsoNamed = await server.mcp(key, 'toolsets=drafts,readonly');
    expect((await alsoNamed.listTools()).tools.map((t) => t.name)).toEqual(['list_drafts']);
    const audit = await server.mcp(keyWith({ toolsets: ['audit'] }), 'tools=get_credits');
    expect((await audit.listTools()).tools.map((t) => t.name)).toEqual([]);
    // Without narrowing the key still lists its toolsets' tools.
    const plain = await server.mcp(key, 'toolsets=manage');
    expect((await plain.listTools()).tools.map((t) => t.name).sort()).toEqual(['list_drafts', 'update_drafts']);
  });

  it('manage includes drafts, and standard is the default listing', async () => {
    const client = await server.mcp(keyWith({ toolsets: ['standard'] }), 'toolsets=manage');
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('get_credits');
    expect(listed).not.toContain('create_agent');
    expect(listed).not.toContain('list_drafts');
    const manage = await server.mcp(keyWith({ toolsets: ['manage'] }));
    const managed = (await manage.listTools()).tools.map((t) => t.name);
    expect(managed).toContain('create_agent');
    expect(managed).toContain('list_drafts');
    expect(managed).not.toContain('get_credits');
  });
});

describe('a key held to one campaign', () => {
  // cmp_paused has stats but no activity; cmp_q4 has a lead, a reply and the activity.
  let key: string;
  beforeAll(() => {
    key = keyWith({ campaignIds: ['cmp_paused'] });
  });

  it('lists only that campaign, and every other one is 404 as if absent, over REST and MCP', async () => {
    const client = await server.mcp(key, 'toolsets=manage,triage,audit');
    const list = await readBoth(key, client, 'list_campaigns', {});
    expect(list.body.campaigns.map((c: { id: string }) => c.id)).toEqual(['cmp_paused']);
    expect(list.body.nextCursor).toBeNull();
    expect((await readBoth(key, client, 'get_campaign', { campaignId: 'cmp_paused' })).status).toBe(200);
    const absent = await readBoth(key, client, 'get_campaign', { campaignId: 'cmp_never_existed' });
    for (const [name, args] of [
      ['get_campaign', { campaignId: 'cmp_q4' }],
      ['list_leads', { campaignId: 'cmp_q4' }],
      ['get_lead', { campaignId: 'cmp_q4', leadId: 'lead_x' }],
      ['list_drafts', { campaignId: 'cmp_q4' }],
      // An agent is not a campaign's, but previewing it for another campaign's lead would show that lead.
      ['preview_agent', { agentId: 'tpl_intro', leadId: 'lead_ada1' }],
    ] as const) {
      const res = await readBoth(key, client, name, args);
      expect([name, res.status, res.body.error.code]).toEqual([name, 404, 'not_found']);
    }
    const unknownLead = await readBoth(key, client, 'preview_agent', { agentId: 'tpl_intro', leadId: 'lead_never_existed' });
    const hidden = await server.rest('/agents/tpl_intro/preview?leadId=lead_ada1', { key });
    expect(hidden.body.error.message.replace('lead_ada1', 'ID')).toBe(unknownLead.body.error.message.replace('lead_never_existed', 'ID'));
    expect((await server.rest('/agents/tpl_intro/preview?leadId=lead_ada1')).status).toBe(200);
    // The same answer as for a campaign that never existed, the id aside.
    const other = await server.rest('/campaigns/cmp_q4', { key });
    expect(other.body.error.message.replace('cmp_q4', 'ID')).toBe(absent.body.error.message.replace('cmp_never_existed', 'ID'));
    // Writes too: starting, pausing, adding to another campaign are 404.
    const start = await server.rest('/campaigns/cmp_q4/start', { method: 'POST', key, body: '{}' });
    expect([start.status, start.body.error.code]).toEqual([404, 'not_found']);
    const add = await server.rest('/campaigns/cmp_q4/leads', {
      method: 'POST',
      key,
      body: JSON.stringify({ networkUrl: 'https://www.linkedin.com/in/someone' }),
    });
    expect([add.status, add.body.error.code]).toEqual([404, 'not_found']);
  });

  it('finds no trace of other campaigns in activity, insights, counts or completions', async () => {
    const client = await server.mcp(key, 'toolsets=manage,triage,audit');
    const activity = await readBoth(key, client, 'get_recent_activity', {});
    expect(activity.body.events).toEqual([]);
    const insights = (await readBoth(key, client, 'get_insights_overview', {})).body;
    expect(insights.highlights).toEqual({ lastActivityAt: null, lastReplyAt: null, lastReplyLeadName: null, lastReplyCampaignId: null });
    expect(insights.workspace).toEqual({ repliesReceived: 2, connectionRequestsSent: 3, connectionRequestsAccepted: 2, messagesSent: 7 });
    expect(insights.campaignsSampled).toBe(1);
    const named = [...insights.topCampaignsByReplyRate, ...insights.topCampaignsByAcceptanceRate].map((c: { id: string }) => c.id);
    expect(new Set(named)).toEqual(new Set(['cmp_paused']));
    const drafts = await readBoth(key, client, 'list_drafts', {});
    expect(drafts.body.drafts.every((d: { campaignId: string }) => d.campaignId === 'cmp_paused')).toBe(true);
    expect(completeCampaignIds(withReach(server.ctx, reachOf({ campaignIds: ['cmp_paused'] })), 'cmp').values).toEqual(['cmp_paused']);
    expect(completeCampaignIds(server.ctx, 'cmp').values.length).toBeGreaterThan(1);
    const text = JSON.stringify([activity.body, insights, drafts.body]);
    for (const id of ['cmp_q4', 'cmp_running', 'cmp_done', 'cmp_failed']) expect(text).not.toContain(id);
  });

  it('reads no thread of another campaign (triage toolset) and is refused the workspace-wide audit trail', async () => {
    const lead = leadStatements(server.ctx.db).byId.get('lead_ada1');
    if (!lead) throw new Error('fixture lead_ada1 missing');
    recordMessage(server.ctx, { lead, sender: 'lead', text: 'Interested, tell me more', at: server.ctx.simClock.now(), accountId: null });
    // An unscoped key sees the thread; the key held to cmp_paused finds no trace of it.
    expect((await server.rest('/conversations/lead_ada1')).status).toBe(200);
    const all = await server.rest('/conversations?filter=all');
    expect(all.body.conversations.map((c: { leadId: string }) => c.leadId)).toContain('lead_ada1');
    const held = await server.rest('/conversations?filter=all', { key });
    expect([held.status, held.body.conversations]).toEqual([200, []]);
    const one = await server.rest('/conversations/lead_ada1', { key });
    expect([one.status, one.body.error.code]).toEqual([404, 'not_found']);
    const suggest = await server.rest('/conversations/lead_ada1/suggested-tag', {
      method: 'POST',
      key,
      body: JSON.stringify({ tag: 'Interested', confidence: 0.8 }),
    });
    expect([suggest.status, suggest.body.error.code]).toEqual([404, 'not_found']);
    const audit = await server.rest('/audit', { key });
    expect([audit.status, audit.body.error.code]).toEqual([403, 'forbidden']);
    expect(JSON.stringify([held.body, one.body, suggest.body, audit.body])).not.toContain('cmp_q4');
  });

  it('may not create a campaign (403): it could never reach it', async () => {
    const res = await restCall('create_campaign', key);
    expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
    const lookalike = await restCall('create_lookalike_campaign', key);
    expect([lookalike.status, lookalike.body.error.code]).toEqual([403, 'forbidden']);
  });

  it('an unscoped key still sees every campaign', async () => {
    const all = await server.rest('/campaigns?limit=100');
    expect(all.body.campaigns.length).toBeGreaterThan(3);
    expect((await server.rest('/insights/overview')).body.workspace.repliesReceived).toBeGreaterThan(2);
  });
});

describe('an expiring key', () => {
  it('works until expiresAt, then every call is 401 key_expired on REST and MCP', async () => {
    const at = server.ctx.clock.now() + 60_000;
    const key = keyWith({ expiresAt: new Date(at).toISOString() });
    expect((await server.rest('/credits', { key })).status).toBe(200);
    server.ctx.clock.set(at);
    const rest = await server.rest('/credits', { key });
    expect([rest.status, rest.body.error.code]).toEqual([401, 'key_expired']);
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(mcp.status).toBe(401);
    expect(((await mcp.json()) as { error: { code: string } }).error.code).toBe('key_expired');
    // Other keys are untouched.
    expect((await server.rest('/credits')).status).toBe(200);
  });
});
