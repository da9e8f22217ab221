import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentStats } from '../../src/core/sequences/stats.js';
import { callTool, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';

const doc = readFileSync(new URL('../../docs/sequences.md', import.meta.url), 'utf8');

/** The ```json blocks of a piece of markdown, parsed, in order. */
const jsonBlocks = (markdown: string): unknown[] => [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string));

/** The text of a `## heading` section, up to the next `## `. */
function section(heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/sequences.md has no "## ${heading}" section`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

const worked = section('Three worked sequences');
/** Each worked sequence's `### ` title and its `steps`; the A/B one's results come after its steps. */
const sequences = worked
  .split('\n### ')
  .slice(1)
  .map((part) => {
    const [steps, ...rest] = jsonBlocks(part);
    return { title: part.slice(0, part.indexOf('\n')), steps, rest };
  });

/** Every sequence the documentation shows, written as a user would copy it, goes through the real server. */
describe('docs/sequences.md', () => {
  let server: TestServer;
  let mcp: Client;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    mcp = await server.mcp(undefined, 'toolsets=manage');
  });
  afterAll(() => server.close());

  it('has the three worked sequences issue 28 asks for: follow-ups, visit/invite/InMail, and an A/B test of two notes with results', () => {
    expect(sequences.map((s) => s.title)).toEqual([
      '1. An invitation, then follow-ups',
      '2. A visit, an invitation, and InMail for those who do not accept',
      '3. An A/B test of two connection notes, and its results',
    ]);
    for (const s of sequences) expect(Array.isArray(s.steps), s.title).toBe(true);
    const kinds = (steps: unknown): string[] => JSON.stringify(steps).match(/"kind":"\w+"/g) ?? [];
    expect(kinds(sequences[0]!.steps).filter((k) => k === '"kind":"message"').length).toBeGreaterThan(1);
    expect(kinds(sequences[1]!.steps)).toEqual(expect.arrayContaining(['"kind":"visit"', '"kind":"invite"', '"kind":"inmail"']));
    expect((sequences[2]!.steps as { variants?: unknown[] }[])[0]!.variants).toHaveLength(1);
  });

  it.each(sequences.map((s) => [s.title, s.steps] as const))('create_agent accepts "%s" over REST and MCP, and gives each step an id', async (title, steps) => {
    const rest = await server.rest('/agents', { method: 'POST', body: JSON.stringify({ name: title, accountId: 'acc_nav', steps }) });
    expect(rest.body.error).toBeUndefined();
    expect(rest.status).toBe(200);
    expect(JSON.stringify(rest.body.steps).match(/"id":"stp_/g)).toHaveLength(JSON.stringify(steps).match(/"kind":/g)!.length);
    const viaMcp = await callTool(mcp, 'create_agent', { name: title, accountId: 'acc_nav', steps });
    expect(viaMcp.body.error).toBeUndefined();
    expect(viaMcp.isError).toBe(false);
    // What the server stored is what the page says, ids aside.
    const withoutIds = JSON.parse(JSON.stringify(viaMcp.body.steps, (k, v) => (k === 'id' ? undefined : v)));
    expect(withoutIds).toEqual(JSON.parse(JSON.stringify(steps), (k, v) => ((k === 'then' || k === 'else') && v === undefined ? [] : v)));
  });

  it('the A/B results are get_agent_stats answers for that agent: the same steps, paths and variants', async () => {
    const ab = sequences[2]!;
    const [results] = ab.rest;
    const shown = AgentStats.parse(results);
    const agent = await server.rest('/agents', { method: 'POST', body: JSON.stringify({ name: 'A/B', accountId: 'acc_nav', steps: ab.steps }) });
    const campaign = await server.rest('/campaigns', { method: 'POST', body: JSON.stringify({ name: 'A/B notes', assignedTemplateId: agent.body.id }) });
    expect(campaign.status).toBe(200);
    const stats = await server.rest(`/agents/${agent.body.id}/stats?campaignId=${campaign.body.id}`);
    expect(stats.status).toBe(200);
    const outline = (s: AgentStats) => s.steps.map((step) => ({ kind: step.kind, path: step.path, variants: step.variants.map((v) => v.variant) }));
    expect(outline(shown)).toEqual(outline(AgentStats.parse(stats.body)));
    for (const step of shown.steps) expect(step.stepId).toMatch(/^stp_[A-Za-z0-9]{16}$/);
    expect(shown.agentId).toMatch(/^tpl_[A-Za-z0-9]{16}$/);
  });

  it('every other sequence the page shows is accepted too', async () => {
    const others = jsonBlocks(doc.replace(worked, '')).filter(Array.isArray);
    expect(others.length).toBeGreaterThan(0);
    for (const steps of others) {
      const r = await server.rest('/agents', { method: 'POST', body: JSON.stringify({ name: 'Example', accountId: 'acc_nav', steps }) });
      expect(r.body.error).toBeUndefined();
      expect(r.status).toBe(200);
    }
  });
});
