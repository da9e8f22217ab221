import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/config.js';
import { ApiError } from '../../src/core/errors.js';
import { configuredTools } from '../../src/server.js';
import { defaultTools as tools, draftTools, manageTools, triageTools } from '../../src/tools/index.js';
import { parseSwitch, parseToolNames, selectTools } from '../../src/tools/select.js';
import { callTool, fixture, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

const readOnly = tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
const names = (list: readonly { name: string }[]) => list.map((t) => t.name);

describe('selectTools', () => {
  it('keeps registry order; include and readOnly combine', () => {
    expect(names(selectTools(tools, {}))).toEqual(names(tools));
    expect(names(selectTools(tools, { include: ['get_campaign', 'get_credits'] }))).toEqual(['get_credits', 'get_campaign']);
    expect(names(selectTools(tools, { readOnly: true }))).toEqual(readOnly);
    expect(names(selectTools(tools, { readOnly: false }))).toEqual(names(tools));
  });

  it('filters out write tools when readOnly is set', () => {
    const write = { ...tools[0]!, name: 'write_thing', annotations: { ...tools[0]!.annotations, readOnlyHint: false } };
    expect(names(selectTools([...tools, write], { readOnly: true }))).not.toContain('write_thing');
    expect(names(selectTools([...tools, write], {}))).toContain('write_thing');
  });

  it('an unknown name or an empty result is a validation_error naming the field', () => {
    const unknown = () => selectTools(tools, { include: ['get_credits', 'nope'] }, { include: 'tools', readOnly: 'readonly' });
    expect(unknown).toThrow(ApiError);
    expect(unknown).toThrow(/Unknown tool "nope" in tools/);
    try {
      unknown();
    } catch (err) {
      expect((err as ApiError).details.fields).toEqual(['tools']);
    }
    const write = { ...tools[0]!, name: 'write_thing', annotations: { ...tools[0]!.annotations, readOnlyHint: false } };
    expect(() => selectTools([write], { readOnly: true })).toThrow(/leaves no tool/);
  });

  it('parses lists and switches', () => {
    expect(parseToolNames(' a, b ,,c ')).toEqual(['a', 'b', 'c']);
    expect(['1', 'true', 'YES', 'on', ''].map(parseSwitch)).toEqual([true, true, true, true, true]);
    expect(['0', 'false', 'no', 'off'].map(parseSwitch)).toEqual([false, false, false, false]);
    expect(parseSwitch('maybe')).toBeUndefined();
  });
});

describe('configuredTools (config file and stdio variables)', () => {
  it('applies the config, then narrows by OUTREACH_TOOLS and OUTREACH_READONLY', () => {
    expect(names(configuredTools({ config: { tools: { include: ['get_credits', 'list_campaigns'] } } }))).toEqual(['get_credits', 'list_campaigns']);
    expect(names(configuredTools({ config: {} }, { OUTREACH_TOOLS: 'get_campaign' }))).toEqual(['get_campaign']);
    expect(names(configuredTools({ config: { tools: { readOnly: true } } }, { OUTREACH_READONLY: '1' }))).toEqual(readOnly);
  });

  it('a variable cannot widen the config set', () => {
    expect(() => configuredTools({ config: { tools: { include: ['get_credits'] } } }, { OUTREACH_TOOLS: 'list_campaigns' })).toThrow(
      /Unknown tool "list_campaigns" in OUTREACH_TOOLS/,
    );
  });

  it('bad selections are usage errors naming their source', () => {
    expect(() => configuredTools({ config: { tools: { include: ['nope'] } } })).toThrow(UsageError);
    expect(() => configuredTools({ config: { tools: { include: ['nope'] } } })).toThrow(/--config: Unknown tool "nope" in tools.include/);
    expect(() => configuredTools({ config: {} }, { OUTREACH_READONLY: 'maybe' })).toThrow(/OUTREACH_READONLY: "maybe"/);
  });
});

describe('MCP over HTTP: ?tools= and ?readonly=', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  async function client(query: string): Promise<Client> {
    const c = new Client({ name: 'select-test', version: '1.0.0' });
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    return c;
  }

  it('serves only the named tools, and refuses calls to the others', async () => {
    const c = await client('?tools=get_credits,get_campaign');
    expect(names((await c.listTools()).tools)).toEqual(['get_credits', 'get_campaign']);
    expect((await callTool(c, 'get_credits')).isError).toBe(false);
    const other = await callTool(c, 'list_campaigns');
    expect(other.isError).toBe(true);
    expect(other.body.error.code).toBe('not_found');
    await c.close();
  });

  it('serves only read-only tools with readonly=1', async () => {
    const c = await client('?readonly=1');
    expect(names((await c.listTools()).tools)).toEqual(readOnly);
    await c.close();
  });

  it('an unknown tool name is HTTP 400 validation_error naming the parameter', async () => {
    const res = await fetch(`${server.url}/mcp?tools=get_credits,nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'X-API-Key': TEST_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details.fields).toEqual(['tools']);
    const bad = await fetch(`${server.url}/mcp?readonly=maybe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'X-API-Key': TEST_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(((await bad.json()) as any).error.details.fields).toEqual(['readonly']);
  });

  it('the key is checked before the selection: a bad key is still 401', async () => {
    const res = await fetch(`${server.url}/mcp?tools=nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
  });
});

describe('MCP over stdio: OUTREACH_TOOLS', () => {
  const bin = fileURLToPath(new URL('../../bin/outreach.js', import.meta.url));
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'select-stdio-'));
    writeFileSync(join(dir, 'ws.json'), JSON.stringify(fixture()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const p = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('close', (code) => resolve({ code, stderr }));
    });

  it('serves the named tools only', async () => {
    const db = join(dir, 'a.db');
    expect((await run(['seed', '--file', join(dir, 'ws.json'), '--db', db], {})).code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', '--db', db],
      env: { ...(process.env as Record<string, string>), OUTREACH_API_KEY: TEST_KEY, OUTREACH_TOOLS: 'list_campaigns', LOG_LEVEL: 'warn' },
      stderr: 'pipe',
    });
    const c = new Client({ name: 'stdio-select', version: '1.0.0' });
    await c.connect(transport);
    expect(names((await c.listTools()).tools)).toEqual(['list_campaigns']);
    await c.close();
  });

  it('an unknown name stops the command with a usage error', async () => {
    const r = await run(['mcp', '--db', join(dir, 'b.db')], { OUTREACH_API_KEY: TEST_KEY, OUTREACH_TOOLS: 'nope' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Unknown tool "nope" in OUTREACH_TOOLS/);
  });
});

describe('the manage toolset', () => {
  // `manage` includes the drafts toolset.
  const manage = [...names(manageTools), ...names(draftTools)];
  const all = [...names(tools), ...manage];
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const list = async (path: string): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'X-API-Key': TEST_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    return { status: res.status, body: await res.json() };
  };
  const listed = (r: { body: any }) => (r.body.result.tools as { name: string }[]).map((t) => t.name);

  it('is off by default and on with ?toolsets=manage, on /mcp and on /', async () => {
    expect(listed(await list('/mcp'))).toEqual(names(tools));
    expect(listed(await list('/mcp?toolsets=manage'))).toEqual(all);
    expect(listed(await list('/?toolsets=manage'))).toEqual(all);
  });

  it('an unknown toolset is 400 validation_error naming toolsets', async () => {
    const r = await list('/mcp?toolsets=manage,bogus');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details.fields).toEqual(['toolsets']);
  });

  it('readonly keeps the read-only tools of the set; tools= may name manage tools without the toolset', async () => {
    const ro = listed(await list('/mcp?toolsets=manage&readonly=1'));
    expect(ro).toEqual([...readOnly, 'list_agents', 'get_agent', 'preview_agent', 'get_agent_stats', 'list_mailboxes', 'list_drafts']);
    // `readonly` may also be named among the toolsets: the same switch, not a toolset.
    expect(listed(await list('/mcp?toolsets=manage,readonly'))).toEqual(ro);
    expect(listed(await list('/mcp?toolsets=readonly'))).toEqual(readOnly);
    expect(listed(await list('/mcp?toolsets=readonly&readonly=0'))).toEqual(readOnly);
    expect(listed(await list('/mcp?tools=create_agent,get_credits'))).toEqual(['get_credits', 'create_agent']);
  });

  it('the config and OUTREACH_TOOLSETS turn it on; a bad name is a usage error naming its source', () => {
    expect(names(configuredTools({ config: { tools: { toolsets: ['manage'] } } }))).toEqual(all);
    expect(names(configuredTools({ config: {} }, { OUTREACH_TOOLSETS: 'manage' }))).toEqual(all);
    expect(names(configuredTools({ config: {} }))).toEqual(names(tools));
    expect(() => configuredTools({ config: { tools: { toolsets: ['nope'] } } })).toThrow(/--config: Unknown toolset "nope" in tools.toolsets/);
    expect(() => configuredTools({ config: {} }, { OUTREACH_TOOLSETS: 'nope' })).toThrow(/Unknown toolset "nope" in OUTREACH_TOOLSETS/);
    // `readonly` named among the toolsets is the read-only switch, in the config and the environment.
    const readOnlyManage = [...readOnly, 'list_agents', 'get_agent', 'preview_agent', 'get_agent_stats', 'list_mailboxes', 'list_drafts'];
    expect(names(configuredTools({ config: {} }, { OUTREACH_TOOLSETS: 'manage,readonly' }))).toEqual(readOnlyManage);
    expect(names(configuredTools({ config: { tools: { toolsets: ['readonly'] } } }, { OUTREACH_TOOLSETS: 'manage' }))).toEqual(readOnlyManage);
    // The config's read-only switch holds for toolset tools too.
    expect(names(configuredTools({ config: { tools: { readOnly: true } } }, { OUTREACH_TOOLSETS: 'manage' }))).toEqual([
      ...readOnly,
      'list_agents',
      'get_agent',
      'preview_agent',
      'get_agent_stats',
      'list_mailboxes',
      'list_drafts',
    ]);
  });

  it('?toolsets=drafts (or OUTREACH_TOOLSETS=drafts) adds the two draft tools alone', async () => {
    expect(names(draftTools)).toEqual(['list_drafts', 'update_drafts']);
    expect(listed(await list('/mcp?toolsets=drafts'))).toEqual([...names(tools), 'list_drafts', 'update_drafts']);
    expect(listed(await list('/mcp?toolsets=drafts,manage'))).toEqual(all);
    expect(names(configuredTools({ config: {} }, { OUTREACH_TOOLSETS: 'drafts' }))).toEqual([...names(tools), 'list_drafts', 'update_drafts']);
    expect(names(configuredTools({ config: { tools: { toolsets: ['drafts'] } } }))).toEqual([...names(tools), 'list_drafts', 'update_drafts']);
  });

  it('?toolsets=triage adds the inbox and suggest_tag alone', async () => {
    expect(names(triageTools)).toEqual(['list_conversations', 'get_conversation', 'suggest_tag']);
    expect(listed(await list('/mcp?toolsets=triage'))).toEqual([...names(tools), 'list_conversations', 'get_conversation', 'suggest_tag']);
    expect(listed(await list('/mcp?toolsets=triage&readonly=1'))).toEqual([...readOnly, 'list_conversations', 'get_conversation']);
    // manage does not include it: asked for beside manage, it comes after.
    expect(listed(await list('/mcp?toolsets=manage'))).not.toContain('suggest_tag');
    expect(listed(await list('/mcp?toolsets=manage,triage'))).toEqual([...all, 'list_conversations', 'get_conversation', 'suggest_tag']);
  });
});
