import type { Client } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listLeads, type ListLeadsInput } from '../../src/core/leads/list.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { leads } from '../../src/db/schema.js';
import { callTool, startTestServer, testCtx, type TestServer, RELAXED_LIMITS } from '../helpers.js';
import { restPath } from '../transports.js';
import { ALLOWED_QUERIES, T0, expectedIds, listDataset, workspaceWith, type ModelLead } from './data.js';

describe('paging while leads are inserted', () => {
  const DATA = listDataset('c', 40);
  let server: TestServer;
  let client: Client;
  let inserted = 0;

  beforeAll(async () => {
    server = await startTestServer({ workspace: workspaceWith({ cmp_busy: DATA }), limits: RELAXED_LIMITS });
    client = await server.mcp();
  });
  afterAll(() => server.close());

  /** A new lead: newest of all, in the middle of the order, or tied with an existing createdAt. */
  function insertLead(kind: number): void {
    const n = inserted++;
    const createdAt = kind === 0 ? T0 + 10_000 * 60_000 + n : kind === 1 ? T0 + 5 * 60_000 + 1 : T0 + 7 * 60_000;
    server.ctx.db
      .insert(leads)
      .values({
        id: `lead_new${n}`,
        campaignId: 'cmp_busy',
        networkUrl: `https://www.linkedin.com/in/new-${n}`,
        firstName: 'New',
        replied: n % 2 === 0,
        createdAt,
        updatedAt: createdAt,
      })
      .run();
  }

  /** Walks every page over one transport; each transport keeps its own cursor. */
  async function walk(transport: 'rest' | 'mcp', args: Record<string, unknown>): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const call = { campaignId: 'cmp_busy', ...args, limit: 3, ...(cursor ? { cursor } : {}) };
      const body = transport === 'rest' ? (await server.rest(restPath('list_leads', call))).body : (await callTool(client, 'list_leads', call)).body;
      expect(body.leads, JSON.stringify(body)).toBeDefined();
      seen.push(...body.leads.map((l: { id: string }) => l.id));
      if (body.nextCursor === null) return seen;
      cursor = body.nextCursor;
    }
  }

  it.each([
    ['no filter', {}],
    ['replied=false', { replied: false }],
  ])('%s: no duplicates, and every lead that existed at the start is served, over REST and MCP at once', async (_name, filter) => {
    const before = expectedIds(DATA, filter);
    const insertedBefore = inserted;
    let done = 0;
    const pagers = (['rest', 'mcp'] as const).map((t) => walk(t, filter).finally(() => done++));
    const inserter = (async () => {
      for (let i = 0; done < pagers.length; i++) {
        insertLead(i % 3);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const [rest, mcp] = await Promise.all(pagers);
    await inserter;

    expect(inserted - insertedBefore).toBeGreaterThan(3);
    for (const seen of [rest!, mcp!]) {
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => before.includes(id))).toEqual(before);
    }
  });
});

describe('paging property: any data, any allowed query, any page size', () => {
  const ts = fc.option(
    fc.integer({ min: 0, max: 6 }).map((m) => T0 + m * 60_000),
    { nil: null },
  );
  const lead = fc.record({
    createdAt: fc.integer({ min: 0, max: 6 }).map((m) => T0 + m * 60_000),
    tag: fc.constantFrom('Interested', 'Not interested', null),
    taggedAt: ts,
    replied: fc.boolean(),
    repliedAt: ts,
    lastInboundMessageAt: ts,
    needsReply: fc.boolean(),
    excluded: fc.boolean(),
  });

  it('walking the pages returns exactly the matching leads, newest first, ties by insertion', () => {
    fc.assert(
      fc.property(fc.array(lead, { maxLength: 30 }), fc.constantFrom(...ALLOWED_QUERIES), fc.integer({ min: 1, max: 8 }), (rows, query, limit) => {
        const model: ModelLead[] = rows.map((r, i) => ({ ...r, id: `lead_p${i}` }) as ModelLead);
        const ctx = testCtx({ workspace: workspaceWith({ cmp_prop: model }) });
        const secret = getWorkspace(ctx)!.cursorSecret;
        const ids: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page <= 31; page++) {
          const res = listLeads(ctx, secret, { campaignId: 'cmp_prop', ...query, sort: query.sort ?? 'createdAt', limit, cursor } as ListLeadsInput);
          ids.push(...res.leads.map((l) => l.id));
          expect(res.leads.length).toBeLessThanOrEqual(limit);
          if (res.nextCursor === null) break;
          expect(res.leads).toHaveLength(limit);
          cursor = res.nextCursor;
        }
        ctx.db.$client.close();
        expect(ids).toEqual(expectedIds(model, query));
      }),
      { numRuns: 60 },
    );
  });
});
