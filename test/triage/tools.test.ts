import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordMessage } from '../../src/core/conversations/record.js';
import { toolByName } from '../../src/tools/index.js';
import { triageRepliesPrompt } from '../../src/tools/prompts/triage-replies.js';
import { callTool, startTestServer, type TestServer } from '../helpers.js';

describe('the triage toolset and the triage_replies prompt', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    recordMessage(server.ctx, {
      lead: { id: 'lead_ada1', campaignId: 'cmp_q4' },
      sender: 'sequence',
      text: 'Hi Ada, worth a chat?',
      at: 1_000,
      accountId: null,
    });
    recordMessage(server.ctx, {
      lead: { id: 'lead_ada1', campaignId: 'cmp_q4' },
      sender: 'lead',
      text: 'Sure, how about Thursday?',
      at: 2_000,
      accountId: null,
    });
  });
  afterAll(() => server.close());

  it('is listed only when asked for, with the prompt', async () => {
    const plain = await server.mcp();
    expect((await plain.listTools()).tools.map((t) => t.name)).not.toContain('suggest_tag');
    const triage = await server.mcp(undefined, 'toolsets=triage');
    const names = (await triage.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_conversations', 'get_conversation', 'suggest_tag']));
    const manage = await server.mcp(undefined, 'toolsets=manage');
    expect((await manage.listTools()).tools.map((t) => t.name)).not.toContain('suggest_tag');
    const { prompts } = await triage.listPrompts();
    expect(prompts.find((p) => p.name === 'triage_replies')).toEqual({
      name: 'triage_replies',
      title: 'Triage replies',
      description: triageRepliesPrompt.description,
      arguments: [{ name: 'campaignId', description: expect.stringContaining('list_campaigns'), required: false }],
    });
  });

  it('lets the assistant read a thread and store its suggestion, over MCP and REST alike', async () => {
    const client = await server.mcp(undefined, 'toolsets=triage');
    const thread = await callTool(client, 'get_conversation', { leadId: 'lead_ada1' });
    expect(thread.body.messages.map((m: { text: string }) => m.text)).toEqual(['Hi Ada, worth a chat?', 'Sure, how about Thursday?']);
    expect(thread.body.suggestion).toBeNull();
    const stored = await callTool(client, 'suggest_tag', { leadId: 'lead_ada1', tag: 'Meeting request', confidence: 0.9, reason: 'proposes Thursday' });
    expect(stored).toMatchObject({ isError: false, body: { leadId: 'lead_ada1', suggestion: { tag: 'Meeting request', suggestedBy: 'assistant' } } });
    const listed = await server.rest('/conversations?suggestedTag=Meeting%20request&campaignId=cmp_q4');
    expect(listed.status).toBe(200);
    expect(listed.body.conversations.map((c: { leadId: string; suggestion: { reason: string } }) => [c.leadId, c.suggestion.reason])).toEqual([
      ['lead_ada1', 'proposes Thursday'],
    ]);
    // Bad input is refused in the API's shape and stores nothing.
    const bad = await server.rest('/conversations/lead_ada1/suggested-tag', { method: 'POST', body: JSON.stringify({ tag: 'Hot', confidence: 2 }) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect(bad.body.error.details.fields).toEqual(expect.arrayContaining(['tag', 'confidence']));
    expect((await callTool(client, 'get_conversation', { leadId: 'lead_ada1' })).body.suggestion.tag).toBe('Meeting request');
  });

  it('walks the assistant through read, suggest, confirm on request, and answers sent only after approval', async () => {
    const client = await server.mcp(undefined, 'toolsets=triage');
    const got = await client.getPrompt({ name: 'triage_replies', arguments: { campaignId: 'cmp_q4' } });
    const content = got.messages[0]?.content;
    if (content?.type !== 'text') throw new Error('expected a text message');
    const text = content.text;
    expect(text).toContain('campaignId "cmp_q4"');
    const named = [...text.matchAll(/\b([a-z]+_[a-z_]+)\b/g)].map((m) => m[1]!).filter((n) => n !== 'needs_reply');
    expect(new Set(named)).toEqual(new Set(triageRepliesPrompt.uses));
    for (const tool of named) expect(toolByName.has(tool), tool).toBe(true);
    const at = (s: string) => text.indexOf(s);
    expect(at('list_conversations')).toBeLessThan(at('get_conversation'));
    expect(at('get_conversation')).toBeLessThan(at('suggest_tag'));
    expect(at('suggest_tag')).toBeLessThan(at('send_message'));
    expect(text).toMatch(/Never send without asking me/);
    expect(text).toMatch(/Not interested and Wrong person exclude/);
    const all = await client.getPrompt({ name: 'triage_replies', arguments: {} });
    const allText = all.messages[0]?.content.type === 'text' ? all.messages[0].content.text : '';
    expect(allText).not.toContain('campaignId "');
  });
});
