import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/core/auth/keys.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { openDatabase } from '../../src/db/connection.js';
import { campaignDraftsUri, campaignUri, DRAFTS_URI } from '../../src/mcp/live.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, testCtx, type TestServer } from '../helpers.js';
import { noteFor, reviewWorkspace } from '../drafts/helpers.js';
import { stdioWorkspace } from './stdio-workspace.js';

/** The URIs a client has been told changed, and a wait for the next one of a URI. */
function updates() {
  const seen: string[] = [];
  const waiters: { uri: string; resolve: () => void }[] = [];
  return {
    seen,
    note(uri: string) {
      seen.push(uri);
      for (const w of waiters.filter((w) => w.uri === uri)) w.resolve();
    },
    next(uri: string): Promise<void> {
      return new Promise((resolve) => waiters.push({ uri, resolve }));
    },
  };
}

describe('live resources', () => {
  let server: TestServer;
  const drafts: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ workspace: reviewWorkspace(4), limits: RELAXED_LIMITS });
    for (const lead of ['lead_r0', 'lead_r1', 'lead_r2', 'lead_r3']) drafts.push(draftFor(server.ctx, noteFor(lead)).id);
  });
  afterAll(() => server.close());

  const approveOverRest = async (id: string) => {
    const r = await server.rest('/drafts/batch-update', { method: 'POST', body: JSON.stringify({ drafts: [{ id, status: 'approved' }] }) });
    expect(r.status).toBe(200);
    expect(r.body.results[0].status).toBe('updated');
  };

  it('lists the draft queue, templates for a campaign and its queue, and reads them as JSON', async () => {
    const client = await server.mcp();
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(DRAFTS_URI);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'outreach://campaigns/{campaignId}',
      'outreach://campaigns/{campaignId}/drafts',
      'outreach://changes{?campaignId,after,wait}',
    ]);
    const campaign = await client.readResource({ uri: campaignUri('cmp_review') });
    expect(JSON.parse((campaign.contents[0] as { text: string }).text)).toMatchObject({ id: 'cmp_review', status: 'CAMPAIGN_IN_PROGRESS' });
    const queue = await client.readResource({ uri: campaignDraftsUri('cmp_review') });
    const listed = JSON.parse((queue.contents[0] as { text: string }).text);
    expect(listed.drafts.map((d: { id: string }) => d.id)).toEqual(expect.arrayContaining(drafts.slice(1)));
    await expect(client.readResource({ uri: campaignUri('cmp_nope') })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('cmp_nope'),
      data: { uri: campaignUri('cmp_nope') },
    });
  });

  it('the v1 client at 2025-11-25 subscribes and hears of a draft approved through REST', async () => {
    const client = new ClientV1({ name: 'live-v1', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      // A 2025 revision gets the same code for a missing resource as 2026-07-28.
      await expect(client.readResource({ uri: campaignUri('cmp_nope') })).rejects.toMatchObject({ code: -32602, data: { uri: campaignUri('cmp_nope') } });
      const got = updates();
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => got.note(n.params.uri));
      await client.subscribeResource({ uri: campaignDraftsUri('cmp_review') });
      await client.subscribeResource({ uri: 'test://not-ours' });
      const heard = got.next(campaignDraftsUri('cmp_review'));
      await approveOverRest(drafts[0] as string);
      await heard;
      // Only what it subscribed to: the workspace queue changed too, but it did not ask.
      expect(got.seen).not.toContain(DRAFTS_URI);
      await client.unsubscribeResource({ uri: campaignDraftsUri('cmp_review') });
    } finally {
      await client.close();
    }
  });

  it('the v2 client at 2026-07-28 listens and hears of a draft approved through REST', async () => {
    const client = new ClientV2({ name: 'live-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new HttpV2(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const got = updates();
      client.setNotificationHandler('notifications/resources/updated', (n) => got.note(n.params.uri));
      const sub = await client.listen({ resourceSubscriptions: [DRAFTS_URI] });
      expect(sub.honoredFilter.resourceSubscriptions).toEqual([DRAFTS_URI]);
      const heard = got.next(DRAFTS_URI);
      await approveOverRest(drafts[1] as string);
      await heard;
      expect(got.seen).not.toContain(campaignDraftsUri('cmp_review'));
      await sub.close();
    } finally {
      await client.close();
    }
  });

  it('a key held to other campaigns hears nothing of this one, in either era, as of a campaign that never existed', async () => {
    // Held to cmp_q4: cmp_review is absent for the key, its drafts too.
    const { key } = createApiKey(server.ctx, 'test', 'held elsewhere', { campaignIds: ['cmp_q4'] });
    const outside = campaignDraftsUri('cmp_review');
    const v1 = new ClientV1({ name: 'live-scoped-v1', version: '1.0.0' });
    await v1.connect(new HttpV1(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }));
    const v2 = new ClientV2({ name: 'live-scoped-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await v2.connect(new HttpV2(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }));
    // A key of the whole workspace, to know when the change outside the scoped key was told.
    const whole = new ClientV2({ name: 'live-whole-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await whole.connect(new HttpV2(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    try {
      const old = updates();
      v1.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => old.note(n.params.uri));
      // Answered as a subscription to an id that never existed would be: accepted, and silent.
      await v1.subscribeResource({ uri: outside });
      await v1.subscribeResource({ uri: campaignUri('cmp_review') });
      await v1.subscribeResource({ uri: DRAFTS_URI });
      const modern = updates();
      v2.setNotificationHandler('notifications/resources/updated', (n) => modern.note(n.params.uri));
      const sub = await v2.listen({ resourceSubscriptions: [outside, campaignUri('cmp_review'), campaignUri('cmp_never'), DRAFTS_URI] });
      // Neither the campaign outside the key nor one that does not exist is honoured: the two look alike.
      expect(sub.honoredFilter.resourceSubscriptions).toEqual([DRAFTS_URI]);
      const told = updates();
      whole.setNotificationHandler('notifications/resources/updated', (n) => told.note(n.params.uri));
      const wholeSub = await whole.listen({ resourceSubscriptions: [DRAFTS_URI] });

      // A draft of cmp_review approved: the whole workspace's queue changed, the scoped key's did not.
      const toldOutside = told.next(DRAFTS_URI);
      await approveOverRest(drafts[3] as string);
      await toldOutside;
      // A draft of the key's own campaign: its queue changed, and that is all it hears.
      const heardOld = old.next(DRAFTS_URI);
      const heardModern = modern.next(DRAFTS_URI);
      draftFor(server.ctx, noteFor('lead_ada1', { campaignId: 'cmp_q4' }));
      await Promise.all([heardOld, heardModern]);
      expect(modern.seen).toEqual([DRAFTS_URI]);
      expect(old.seen).toEqual([DRAFTS_URI]);
      await sub.close();
      await wholeSub.close();
    } finally {
      await v1.close();
      await v2.close();
      await whole.close();
    }
  });

  it('ends a 2026-07-28 listen stream as soon as its key is revoked, with nothing else changing', async () => {
    const { id, key } = createApiKey(server.ctx, 'test', 'revoked while listening');
    const client = new ClientV2({ name: 'live-revoked', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new HttpV2(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }));
    try {
      const got = updates();
      client.setNotificationHandler('notifications/resources/updated', (n) => got.note(n.params.uri));
      const sub = await client.listen({ resourceSubscriptions: [DRAFTS_URI] });
      // No draft or campaign changes after this: the revocation alone ends the stream.
      revokeApiKey(server.ctx, id);
      expect(await sub.closed).not.toBe('local');
      expect(got.seen).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("ends a 2025 key's event stream as soon as the key is revoked, with nothing else changing", async () => {
    const { id, key } = createApiKey(server.ctx, 'test', 'revoked while subscribed');
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key };
    const subscribe = { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: DRAFTS_URI } };
    const subscribed = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(subscribe) });
    expect(await subscribed.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const stream = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream', 'x-api-key': key } });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the stream's opening comment: it is open
    revokeApiKey(server.ctx, id);
    // The server ends the stream: the body finishes without another update.
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).not.toContain('notifications/resources/updated');
  });

  it("ends a 2025 key's event stream once the key expires, with nothing changing", async () => {
    const expiresAt = new Date(server.ctx.clock.now() + 60_000).toISOString();
    const { key } = createApiKey(server.ctx, 'test', 'expires while subscribed', { expiresAt });
    const stream = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream', 'x-api-key': key } });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the stream's opening comment: it is open
    // The key's expiry passes; no write announces it, so the stream's keepalive finds it.
    server.ctx.clock.advance(61_000);
    const ended = (async () => {
      for (;;) if ((await reader.read()).done) return true;
    })();
    const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), 25_000).unref());
    expect(await Promise.race([ended, timeout])).toBe(true);
  }, 40_000);

  const batch = (tag: string) => ({
    campaignId: 'cmp_review',
    leads: Array.from({ length: 30 }, (_, i) => ({ networkUrl: `https://www.linkedin.com/in/progress-${tag}-${i}`, firstName: `P${i}` })),
  });

  it('the v1 client at 2025-11-25 hears progress during an import (add_leads_batch)', async () => {
    const client = new ClientV1({ name: 'progress-v1', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    try {
      const seen: { progress: number; total?: number | undefined }[] = [];
      const result = await client.callTool({ name: 'add_leads_batch', arguments: batch('v1') }, undefined, { onprogress: (p) => seen.push(p) });
      expect(result.isError).not.toBe(true);
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen.at(-1)).toMatchObject({ progress: 30, total: 30 });
      expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((x, y) => x - y));
    } finally {
      await client.close();
    }
  });

  it('the v2 client at 2026-07-28 hears progress during an import (add_leads_batch)', async () => {
    const client = new ClientV2({ name: 'progress-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new HttpV2(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    try {
      const seen: { progress: number; total?: number | undefined }[] = [];
      const result = await client.callTool({ name: 'add_leads_batch', arguments: batch('v2') }, { onprogress: (p) => seen.push(p) });
      expect(result.isError).not.toBe(true);
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen.at(-1)).toMatchObject({ progress: 30, total: 30 });
    } finally {
      await client.close();
    }
  });

  it('a call without a progress token hears none and answers as before', async () => {
    const client = await server.mcp();
    const result = await client.callTool({ name: 'add_leads_batch', arguments: batch('none') });
    expect(result.isError).not.toBe(true);
  });

  it('a key that is not the server’s opens no event stream', async () => {
    const res = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream', 'x-api-key': 'sk_test_nope_000000000000000000000000' } });
    expect(res.status).toBe(401);
  });
});

describe('live resources over stdio, changed by another process', () => {
  const { BIN, db, env, elsewhere } = stdioWorkspace('outreach-live-');

  /** Another process's draft, approved: what the CLI or a second server would write. */
  const approveElsewhere = (lead: string) => {
    const other = { ...testCtx({ workspace: null }), db: openDatabase(db) };
    try {
      const draft = draftFor(other, noteFor(lead));
      expect(updateDrafts(other, [{ id: draft.id, status: 'approved' }]).results[0]?.status).toBe('updated');
    } finally {
      other.db.$client.close();
    }
  };

  /** The child's stderr as it comes, and a wait for a line that holds some text. */
  const stderrOf = (transport: { stderr: import('node:stream').Stream | null }) => {
    let text = '';
    const waiters: { part: string; resolve: () => void }[] = [];
    transport.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      for (const w of waiters.filter((w) => text.includes(w.part))) w.resolve();
    });
    return {
      saying: (part: string) => (text.includes(part) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ part, resolve }))),
    };
  };

  const REVOKED_LINE = 'the API key no longer works';

  it('a 2025 connection whose key is revoked elsewhere hears nothing more, and its calls are refused', async () => {
    const { id, key } = elsewhere((ctx) => createApiKey(ctx, 'test', 'revoked over stdio, 2025'));
    const transport = new StdioV1({ command: process.execPath, args: [BIN, 'mcp', '--db', db], env: { ...env, OUTREACH_API_KEY: key }, stderr: 'pipe' });
    const stderr = stderrOf(transport);
    const client = new ClientV1({ name: 'live-stdio-revoked-v1', version: '1.0.0' });
    await client.connect(transport);
    // A client of a key that still works, on the same database, shows when the update went out.
    const control = new ClientV1({ name: 'live-stdio-control', version: '1.0.0' });
    await control.connect(new StdioV1({ command: process.execPath, args: [BIN, 'mcp', '--db', db], env, stderr: 'pipe' }));
    try {
      const got = updates();
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => got.note(n.params.uri));
      await client.subscribeResource({ uri: campaignDraftsUri('cmp_review') });
      const heard = updates();
      control.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.note(n.params.uri));
      await control.subscribeResource({ uri: campaignDraftsUri('cmp_review') });

      elsewhere((ctx) => revokeApiKey(ctx, id));
      // The revocation alone ends the subscriptions, and the server says so on stderr.
      await stderr.saying(REVOKED_LINE);
      const controlHeard = heard.next(campaignDraftsUri('cmp_review'));
      approveElsewhere('lead_r2');
      await controlHeard;
      await client.ping(); // stdio keeps order: anything sent before this answer has arrived
      expect(got.seen).toEqual([]);

      const call = await client.callTool({ name: 'list_campaigns', arguments: {} });
      expect(call.isError).toBe(true);
      expect(JSON.parse((call.content as { text: string }[])[0]!.text).error.code).toBe('unauthorized');
      await expect(client.subscribeResource({ uri: DRAFTS_URI })).rejects.toThrow(/revoked/);
    } finally {
      await client.close();
      await control.close();
    }
  });

  it('a 2026-07-28 listen whose key is revoked elsewhere is ended by the server, and its calls are refused', async () => {
    const { id, key } = elsewhere((ctx) => createApiKey(ctx, 'test', 'revoked over stdio, 2026'));
    const transport = new StdioV2({ command: process.execPath, args: [BIN, 'mcp', '--db', db], env: { ...env, OUTREACH_API_KEY: key }, stderr: 'pipe' });
    const stderr = stderrOf(transport);
    const client = new ClientV2({ name: 'live-stdio-revoked-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const got = updates();
      client.setNotificationHandler('notifications/resources/updated', (n) => got.note(n.params.uri));
      const sub = await client.listen({ resourceSubscriptions: [campaignUri('cmp_review')] });
      elsewhere((ctx) => revokeApiKey(ctx, id));
      // Nothing else changes: the revocation alone ends the listen, from the server's side.
      expect(await sub.closed).toBe('remote');
      await stderr.saying(REVOKED_LINE);
      expect(got.seen).toEqual([]);
      await expect(client.listen({ resourceSubscriptions: [DRAFTS_URI] })).rejects.toThrow(/revoked/);
      const call = await client.callTool({ name: 'list_campaigns', arguments: {} });
      expect(call.isError).toBe(true);
      expect(JSON.parse((call.content as { text: string }[])[0]!.text).error.code).toBe('unauthorized');
    } finally {
      await client.close();
    }
  });

  it('the v1 client at 2025-11-25 hears of it on its subscription', async () => {
    const client = new ClientV1({ name: 'live-stdio-v1', version: '1.0.0' });
    await client.connect(new StdioV1({ command: process.execPath, args: [BIN, 'mcp', '--db', db], env, stderr: 'pipe' }));
    try {
      const got = updates();
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => got.note(n.params.uri));
      await client.subscribeResource({ uri: campaignDraftsUri('cmp_review') });
      const heard = got.next(campaignDraftsUri('cmp_review'));
      approveElsewhere('lead_r0');
      await heard;
      expect(got.seen).not.toContain(DRAFTS_URI);
    } finally {
      await client.close();
    }
  });

  it('the v2 client at 2026-07-28 hears of it on its listen stream', async () => {
    const client = new ClientV2({ name: 'live-stdio-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StdioV2({ command: process.execPath, args: [BIN, 'mcp', '--db', db], env, stderr: 'pipe' }));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const got = updates();
      client.setNotificationHandler('notifications/resources/updated', (n) => got.note(n.params.uri));
      const sub = await client.listen({ resourceSubscriptions: [campaignUri('cmp_review')] });
      const heard = got.next(campaignUri('cmp_review'));
      approveElsewhere('lead_r1');
      await heard;
      expect(got.seen).not.toContain(DRAFTS_URI);
      await sub.close();
    } finally {
      await client.close();
    }
  });
});
