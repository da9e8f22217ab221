import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorTools } from '../../src/tools/operator/index.js';
import { dashboardTools, toolByName, tools } from '../../src/tools/index.js';
import { authenticate, invokeTool } from '../../src/tools/pipeline.js';
import { webhookEvents } from '../../src/db/schema.js';
import { recordActivity } from '../../src/core/activity/record.js';
import { leadStatements } from '../../src/db/sql/leads.js';
import { TEST_KEY, startTestServer, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from './helpers.js';

describe('operator tools', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());
  const call = (name: string, args: Record<string, unknown> = {}) => appCall(server.url, cookie, name, args);

  it('are in the dashboard registry only: never listed or callable over MCP or REST', async () => {
    const names = operatorTools.map((t) => t.name);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) {
      expect(toolByName.has(name), name).toBe(false);
      expect(tools.some((t) => t.name === name)).toBe(false);
      expect(dashboardTools.some((t) => t.name === name)).toBe(true);
    }
    const client = await server.mcp();
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed.filter((n) => names.includes(n))).toEqual([]);
    for (const name of ['list_api_keys', 'rotate_webhook_secret', 'list_conversations']) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError, name).toBe(true);
      const rest = await server.rest(`/${name}`, { method: 'POST', body: '{}' });
      expect(rest.status).toBe(404);
    }
    // Even handed to the pipeline directly, a key caller is refused.
    const who = authenticate(server.ctx, { apiKey: TEST_KEY }, { requestId: 'r' });
    if (!who.ok) throw new Error('the test key should authenticate');
    const outcome = await invokeTool(server.ctx, operatorTools[0]!, { caller: who.caller, input: {} });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error.code).toBe('not_found');
    const openapi = (await server.rest('/openapi.json', { key: null })).body as { paths: Record<string, unknown> };
    expect(JSON.stringify(openapi)).not.toContain('list_api_keys');
  });

  it('create a key shown once, list it without the secret, and revoke it at once', async () => {
    const created = await call('create_api_key', { name: 'dashboard key' });
    expect(created.body.isError).toBe(false);
    const { key, secret } = created.body.structuredContent;
    expect(secret).toMatch(/^sk_test_/);
    expect(key).toMatchObject({ name: 'dashboard key', environment: 'test', revokedAt: null });
    expect((await server.rest('/credits', { key: secret })).status).toBe(200);
    const listed = await call('list_api_keys');
    expect(JSON.stringify(listed.body.structuredContent)).not.toContain(secret);
    expect(listed.body.structuredContent.keys.map((k: { id: string }) => k.id)).toContain(key.id);
    const revoked = await call('revoke_api_key', { keyId: key.id });
    expect(revoked.body.structuredContent).toEqual({ keyId: key.id, revoked: true });
    expect((await server.rest('/credits', { key: secret })).status).toBe(401);
    expect((await call('revoke_api_key', { keyId: 'key_nope' })).body.structuredContent.error.code).toBe('not_found');
  });

  it('manage webhook endpoints, rotate the secret, and redeliver from the log', async () => {
    const added = await call('add_webhook_endpoint', { url: 'https://hooks.example.com/outreach' });
    expect(added.body.isError).toBe(false);
    const endpoint = added.body.structuredContent.endpoint;
    expect(endpoint.events.length).toBeGreaterThan(1);
    const bad = await call('add_webhook_endpoint', { url: 'ftp://x', events: ['lead.tagged'] });
    expect(bad.body.structuredContent.error).toMatchObject({ code: 'validation_error', details: { fields: ['url'] } });

    const disabled = await call('set_webhook_endpoint_enabled', { endpointId: endpoint.id, enabled: false });
    expect(disabled.body.structuredContent.endpoint.status).toBe('disabled');
    const enabled = await call('set_webhook_endpoint_enabled', { endpointId: endpoint.id, enabled: true });
    expect(enabled.body.structuredContent.endpoint.status).toBe('active');

    const rotated = await call('rotate_webhook_secret');
    expect(rotated.body.structuredContent.secret).toMatch(/^whsec_/);
    expect((await call('list_webhook_endpoints')).body.structuredContent.secretSet).toBe(true);

    // An event for the endpoint: tag a lead, then fan out by asking for a redelivery of its delivery.
    const tagged = await call('update_lead', { campaignId: 'cmp_q4', leadId: 'lead_ada1', tag: 'Interested' });
    expect(tagged.body.isError, JSON.stringify(tagged.body.structuredContent)).toBe(false);
    const event = server.ctx.db.select().from(webhookEvents).all().at(-1)!;
    const { fanOut } = await import('../../src/core/webhooks/deliveries.js');
    fanOut(server.ctx);
    const log = await call('list_webhook_deliveries', { endpointId: endpoint.id });
    const delivery = log.body.structuredContent.deliveries.find((d: { eventId: string }) => d.eventId === event.id);
    // The server's worker may already have tried it (the host does not resolve): each try is in its log.
    expect(delivery).toMatchObject({ endpointId: endpoint.id, eventType: 'lead.tagged' });
    expect(delivery.log).toHaveLength(delivery.attempts);
    const again = await call('redeliver_webhook_delivery', { deliveryId: delivery.id });
    // The server's webhook worker may be sending it at this very moment.
    expect(again.body.structuredContent).toMatchObject({ deliveryId: delivery.id, endpointId: endpoint.id });
    expect(['rescheduled', 'in_flight']).toContain(again.body.structuredContent.action);
    const succeeded = (await call('list_webhook_deliveries', { status: 'succeeded' })).body.structuredContent.deliveries;
    expect(succeeded.every((d: { state: string }) => d.state === 'succeeded')).toBe(true);
    expect(succeeded.map((d: { id: string }) => d.id)).not.toContain(delivery.id);
    expect((await call('redeliver_webhook_delivery', { deliveryId: 'whd_nope' })).body.structuredContent.error.code).toBe('not_found');

    const removed = await call('remove_webhook_endpoint', { endpointId: endpoint.id });
    expect(removed.body.structuredContent).toEqual({ endpointId: endpoint.id, removed: true });
    expect((await call('list_webhook_endpoints')).body.structuredContent.endpoints.map((e: { id: string }) => e.id)).not.toContain(endpoint.id);
  });

  it('answer the activity series with one entry per day', async () => {
    const series = await call('get_activity_series', { days: 7 });
    expect(series.body.isError).toBe(false);
    const days = series.body.structuredContent.days as { date: string; sends: number }[];
    expect(days).toHaveLength(7);
    expect(days.at(-1)!.date).toBe(new Date(server.ctx.simClock.now()).toISOString().slice(0, 10));
    expect((await call('get_activity_series', { days: 0 })).body.structuredContent.error.details.fields).toEqual(['days']);
    // A person's own send (an inbox reply, send_message) is not counted, as the insights and /activity leave it out.
    const today = async () => ((await call('get_activity_series', { days: 1 })).body.structuredContent.days as { sends: number }[])[0]!.sends;
    const before = await today();
    const lead = leadStatements(server.ctx.db).byId.get('lead_ada1')!;
    const at = server.ctx.simClock.now();
    server.ctx.db.transaction(() => {
      recordActivity(server.ctx, { type: 'message_sent', at, lead, accountId: 'acc_ada', manual: true });
      recordActivity(server.ctx, { type: 'message_sent', at, lead, accountId: 'acc_ada' });
    });
    expect(await today()).toBe(before + 1);
  });

  it('manage the exclusion list through the core verbs', async () => {
    const added = await call('add_exclusions', { urls: ['https://linkedin.com/in/grace-hopper/', 'https://www.linkedin.com/in/someone-else'] });
    expect(added.body.structuredContent).toEqual({
      added: ['https://www.linkedin.com/in/grace-hopper', 'https://www.linkedin.com/in/someone-else'],
      alreadyExcluded: [],
      leadsExcluded: 0,
    });
    const page = await call('list_exclusions', { limit: 1 });
    expect(page.body.structuredContent.exclusions).toHaveLength(1);
    const rest = await call('list_exclusions', { limit: 100, cursor: page.body.structuredContent.nextCursor });
    const all = [...page.body.structuredContent.exclusions, ...rest.body.structuredContent.exclusions].map((e: { networkUrl: string }) => e.networkUrl);
    expect(all).toEqual(expect.arrayContaining(['https://www.linkedin.com/in/grace-hopper', 'https://www.linkedin.com/in/someone-else']));
    expect(new Set(all).size).toBe(all.length);
    const removed = await call('remove_exclusions', { urls: ['https://www.linkedin.com/in/someone-else'] });
    expect(removed.body.structuredContent).toEqual({ removed: ['https://www.linkedin.com/in/someone-else'], notExcluded: [] });
    const bad = await call('add_exclusions', { urls: ['not a url'] });
    expect(bad.body.structuredContent.error).toMatchObject({ code: 'validation_error', details: { fields: ['urls[0]'] } });
  });

  it('import an exclusion file, all or nothing, naming a bad URL', async () => {
    const file = ['LinkedIn URL,Name', 'https://www.linkedin.com/in/file-one,One', 'https://linkedin.com/in/file-two/,Two', ''].join('\n');
    const bad = await call('import_exclusions', { file: `${file}not a url,Three\n` });
    expect(bad.body.structuredContent.error).toMatchObject({ code: 'validation_error', details: { fields: ['file[2]'] } });
    const listed = async () =>
      (await call('list_exclusions', { limit: 100 })).body.structuredContent.exclusions.map((e: { networkUrl: string }) => e.networkUrl) as string[];
    expect(await listed()).not.toContain('https://www.linkedin.com/in/file-one');
    const imported = await call('import_exclusions', { file });
    expect(imported.body.structuredContent).toEqual({
      added: ['https://www.linkedin.com/in/file-one', 'https://www.linkedin.com/in/file-two'],
      alreadyExcluded: [],
      leadsExcluded: 0,
    });
    expect(await listed()).toEqual(expect.arrayContaining(['https://www.linkedin.com/in/file-one', 'https://www.linkedin.com/in/file-two']));
    const empty = await call('import_exclusions', { file: '# nothing here\n' });
    expect(empty.body.structuredContent.error).toMatchObject({ code: 'validation_error', details: { fields: ['file'] } });
  });

  it("search a campaign's leads by name, company or profile URL", async () => {
    const found = await call('search_leads', { campaignId: 'cmp_q4', query: 'ada' });
    expect(found.body.isError, JSON.stringify(found.body.structuredContent)).toBe(false);
    expect(found.body.structuredContent.leads.map((l: { id: string }) => l.id)).toContain('lead_ada1');
    expect(found.body.structuredContent.more).toBe(false);
    const bad = await call('search_leads', { campaignId: 'cmp_q4', query: '' });
    expect(bad.body.structuredContent.error).toMatchObject({ code: 'validation_error' });
  });

  it('answer a conversation through send_message, idempotently, and list and mark it', async () => {
    const args = { leadId: 'lead_ada1', text: 'Thanks Ada, here is the overview you asked for.', idempotencyKey: 'reply-1' };
    const first = await call('reply_conversation', args);
    expect(first.body.isError, JSON.stringify(first.body.structuredContent)).toBe(false);
    const replay = await call('reply_conversation', args);
    expect(replay.body.structuredContent).toEqual(first.body.structuredContent);
    const thread = await call('get_conversation', { leadId: 'lead_ada1' });
    expect(thread.body.structuredContent.messages.map((m: { sender: string; text: string }) => [m.sender, m.text])).toEqual([['operator', args.text]]);
    const list = await call('list_conversations', { filter: 'all' });
    expect(list.body.structuredContent.conversations[0]).toMatchObject({ leadId: 'lead_ada1', lastMessage: { direction: 'outbound', sender: 'operator' } });
    const done = await call('mark_conversation_done', { leadId: 'lead_ada1' });
    expect(done.body.structuredContent).toEqual({ leadId: 'lead_ada1', needsReply: false });
    const bad = await call('list_conversations', { filter: 'unread' });
    expect(bad.body.structuredContent.error.details.fields).toEqual(['filter']);
    // The API still returns no message text beyond activity's preview.
    const activity = await server.rest('/activity?limit=100');
    expect(JSON.stringify(activity.body)).not.toContain(args.text);
  });
});
