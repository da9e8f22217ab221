import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchema, mcpInputSchema, mcpOutputSchema } from '../../src/tools/schemas.js';
import { CampaignId } from '../../src/tools/params.js';
import { Cursor } from '../../src/core/pagination.js';
import { defaultTools as tools } from '../../src/tools/index.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { SAMPLE_CALLS } from '../tools/samples.js';
import { LISTING_BUDGET_TOKENS as MODEL_VISIBLE_BUDGET_TOKENS, listingTokens, modelVisible } from '../../bench/lib/listing.js';

/**
 * What a model reads of a listing stays within the token budget of bench/lib/listing.ts (the
 * bench judges the same figure): 4,500 tokens for the default listing, 9,000 with the manage
 * toolset. The whole response keeps its own, looser guard against growth.
 */
const TOOLS_LIST_BUDGET_BYTES = 38_000;

describe('tools/list as served', () => {
  let server: TestServer;
  let text: string;
  let listed: Array<{ name: string; title?: string; description?: string; inputSchema: any; outputSchema?: unknown; annotations?: unknown }>;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    text = await res.text();
    listed = (JSON.parse(text) as { result: { tools: typeof listed } }).result.tools;
  });
  afterAll(() => server.close());

  it(`keeps what a model reads within ${MODEL_VISIBLE_BUDGET_TOKENS.default} tokens, and ${MODEL_VISIBLE_BUDGET_TOKENS.manage} with the manage toolset`, async () => {
    expect(listed).toHaveLength(tools.length);
    const tokens = listingTokens(listed);
    expect(tokens).toBeLessThanOrEqual(MODEL_VISIBLE_BUDGET_TOKENS.default);
    // The counter counts: the listing is thousands of tokens, more than its bytes / 8.
    expect(tokens).toBeGreaterThan(Buffer.byteLength(modelVisible(listed)) / 8);
    expect(Buffer.byteLength(text)).toBeLessThan(TOOLS_LIST_BUDGET_BYTES);

    const client = await server.mcp(TEST_KEY, 'toolsets=manage');
    const { tools: withManage } = await client.listTools();
    expect(withManage.length).toBeGreaterThan(tools.length);
    expect(listingTokens(withManage as Array<Record<string, unknown>>)).toBeLessThanOrEqual(MODEL_VISIBLE_BUDGET_TOKENS.manage);
  });

  it("lists an update tool's shared arguments by reference beside its create tool, and in full without it", async () => {
    const both = await server.mcp(TEST_KEY, 'toolsets=manage');
    const { tools: withCreate } = await both.listTools();
    const beside = withCreate.find((t) => t.name === 'update_agent')!.inputSchema.properties as Record<string, any>;
    expect(beside.connectionNote).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }], description: 'As in create_agent.' });
    expect(beside.messages).toEqual({ type: 'array', items: { type: 'object' }, description: 'As in create_agent.' });
    // What the reference points at is there, in full.
    const create = withCreate.find((t) => t.name === 'create_agent')!.inputSchema.properties as Record<string, any>;
    expect(create.connectionNote.description).toContain('{{firstName}}');

    const alone = await server.mcp(TEST_KEY, 'tools=update_agent');
    const { tools: only } = await alone.listTools();
    expect(only.map((t) => t.name)).toEqual(['update_agent']);
    const full = only[0]!.inputSchema.properties as Record<string, any>;
    expect(full.connectionNote.description).toContain('{{firstName}}');
    expect(full.messages.items.properties.delayHours.maximum).toBe(720);
  });

  it("lists add_leads_batch's items field by field, the same fields add_lead takes", () => {
    const batch = listed.find((t) => t.name === 'add_leads_batch')!.inputSchema.properties.leads;
    const single = listed.find((t) => t.name === 'add_lead')!.inputSchema.properties as Record<string, any>;
    expect(batch.type).toBe('array');
    const fields = Object.keys(batch.items.properties).sort();
    expect(fields).toEqual(
      Object.keys(single)
        .filter((f) => f !== 'campaignId' && f !== 'idempotencyKey')
        .sort(),
    );
    expect(fields).toEqual(expect.arrayContaining(['networkUrl', 'firstName', 'lastName', 'fullName', 'companyName', 'jobTitle', 'headline']));
    // Beside add_lead, each field points at it (where its bounds and words are); alone, it is in full.
    expect(batch.items.properties.firstName).toEqual({ type: 'string', description: 'As in add_lead.' });
    expect(single.firstName).toMatchObject({ type: 'string', maxLength: 120 });
  });

  it('describes every argument of every tool, nested ones included', () => {
    const undescribed: string[] = [];
    const walk = (tool: string, node: any, path: string) => {
      for (const [name, prop] of Object.entries<any>(node?.properties ?? {})) {
        if (typeof prop.description !== 'string' || prop.description.trim() === '') undescribed.push(`${tool}: ${path}${name}`);
        for (const sub of [prop, prop.items, ...(prop.anyOf ?? []), ...(prop.items?.anyOf ?? [])]) if (sub?.properties) walk(tool, sub, `${path}${name}.`);
      }
    };
    for (const t of listed) walk(t.name, t.inputSchema, '');
    expect(undescribed).toEqual([]);
  });

  it('writes nullable values as anyOf branches, never as a type array', () => {
    expect(text).not.toMatch(/"type":\[/);
  });

  it('puts the length limits the descriptions state into the schema', () => {
    const sendText = listed.find((t) => t.name === 'send_message')!.inputSchema.properties.text;
    expect(sendText.description).toContain('8000');
    expect(sendText.maxLength).toBe(8000);
    // Every "N characters" a description promises is a maxLength of that property.
    for (const t of listed) {
      for (const [name, prop] of Object.entries<any>(t.inputSchema.properties ?? {})) {
        const stated = /(\d[\d,]*) characters/.exec(prop.description ?? '')?.[1];
        if (stated) expect(JSON.stringify(prop), `${t.name}.${name}`).toContain(`"maxLength":${stated.replace(/,/g, '')}`);
      }
    }
  });

  it('every sample result validates against its listed outputSchema, and one missing a field does not', async () => {
    const client = await server.mcp();
    const { tools: listed } = await client.listTools();
    // The validator MCP clients use (the SDK's Ajv); compiling also fails on a dangling $ref.
    const ajv = new AjvJsonSchemaValidator();
    for (const entry of listed) {
      const sample = SAMPLE_CALLS[entry.name]!;
      const result = (await client.callTool({ name: entry.name, arguments: sample.args })) as CallToolResult;
      expect(result.isError, `${entry.name}: ${JSON.stringify(result.content)}`).not.toBe(true);
      expect(entry.outputSchema?.type).toBe('object');
      const validate = ajv.getValidator(entry.outputSchema!);
      const body = result.structuredContent as Record<string, unknown>;
      expect(validate(body), entry.name).toMatchObject({ valid: true });
      const [first] = (entry.outputSchema!.required as string[] | undefined) ?? [];
      expect(first, `${entry.name} lists required fields`).toBeDefined();
      const { [first!]: _dropped, ...missing } = body;
      expect(validate(missing).valid, `${entry.name} without ${first}`).toBe(false);
    }
  });
});

describe('MCP listing schemas', () => {
  const Item = z.object({ id: z.string().describe('The id.'), n: z.number().int().max(9), at: z.iso.datetime().nullable() });
  const output = z.object({ first: z.array(Item).max(5), second: z.array(Item).max(5), status: z.enum(['a', 'b']) });

  it('outputs keep names, types, required fields and enums, and define a repeated shape once', () => {
    const listed = mcpOutputSchema(output);
    expect(listed).toEqual({
      type: 'object',
      properties: { first: { $ref: '#/$defs/first' }, second: { $ref: '#/$defs/first' }, status: { type: 'string', enum: ['a', 'b'] } },
      required: ['first', 'second', 'status'],
      $defs: {
        first: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, n: { type: 'integer' }, at: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] } },
            required: ['id', 'n', 'at'],
          },
        },
      },
    });
    const validate = new AjvJsonSchemaValidator().getValidator(listed);
    expect(validate({ first: [{ id: 'x', n: 1, at: null }], second: [], status: 'a' }).valid).toBe(true);
    expect(validate({ first: [{ id: 'x', n: 'one', at: null }], second: [], status: 'a' }).valid).toBe(false);
  });

  it('inputs keep descriptions and bounds, but not the syntax of copied ids and cursors', () => {
    const input = z.strictObject({
      campaignId: CampaignId,
      cursor: Cursor.optional(),
      note: z.string().max(20).nullish().describe('A note.'),
      other: CampaignId.nullish().describe('Another campaign.'),
      tag: z.enum(['a', 'b']).nullable().optional().describe('The tag, or null to clear it.'),
      when: z.string().nullable().describe('Required, may be null.'),
    });
    const listed = mcpInputSchema(input) as { properties: Record<string, unknown> };
    expect(listed.properties).toEqual({
      campaignId: { type: 'string', description: 'Campaign id, from list_campaigns.' },
      cursor: { type: 'string', description: 'nextCursor of the previous page.' },
      // Optional and null only means "not given": listed as the type alone.
      note: { description: 'A note.', type: 'string', maxLength: 20 },
      other: { description: 'Another campaign.', type: 'string' },
      // null does something (its description says so), or the field is required: anyOf, never a type array.
      tag: { description: 'The tag, or null to clear it.', anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
      when: { description: 'Required, may be null.', anyOf: [{ type: 'string' }, { type: 'null' }] },
    });
    expect(listed).toMatchObject({ required: ['campaignId', 'when'] });
    // Unknown arguments are refused by the server by name; the listing does not repeat it.
    expect(listed).not.toHaveProperty('additionalProperties');
  });

  it('leaves the full detail to the OpenAPI document', () => {
    expect(jsonSchema(output, 'output')).toMatchObject({
      additionalProperties: false,
      properties: { first: { maxItems: 5, items: { properties: { id: { description: 'The id.' } } } } },
    });
    expect(jsonSchema(z.strictObject({ campaignId: CampaignId }), 'input')).toMatchObject({ properties: { campaignId: { pattern: '^[A-Za-z0-9_-]{1,64}$' } } });
  });
});
