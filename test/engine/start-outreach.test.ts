import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineIntents, leads } from '../../src/db/schema.js';
import { Engine } from '../../src/workers/outreach/index.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { engineSettings, HOUR, url } from './helpers.js';

/**
 * The measured defect of issue 34: an assistant following the start_outreach prompt added eight
 * leads by profile URL alone with add_leads_batch; every invitation read "Hi there, …" and every
 * follow-up "Thanks for connecting, there!". Here the same path runs over MCP, then the engine
 * on the simulated network: every text names its person.
 */
describe('start_outreach from profile URLs alone', () => {
  let server: TestServer;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).not.toBe(true);
    return result.structuredContent as Record<string, any>;
  };

  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    client = await server.mcp(TEST_KEY, 'toolsets=manage');
  });
  afterAll(() => server.close());

  it('names every person in every invitation note and follow-up', async () => {
    // The prompt's steps, as an assistant takes them.
    const prompt = await client.getPrompt({ name: 'start_outreach', arguments: { audience: 'fintech founders', offer: 'a demo' } });
    expect(JSON.stringify(prompt.messages)).toContain('add_leads_batch');
    const { accounts } = await call('list_accounts', {});
    const account = (accounts as { id: string; status: string }[]).find((a) => a.status === 'connected')!;
    const agent = await call('create_agent', {
      name: 'Fintech founders',
      accountId: account.id,
      connectionNote: 'Hi {{firstName|there}}, I help fintechs like yours ship faster. Open to connect?',
      messages: [{ text: 'Thanks for connecting, {{firstName|there}}! Would a short demo help?', delayHours: 24 }],
    });
    const campaign = await call('create_campaign', { name: 'Fintech founders Q1', assignedTemplateId: agent.id });
    const slugs = [
      'ada-lovelace',
      'grace-hopper',
      'alan-turing',
      'katherine-johnson',
      'linus-torvalds',
      'margaret-hamilton',
      'tim-berners-lee',
      'barbara-liskov',
    ].map((s) => `${s}-sim-fast-accept-sim-no-reply`);
    const added = await call('add_leads_batch', { campaignId: campaign.id, leads: slugs.map((s) => ({ networkUrl: url(s) })) });
    expect(added.summary).toMatchObject({ created: 8 });
    await call('start_campaign', { campaignId: campaign.id });

    const ctx = server.ctx;
    const engine = new Engine(ctx, { settings: engineSettings(), random: () => 0, holder: 'start-outreach' });
    const texts = (kind: string) =>
      ctx.db
        .select({ leadId: engineIntents.leadId, text: engineIntents.text })
        .from(engineIntents)
        .where(and(eq(engineIntents.campaignId, campaign.id), eq(engineIntents.kind, kind)))
        .all();
    for (let i = 0; i < 2_000 && texts('message').length < 8; i++) {
      await engine.tick();
      ctx.clock.advance(HOUR / 4);
    }
    await engine.stop();

    const invitations = texts('connection_request');
    const followUps = texts('message');
    expect(invitations).toHaveLength(8);
    expect(followUps).toHaveLength(8);
    const firstNames = new Map(
      ctx.db
        .select({ id: leads.id, firstName: leads.firstName })
        .from(leads)
        .where(eq(leads.campaignId, campaign.id))
        .all()
        .map((l) => [l.id, l.firstName]),
    );
    for (const { leadId, text } of [...invitations, ...followUps]) {
      expect(text).not.toMatch(/\bthere\b/);
      expect(text).toContain(firstNames.get(leadId));
    }
    expect(new Set(firstNames.values())).toEqual(new Set(['Ada', 'Grace', 'Alan', 'Katherine', 'Linus', 'Margaret', 'Tim', 'Barbara']));
    expect(invitations.map((i) => i.text)).toContain('Hi Ada, I help fintechs like yours ship faster. Open to connect?');
    expect(followUps.map((i) => i.text)).toContain('Thanks for connecting, Ada! Would a short demo help?');
  });
});
