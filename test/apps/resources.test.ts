import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getToolUiResourceUri as uiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import * as extApps from '@modelcontextprotocol/ext-apps';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { VIEW_BYTES } from '../../bench/lib/report.js';
import { APP_VIEWS, OFFERED_TOOLS_META } from '../../src/mcp/apps.js';
import { fixture, RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

/**
 * The views on the protocol: every linked tool's resourceUri resolves through resources/read to
 * one HTML document with the extension's MIME type and a CSP that asks for no network, over
 * both transports, and a narrowed tool set narrows the views and tells them what they may call.
 */

/**
 * The extension's own zod schemas for the tool and resource ui meta. Its type declarations
 * re-export them through an extensionless path that NodeNext resolution does not follow, so
 * they are typed here; at run time they are the package's exports.
 */
const { McpUiResourceMetaSchema, McpUiToolMetaSchema } = extApps as unknown as {
  McpUiResourceMetaSchema: z.ZodType<{ csp?: Record<string, string[]> }>;
  McpUiToolMetaSchema: z.ZodType<{ resourceUri?: string }>;
};

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

const offeredIn = (html: string): string[] | null => {
  const m = new RegExp(`<meta name="${OFFERED_TOOLS_META}" content="([^"]*)">`).exec(html);
  return m ? (m[1] === '' ? [] : m[1]!.split(',')) : null;
};

/** ext-apps 2 types its helper with the v2 SDK's Tool; these clients are the v1 SDK's (the same wire shape). */
const getToolUiResourceUri = (tool: object) => uiResourceUri(tool as Parameters<typeof uiResourceUri>[0]);

/** The checks every transport must pass, on a client connected with the full tool set (the drafts toolset included). */
async function checkViews(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  // The views, beside the live resources (test/mcp/live.test.ts).
  const resources = (await client.listResources()).resources.filter((r) => r.uri.startsWith('ui://'));
  expect(resources.map((r) => r.uri).sort()).toEqual(APP_VIEWS.map((v) => v.uri).sort());
  for (const r of resources) {
    expect(r.mimeType).toBe(RESOURCE_MIME_TYPE);
    expect(McpUiResourceMetaSchema.parse((r._meta as { ui: unknown }).ui).csp).toEqual({
      connectDomains: [],
      resourceDomains: [],
      frameDomains: [],
      baseUriDomains: [],
    });
  }

  const linked = tools.filter((t) => getToolUiResourceUri(t) !== undefined);
  expect(linked.map((t) => t.name).sort()).toEqual([
    'get_campaign',
    'get_insights_overview',
    'get_recent_activity',
    'list_campaigns',
    'list_drafts',
    'list_leads',
  ]);
  for (const tool of linked) {
    const uri = getToolUiResourceUri(tool)!;
    const meta = tool._meta as Record<string, unknown>;
    // The extension's schema for the tool's ui meta, and the legacy flat key kept alongside.
    expect(McpUiToolMetaSchema.parse(meta.ui).resourceUri).toBe(uri);
    expect(meta[RESOURCE_URI_META_KEY]).toBe(uri);
    const read = await client.readResource({ uri });
    expect(read.contents).toHaveLength(1);
    const content = read.contents[0]!;
    expect(content.uri).toBe(uri);
    expect(content.mimeType).toBe(RESOURCE_MIME_TYPE);
    const html = 'text' in content ? content.text : '';
    expect(html.startsWith('<!doctype html>')).toBe(true);
    // Self-contained: no script, style sheet or image from anywhere; the bundle is inline.
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=/i);
    expect(html).toMatch(/<script type="module"[^>]*>[\s\S]{1000,}<\/script>/);
    // The size budget bench reports (bench/METHOD.md), held here on every run too.
    expect(Buffer.byteLength(html), uri).toBeLessThan(VIEW_BYTES);
    const ui = McpUiResourceMetaSchema.parse((content._meta as { ui: unknown }).ui);
    expect(ui.csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
    const view = APP_VIEWS.find((v) => v.uri === uri)!;
    // Every action the connection lists: the campaigns view's agent lookups only with the manage toolset.
    expect(offeredIn(html)).toEqual(view.actions.filter((a) => tools.some((t) => t.name === a)));
  }
  // -32602 with the URI on every revision, as the SDK answers a missing resource.
  await expect(client.readResource({ uri: 'ui://outreach/nope.html' })).rejects.toMatchObject({
    code: -32602,
    message: expect.stringMatching(/No resource ui:\/\/outreach\/nope\.html/),
    data: { uri: 'ui://outreach/nope.html' },
  });
}

describe('MCP App views over streamable HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
  });
  afterAll(() => server.close());

  const connect = async (query = '') => {
    const client = new Client({ name: 'apps-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    return client;
  };

  it('declares resources, lists and reads every linked view', async () => {
    const client = await connect('?toolsets=drafts');
    try {
      expect(client.getServerCapabilities()?.resources).toBeDefined();
      await checkViews(client);
    } finally {
      await client.close();
    }
  });

  it('lists the drafts view only where list_drafts is offered', async () => {
    const client = await connect();
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).not.toContain('ui://outreach/drafts.html');
      await expect(client.readResource({ uri: 'ui://outreach/drafts.html' })).rejects.toThrow(/No resource/);
    } finally {
      await client.close();
    }
  });

  it('toolsets=manage also offers the campaigns view the agents and their stats, so its cards name them and count each step', async () => {
    const client = await connect('?toolsets=manage');
    try {
      const content = (await client.readResource({ uri: 'ui://outreach/campaigns.html' })).contents[0]!;
      expect(offeredIn('text' in content ? content.text : '')).toEqual([
        'start_campaign',
        'pause_campaign',
        'get_campaign',
        'list_campaigns',
        'list_agents',
        'get_agent',
        'get_agent_stats',
      ]);
    } finally {
      await client.close();
    }
  });

  it('readonly=1 keeps the views but tells them their write tools are not offered', async () => {
    const client = await connect('?readonly=1');
    try {
      const read = async (name: string) => {
        const content = (await client.readResource({ uri: `ui://outreach/${name}.html` })).contents[0]!;
        return offeredIn('text' in content ? content.text : '');
      };
      expect(await read('campaigns')).toEqual(['get_campaign', 'list_campaigns']);
      expect(await read('leads')).toEqual(['list_leads']);
      expect(await read('activity')).toEqual(['get_recent_activity']);
    } finally {
      await client.close();
    }
  });

  it('tools= lists only the views of the offered tools, and refuses the others', async () => {
    const client = await connect('?tools=get_credits,list_leads,update_lead');
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri).filter((u) => u.startsWith('ui://'))).toEqual(['ui://outreach/leads.html']);
      const content = (await client.readResource({ uri: 'ui://outreach/leads.html' })).contents[0]!;
      expect(offeredIn('text' in content ? content.text : '')).toEqual(['update_lead', 'list_leads']);
      await expect(client.readResource({ uri: 'ui://outreach/campaigns.html' })).rejects.toThrow(/No resource/);
    } finally {
      await client.close();
    }
  });

  it('still asks for the key before any resource', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'ui://outreach/leads.html' } }),
    });
    expect(res.status).toBe(401);
  });
});

describe('MCP App views over stdio', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-apps-stdio-'));
  const db = join(dir, 'o.db');
  beforeAll(() => {
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(fixture()));
    execFileSync(process.execPath, [BIN, 'seed', '--file', file, '--db', db]);
  });

  const connect = async (env: Record<string, string> = {}) => {
    const client = new Client({ name: 'apps-stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--db', db],
        env: { ...(process.env as Record<string, string>), OUTREACH_API_KEY: TEST_KEY, OUTREACH_ENV: '', ...env },
        stderr: 'pipe',
      }),
    );
    return client;
  };

  it('lists and reads every linked view', async () => {
    const client = await connect({ OUTREACH_TOOLSETS: 'drafts' });
    try {
      await checkViews(client);
    } finally {
      await client.close();
    }
  });

  it('OUTREACH_READONLY=1 tells the campaigns view that Start and Pause are not offered', async () => {
    const client = await connect({ OUTREACH_READONLY: '1' });
    try {
      const content = (await client.readResource({ uri: 'ui://outreach/campaigns.html' })).contents[0]!;
      expect(offeredIn('text' in content ? content.text : '')).toEqual(['get_campaign', 'list_campaigns']);
    } finally {
      await client.close();
    }
  });
});
