import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeAccountIds } from '../../src/core/accounts/complete.js';
import { completeAgentIds } from '../../src/core/agents/complete.js';
import { completeCampaignIds } from '../../src/core/campaigns/complete.js';
import { draftFor } from '../../src/core/drafts/prepare.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { noteFor, reviewWorkspace } from '../drafts/helpers.js';
import { fixture, startTestServer, TEST_KEY, testCtx, type TestServer } from '../helpers.js';

/**
 * completion/complete: the arguments of prompts and resource templates that name a campaign,
 * an agent or an account complete from the workspace's own rows, by id prefix and by name.
 */

/** The review workspace (cmp_review holds drafts) with `extraAgents` more agents named "Bulk agent n". */
function workspace(extraAgents = 0): WorkspaceFileInput {
  const ws = reviewWorkspace(2) as any;
  const [intro] = ws.agents;
  for (let i = 0; i < extraAgents; i++) ws.agents.push({ ...intro, id: `tpl_bulk${String(i).padStart(3, '0')}`, name: `Bulk agent ${i}` });
  return ws as WorkspaceFileInput;
}

describe('the core completion reads', () => {
  const ctx = testCtx({ workspace: workspace(120) });
  draftFor(ctx, noteFor('lead_r0'));

  it('match a campaign by id prefix, then names starting with the text, then names containing it, regardless of case', () => {
    expect(completeCampaignIds(ctx, 'cmp_r')).toEqual({ values: ['cmp_review', 'cmp_running'], total: 2, hasMore: false });
    expect(completeCampaignIds(ctx, 'RUN').values).toEqual(['cmp_running']);
    // "Importing" and "Running" contain "in"; none starts with it.
    expect(completeCampaignIds(ctx, 'in').values).toEqual(['cmp_import', 'cmp_running']);
    // cmp_q4 by its name Q4, typed in lower case.
    expect(completeCampaignIds(ctx, 'q4').values).toEqual(['cmp_q4']);
    expect(completeCampaignIds(ctx, 'zzz')).toEqual({ values: [], total: 0, hasMore: false });
  });

  it('offer every row, by name, when nothing is typed', () => {
    const all = completeCampaignIds(ctx, '');
    expect(all.total).toBe(8);
    expect(all.values[0]).toBe('cmp_done');
    expect(all.values).toContain('cmp_review');
  });

  it('take what was typed literally: % and _ are not wildcards', () => {
    expect(completeCampaignIds(ctx, '%').total).toBe(0);
    expect(completeCampaignIds(ctx, 'cmp%').total).toBe(0);
    expect(completeCampaignIds(ctx, 'cmp_').total).toBe(8);
    expect(completeCampaignIds(ctx, 'cmpX').total).toBe(0);
  });

  it('answer at most 100 values and say how many matched', () => {
    const bulk = completeAgentIds(ctx, 'bulk');
    expect(bulk.values).toHaveLength(100);
    expect(bulk).toMatchObject({ total: 120, hasMore: true });
    expect(completeAgentIds(ctx, 'int').values).toEqual(['tpl_intro']);
  });

  it('complete accounts by name, and only campaigns with pending drafts when asked', () => {
    expect(completeAccountIds(ctx, 'nav').values).toEqual(['acc_nav']);
    expect(completeAccountIds(ctx, 'acc_').total).toBe(3);
    expect(completeCampaignIds(ctx, '', { withPendingDrafts: true })).toEqual({ values: ['cmp_review'], total: 1, hasMore: false });
    expect(completeCampaignIds(ctx, 'q4', { withPendingDrafts: true }).total).toBe(0);
  });
});

describe('completion/complete over MCP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ workspace: workspace() });
    draftFor(server.ctx, noteFor('lead_r0'));
  });
  afterAll(() => server.close());

  const template = (uri: string, name: string, value: string) => ({ ref: { type: 'ref/resource' as const, uri }, argument: { name, value } });
  const prompt = (name: string, argument: string, value: string) => ({ ref: { type: 'ref/prompt' as const, name }, argument: { name: argument, value } });

  describe('the v2 client at 2026-07-28', () => {
    let client: ModernClient;
    beforeAll(async () => {
      client = new ModernClient({ name: 'completion-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new ModernTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    });
    afterAll(() => client.close());

    it('sees the completions capability and completes a campaignId of the drafts prompt', async () => {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerCapabilities()?.completions).toEqual({});
      const { completion } = await client.complete(prompt('personalize_drafts', 'campaignId', 'rev'));
      expect(completion).toEqual({ values: ['cmp_review'], total: 1, hasMore: false });
      // Only campaigns with drafts waiting: Q4 has none.
      expect((await client.complete(prompt('personalize_drafts', 'campaignId', 'Q4'))).completion.values).toEqual([]);
    });

    it('completes campaignId, agentId and accountId variables of a resource template', async () => {
      expect((await client.complete(template('outreach://campaigns/{campaignId}', 'campaignId', 'cmp_q'))).completion.values).toEqual(['cmp_q4']);
      expect((await client.complete(template('outreach://agents/{agentId}', 'agentId', 'Intro'))).completion.values).toEqual(['tpl_intro']);
      expect((await client.complete(template('outreach://accounts/{accountId}{?day}', 'accountId', 'ADA'))).completion.values).toEqual(['acc_ada']);
    });

    it('refuses a prompt or an argument that does not exist, and offers nothing for free text', async () => {
      await expect(client.complete(prompt('no_such_prompt', 'campaignId', ''))).rejects.toBeInstanceOf(ProtocolError);
      await expect(client.complete(prompt('personalize_drafts', 'agentId', ''))).rejects.toMatchObject({ code: -32602 });
      await expect(client.complete(template('outreach://campaigns/{campaignId}', 'agentId', ''))).rejects.toMatchObject({ code: -32602 });
      expect((await client.complete(prompt('start_outreach', 'audience', 'heads'))).completion).toEqual({ values: [], total: 0, hasMore: false });
    });
  });

  describe('the v1 client at 2025-11-25', () => {
    // The v1 client on purpose: a deployed 2025 client must complete too.
    let client: LegacyClient;
    beforeAll(async () => {
      client = new LegacyClient({ name: 'completion-v1', version: '1.0.0' });
      await client.connect(new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
    });
    afterAll(() => client.close());

    it('sees the completions capability and completes a campaignId', async () => {
      expect(client.getServerCapabilities()?.completions).toEqual({});
      const { completion } = await client.complete(template('outreach://campaigns/{campaignId}', 'campaignId', 'cmp_r'));
      expect(completion).toEqual({ values: ['cmp_review', 'cmp_running'], total: 2, hasMore: false });
      expect((await client.complete(prompt('personalize_drafts', 'campaignId', ''))).completion.values).toEqual(['cmp_review']);
    });

    it('gets an McpError for an unknown prompt', async () => {
      const error = await client.complete(prompt('no_such_prompt', 'campaignId', '')).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
    });
  });
});

describe.each(['modern', 'legacy'] as const)('completion/complete over stdio (the built server), %s era', (era) => {
  const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;
  const dir = mkdtempSync(join(tmpdir(), `outreach-completion-${era}-`));
  const db = join(dir, 'o.db');
  let client: ModernClient;
  beforeAll(async () => {
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(fixture()));
    execFileSync(process.execPath, [BIN, 'seed', '--file', file, '--db', db]);
    client = new ModernClient({ name: 'completion-stdio', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--db', db],
        env: { ...(process.env as Record<string, string>), OUTREACH_API_KEY: TEST_KEY, OUTREACH_ENV: '', LOG_LEVEL: 'warn' },
        stderr: 'pipe',
      }),
    );
  });
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('completes a campaignId of a resource template and an accountId', async () => {
    expect(client.getProtocolEra()).toBe(era);
    const ref = { type: 'ref/resource' as const, uri: 'outreach://campaigns/{campaignId}/accounts/{accountId}' };
    expect((await client.complete({ ref, argument: { name: 'campaignId', value: 'cmp_q' } })).completion.values).toEqual(['cmp_q4']);
    expect((await client.complete({ ref, argument: { name: 'accountId', value: 'off' } })).completion.values).toEqual(['acc_off']);
  });
});
