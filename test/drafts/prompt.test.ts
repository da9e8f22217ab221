import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRAFT_LIMITS } from '../../src/core/drafts/rules.js';
import { toolByName } from '../../src/tools/index.js';
import { personalizeDraftsPrompt } from '../../src/tools/prompts/personalize-drafts.js';
import { startTestServer, type TestServer } from '../helpers.js';

describe('the personalize_drafts prompt', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('is listed over MCP with one required argument, campaignId', async () => {
    const client = await server.mcp(undefined, 'toolsets=drafts');
    const { prompts } = await client.listPrompts();
    const listed = prompts.find((p) => p.name === 'personalize_drafts');
    expect(listed).toEqual({
      name: 'personalize_drafts',
      title: 'Personalize drafts',
      description: personalizeDraftsPrompt.description,
      arguments: [{ name: 'campaignId', description: expect.stringContaining('list_campaigns'), required: true }],
    });
    expect(listed?.description?.length).toBeLessThanOrEqual(120);
  });

  it('checks its argument by name: a bad or missing campaignId is InvalidParams naming it', async () => {
    const client = await server.mcp(undefined, 'toolsets=drafts');
    await expect(client.getPrompt({ name: 'personalize_drafts', arguments: { campaignId: 'bad id' } })).rejects.toThrow(/campaignId/);
    await expect(client.getPrompt({ name: 'personalize_drafts', arguments: {} })).rejects.toThrow(/campaignId/);
    await expect(client.getPrompt({ name: 'no_such_prompt', arguments: {} })).rejects.toThrow(/Unknown prompt "no_such_prompt"/);
  });

  it('tells the assistant the whole way, for this campaign, with the real limits and tools', async () => {
    const client = await server.mcp(undefined, 'toolsets=drafts');
    const got = await client.getPrompt({ name: 'personalize_drafts', arguments: { campaignId: 'cmp_q4' } });
    expect(got.messages).toHaveLength(1);
    const [{ role, content }] = got.messages as [(typeof got.messages)[number]];
    expect(role).toBe('user');
    if (content.type !== 'text') throw new Error(`expected a text message, got ${content.type}`);
    const text = content.text;
    expect(text).toContain('campaignId "cmp_q4"');
    expect(text).not.toMatch(/^Note:/);
    // Every tool it names exists, and the order is read, research, rewrite, save, ask.
    const named = [...text.matchAll(/\b([a-z]+_[a-z_]+)\b/g)].map((m) => m[1]!).filter((n) => n !== 'validation_error');
    expect(new Set(named)).toEqual(new Set(['list_drafts', 'lookup_profile', 'list_accounts', 'update_drafts']));
    for (const tool of named) expect(toolByName.has(tool), tool).toBe(true);
    const at = (s: string) => text.indexOf(s);
    expect(at('list_drafts')).toBeLessThan(at('lookup_profile'));
    expect(at('lookup_profile')).toBeLessThan(at('Rewrite'));
    expect(at('Rewrite')).toBeLessThan(at('update_drafts'));
    expect(text).toContain(`at most ${DRAFT_LIMITS.invite.text} characters`);
    expect(text).toContain(`at most ${DRAFT_LIMITS.message.text}`);
    expect(text).toContain(`subject at most ${DRAFT_LIMITS.inmail.subject}`);
    expect(text).toMatch(/no status/);
    expect(text).toMatch(/Never approve without asking me/);
    // Short: a prompt is read on every use.
    expect(text.length).toBeLessThan(1700);
  });

  it('on a connection without the draft tools, first says how to add them', async () => {
    const client = await server.mcp();
    const got = await client.getPrompt({ name: 'personalize_drafts', arguments: { campaignId: 'cmp_q4' } });
    const content = got.messages[0]?.content;
    expect(content?.type === 'text' ? content.text : '').toMatch(
      /^Note: this connection does not offer list_drafts, update_drafts\. .*\?toolsets=drafts .*OUTREACH_TOOLSETS=drafts/,
    );
  });
});
