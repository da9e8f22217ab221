import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/auth/keys.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

/**
 * Streamable HTTP as the SDK serves it, both eras on one endpoint: the HTTP-level answers
 * (statuses, errors, batches), the 2026-07-28 rules (server/discover, the `_meta` envelope and
 * its headers, resultType, server identity, cache hints, the revision's error codes), and
 * requests that share a JSON-RPC id kept apart.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ limits: RELAXED_LIMITS });
});
afterAll(() => server.close());

type Headers = Record<string, string | string[]>;
const LEGACY: Headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY };

interface Reply {
  status: number;
  json: any;
}

/** A POST over node:http, so a header may repeat (an array value). */
function post(path: string, body: unknown, headers: Headers = LEGACY): Promise<Reply> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method: 'POST', path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

const call = (id: unknown, name: string, args?: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('2025-era requests', () => {
  it.each<[string, unknown, Headers | undefined, number]>([
    ['a batch', [call(1, 'get_credits', {}), { jsonrpc: '2.0', id: 2, method: 'ping' }], undefined, 200],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, undefined, 202],
    ['a response', { jsonrpc: '2.0', id: 1, result: {} }, undefined, 202],
    ['an unknown top-level member', { ...call(1, 'get_credits', {}), extra: true }, undefined, 400],
    ['a fractional id', call(1.5, 'get_credits', {}), undefined, 400],
    ['params that are not an object', { jsonrpc: '2.0', id: 1, method: 'ping', params: 5 }, undefined, 400],
    ['a JSON scalar', 5, undefined, 400],
    ['an unsupported MCP-Protocol-Version', call(1, 'get_credits', {}), { ...LEGACY, 'mcp-protocol-version': '1999-01-01' }, 400],
    ['Accept without text/event-stream', call(1, 'get_credits', {}), { ...LEGACY, accept: 'application/json' }, 406],
    ['no Accept', call(1, 'get_credits', {}), { 'content-type': 'application/json', 'x-api-key': TEST_KEY }, 406],
  ])('%s', async (_name, body, headers, status) => {
    expect((await post('/mcp', body, headers)).status).toBe(status);
  });

  it('answers initialize with the version asked for, or the newest 2025 one, and advertises the Apps extension', async () => {
    const init = (protocolVersion: string) =>
      post('/mcp', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const asked = await init('2025-06-18');
    expect(asked.json.result.protocolVersion).toBe('2025-06-18');
    expect(asked.json.result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } });
    expect(asked.json.result.capabilities.prompts).toBeDefined();
    expect((await init('1999-01-01')).json.result.protocolVersion).toBe('2025-11-25');
  });

  it('keeps the 2025 answers: no resultType, an unknown tool as an isError not_found, no tasks', async () => {
    const ok = await post('/mcp', call(1, 'get_credits', {}));
    expect(ok.json.result.resultType).toBeUndefined();
    expect(ok.json.result.structuredContent.credits).toBe(100);
    const unknown = await post('/mcp', call(2, 'no_such_tool', {}));
    expect(JSON.parse(unknown.json.result.content[0].text).error.code).toBe('not_found');
    const tasks = await post('/mcp', { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId: 'task_x' } });
    // Tasks are the 2026-07-28 extension: no 2025 request reaches them (the SDK refuses tasks/*).
    expect(tasks.json.result).toBeUndefined();
    expect([-32601, -32021]).toContain(tasks.json.error.code);
  });

  it('keeps concurrent requests that share a JSON-RPC id apart', async () => {
    const asks = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? { query: '?tools=get_credits', body: call(1, 'get_campaign', { campaignId: 'cmp_q4' }), expect: 'not_found' }
        : i % 3 === 1
          ? { query: '', body: call(1, 'get_campaign', { campaignId: 'cmp_q4' }), expect: 'cmp_q4' }
          : { query: '?readonly=1', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, expect: 'list' },
    );
    const replies = await Promise.all(asks.map((a) => post(`/mcp${a.query}`, a.body)));
    replies.forEach((r, i) => {
      const m = r.json;
      expect(m.id).toBe(1);
      const want = asks[i]!.expect;
      if (want === 'list') expect(m.result.tools.every((t: any) => t.annotations.readOnlyHint)).toBe(true);
      else if (want === 'not_found') expect(JSON.parse(m.result.content[0].text).error.code).toBe('not_found');
      else expect(m.result.structuredContent.id).toBe('cmp_q4');
    });
  });
});

describe('2026-07-28 requests', () => {
  const META_KEYS = {
    protocolVersion: 'io.modelcontextprotocol/protocolVersion',
    clientInfo: 'io.modelcontextprotocol/clientInfo',
    clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  };
  const meta = (caps: Record<string, unknown> = {}, version = '2026-07-28') => ({
    [META_KEYS.protocolVersion]: version,
    [META_KEYS.clientInfo]: { name: 'http-test', version: '1' },
    [META_KEYS.clientCapabilities]: caps,
  });
  /** The request with the revision's standard headers (SEP-2243), as its clients send them. */
  const rpc = (method: string, params: Record<string, unknown>, headers: Headers = {}, id: string | number = 1) => {
    const name = (params.name ?? params.uri ?? params.taskId) as string | undefined;
    return post(
      '/mcp',
      { jsonrpc: '2.0', id, method, params },
      { ...LEGACY, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}), ...headers },
    );
  };
  const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

  it('answers server/discover with the versions, capabilities, extensions and identity, and cache hints', async () => {
    const r = await rpc('server/discover', { _meta: meta() });
    expect(r.status).toBe(200);
    const result = r.json.result;
    expect(result.resultType).toBe('complete');
    expect(result.supportedVersions).toContain('2026-07-28');
    expect(Object.keys(result.capabilities).sort()).toEqual(['completions', 'extensions', 'prompts', 'resources', 'tools']);
    expect(Object.keys(result.capabilities.extensions).sort()).toEqual(['io.modelcontextprotocol/tasks', 'io.modelcontextprotocol/ui']);
    expect(result._meta[SERVER_INFO]).toMatchObject({ name: 'outreach-mcp' });
    expect(result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    expect(result.instructions).toContain('start_outreach');
  });

  it('marks every result complete, names the server, and gives lists and views their cache hints', async () => {
    // What follows the caller's key (a scoped key lists fewer tools and views) is private to
    // its client; what is the same for everyone may sit in a shared cache.
    for (const [method, params, cacheScope] of [
      ['tools/list', {}, 'private'],
      ['prompts/list', {}, 'public'],
      ['resources/list', {}, 'private'],
      ['resources/templates/list', {}, 'public'],
      ['resources/read', { uri: 'ui://outreach/campaigns.html' }, 'private'],
    ] as const) {
      const r = await rpc(method, { ...params, _meta: meta() });
      expect(r.json.result.resultType, method).toBe('complete');
      expect(r.json.result._meta[SERVER_INFO].name, method).toBe('outreach-mcp');
      expect(r.json.result, method).toMatchObject({ ttlMs: 300_000, cacheScope });
    }
    const called = await rpc('tools/call', { name: 'get_credits', arguments: {}, _meta: meta() });
    expect(called.json.result).toMatchObject({ resultType: 'complete', structuredContent: { credits: 100 } });
    expect(called.json.result.ttlMs).toBeUndefined();
  });

  it('links views only for a client that declares the Apps extension', async () => {
    const linked = (tools: any[]) => tools.filter((t) => t._meta?.ui?.resourceUri).map((t) => t.name);
    const plain = await rpc('tools/list', { _meta: meta() });
    expect(linked(plain.json.result.tools)).toEqual([]);
    const host = await rpc('tools/list', { _meta: meta({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } }) });
    expect(linked(host.json.result.tools).sort()).toEqual(['get_campaign', 'get_insights_overview', 'get_recent_activity', 'list_campaigns', 'list_leads']);
  });

  it('keeps concurrent requests apart by their own capabilities, tool selection and id', async () => {
    const views = meta({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } });
    const modern = { ...LEGACY, 'mcp-protocol-version': '2026-07-28' };
    const asks = Array.from({ length: 40 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return { path: '/mcp', method: 'tools/list', params: { _meta: views }, expect: 'views' };
        case 1:
          return { path: '/mcp', method: 'tools/list', params: { _meta: meta() }, expect: 'plain' };
        case 2:
          return {
            path: '/mcp?tools=get_credits',
            method: 'tools/call',
            params: { name: 'get_campaign', arguments: { campaignId: 'cmp_q4' }, _meta: meta() },
            expect: 'unknown',
          };
        default:
          return { path: '/mcp', method: 'tools/call', params: { name: 'get_campaign', arguments: { campaignId: 'cmp_q4' }, _meta: meta() }, expect: 'cmp_q4' };
      }
    });
    const replies = await Promise.all(
      asks.map((a) =>
        post(
          `${a.path}`,
          { jsonrpc: '2.0', id: 7, method: a.method, params: a.params },
          { ...modern, 'mcp-method': a.method, ...(a.params.name ? { 'mcp-name': a.params.name } : {}) },
        ),
      ),
    );
    replies.forEach((r, i) => {
      const m = r.json;
      expect(m.id).toBe(7);
      const want = asks[i]!.expect;
      if (want === 'unknown') return expect([r.status, m.error.code]).toEqual([200, -32602]);
      expect(r.status).toBe(200);
      expect(m.result.resultType).toBe('complete');
      if (want === 'cmp_q4') return expect(m.result.structuredContent.id).toBe('cmp_q4');
      const linked = m.result.tools.filter((t: any) => t._meta?.ui?.resourceUri).length;
      if (want === 'views') expect(linked).toBeGreaterThan(0);
      else expect(linked).toBe(0);
    });
  });

  it('follows the revision for an unknown tool, a malformed call, and invalid arguments', async () => {
    const unknown = await rpc('tools/call', { name: 'no_such_tool', arguments: {}, _meta: meta() });
    expect(unknown.json.error.code).toBe(-32602);
    expect(unknown.json.error.message).toContain('no_such_tool');
    // A request that fails the CallToolRequest schema is a protocol error too.
    const malformed = await rpc('tools/call', { name: 'get_credits', arguments: [], _meta: meta() });
    expect(malformed.json.error.code).toBe(-32602);
    // Arguments the tool refuses are a tool execution error the model can correct.
    const invalid = await rpc('tools/call', { name: 'list_accounts', arguments: { limit: '5' }, _meta: meta() });
    expect(invalid.json.result.isError).toBe(true);
    expect(JSON.parse(invalid.json.result.content[0].text).error).toMatchObject({ code: 'validation_error', details: { fields: ['limit'] } });
    const noView = await rpc('resources/read', { uri: 'ui://outreach/nope.html', _meta: meta() });
    expect(noView.json.error).toMatchObject({ code: -32602, data: { uri: 'ui://outreach/nope.html' } });
  });

  it('refuses a missing envelope, an unsupported version, headers that disagree, and removed methods', async () => {
    const missing = await rpc('server/discover', {}, {}, 101);
    expect([missing.status, missing.json.error.code, missing.json.id]).toEqual([400, -32602, 101]);
    const version = await rpc('server/discover', { _meta: meta({}, '2099-01-01') }, { 'mcp-protocol-version': '2099-01-01' }, 102);
    expect([version.status, version.json.error.code]).toEqual([400, -32022]);
    expect(version.json.error.data.supported).toContain('2026-07-28');
    const mismatch = await rpc('tools/call', { name: 'get_credits', arguments: {}, _meta: meta() }, { 'mcp-name': 'list_accounts' }, 103);
    expect([mismatch.status, mismatch.json.error.code]).toEqual([400, -32020]);
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'tasks/list', 'tasks/result']) {
      const removed = await rpc(method, { _meta: meta() }, {}, 104);
      expect([removed.status, removed.json.error.code], method).toEqual([404, -32601]);
    }
  });

  it('runs a task-supporting tool as a task for a client with the Tasks extension, and only then', async () => {
    const withTasks = meta({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
    const args = { accountId: 'acc_ada', keywords: 'engineer' };
    const plain = await rpc('tools/call', { name: 'search_linkedin', arguments: args, _meta: meta() });
    expect(plain.json.result.resultType).toBe('complete');

    const created = await rpc('tools/call', { name: 'search_linkedin', arguments: args, _meta: withTasks });
    const task = created.json.result;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 86_400_000, pollIntervalMs: 2000 });
    expect(task.taskId).toMatch(/^task_/);
    expect(task.requestState).toBeUndefined();

    let detail: any;
    await expect
      .poll(
        async () => {
          detail = (await rpc('tasks/get', { taskId: task.taskId, _meta: withTasks })).json.result;
          return detail.status;
        },
        { timeout: 15_000 },
      )
      .toBe('completed');
    expect(detail.resultType).toBe('complete');
    expect(detail.result.structuredContent).toEqual(plain.json.result.structuredContent);

    const cancelled = await rpc('tasks/cancel', { taskId: task.taskId, _meta: withTasks });
    expect(cancelled.json.result).toMatchObject({ resultType: 'complete' });
    const unknown = await rpc('tasks/get', { taskId: 'task_nope', _meta: withTasks });
    expect(unknown.json.error.code).toBe(-32602);
    const undeclared = await rpc('tasks/get', { taskId: task.taskId, _meta: meta() });
    expect(undeclared.json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
    // Another key of the workspace does not see the task.
    const { key: otherKey } = createApiKey(server.ctx, 'test', 'another');
    const other = await rpc('tasks/get', { taskId: task.taskId, _meta: withTasks }, { 'x-api-key': otherKey });
    expect([other.status, other.json.error?.code]).toEqual([200, -32602]);
  });

  it('asks to confirm a start as an input_required round, and starts on the retry with the answer', async () => {
    const caps = meta({ elicitation: {} });
    const first = await rpc('tools/call', { name: 'start_campaign', arguments: { campaignId: 'cmp_paused' }, _meta: caps });
    const round = first.json.result;
    expect(round.resultType).toBe('input_required');
    expect(round.inputRequests.confirm).toMatchObject({ method: 'elicitation/create', params: { mode: 'form' } });
    expect(round.inputRequests.confirm.params.message).toMatch(
      /^Resume campaign "Paused"\? It will send connection requests and messages from Ada to its \d+ leads?\.$/,
    );
    expect(typeof round.requestState).toBe('string');

    // An answer without the state it belongs to is asked again, not taken.
    const stray = await rpc('tools/call', {
      name: 'start_campaign',
      arguments: { campaignId: 'cmp_paused' },
      inputResponses: { confirm: { action: 'accept', content: {} } },
      _meta: caps,
    });
    expect(stray.json.result.resultType).toBe('input_required');

    // The state is sealed to the key that was asked: another key of the workspace cannot use it.
    const { key: otherKey } = createApiKey(server.ctx, 'test', 'borrower');
    const borrowed = await rpc(
      'tools/call',
      {
        name: 'start_campaign',
        arguments: { campaignId: 'cmp_paused' },
        inputResponses: { confirm: { action: 'accept', content: {} } },
        requestState: round.requestState,
        _meta: caps,
      },
      { 'x-api-key': otherKey },
    );
    expect(borrowed.json.error).toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } });

    const retried = await rpc('tools/call', {
      name: 'start_campaign',
      arguments: { campaignId: 'cmp_paused' },
      inputResponses: { confirm: { action: 'accept', content: {} } },
      requestState: round.requestState,
      _meta: caps,
    });
    expect(retried.json.result.structuredContent).toMatchObject({ action: 'resumed', status: 'CAMPAIGN_IN_PROGRESS' });

    // The state answers for that call only: other arguments are asked again.
    const elsewhere = await rpc('tools/call', {
      name: 'start_campaign',
      arguments: { campaignId: 'cmp_q4' },
      inputResponses: { confirm: { action: 'accept', content: {} } },
      requestState: round.requestState,
      _meta: caps,
    });
    expect(elsewhere.json.result.resultType).toBe('input_required');
  });

  it('sends once for one confirmation: the same answer sent again replays the first message', async () => {
    const caps = meta({ elicitation: {} });
    const args = { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'One yes, one message' };
    const ask = async () => (await rpc('tools/call', { name: 'send_message', arguments: args, _meta: caps })).json.result;
    const answer = async (requestState: string) =>
      (
        await rpc('tools/call', {
          name: 'send_message',
          arguments: args,
          inputResponses: { confirm: { action: 'accept', content: {} } },
          requestState,
          _meta: caps,
        })
      ).json.result;
    const round = await ask();
    expect(round.resultType).toBe('input_required');
    const sent = await answer(round.requestState);
    expect(sent.structuredContent).toMatchObject({ ok: true });
    // A retry of the same answer (its response was lost) is the first call's answer, not a second message.
    const again = await answer(round.requestState);
    expect(again.structuredContent).toEqual(sent.structuredContent);
    // A new question, answered, is a new message.
    const second = await answer((await ask()).requestState);
    expect(second.structuredContent.messageId).not.toBe(sent.structuredContent.messageId);
    const thread = await server.rest('/conversations/lead_ada1');
    const texts = JSON.stringify(thread.body).split('One yes, one message').length - 1;
    expect(texts).toBe(2);
  });
});
