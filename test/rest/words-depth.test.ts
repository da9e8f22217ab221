// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { expectValidation, modernRpc } from '../transports.js';

const LONE = '\ud800';
const NUL = '\u0000';

let server: TestServer;
let mcp: Client;
beforeAll(async () => {
  server = await startTestServer({ limits: RELAXED_LIMITS });
  mcp = await server.mcp(TEST_KEY, 'toolsets=manage');
});
afterAll(() => server.close());

/** `depth` ifs, each the only step of the one before's `then`, around a visit. */
const nestedIfs = (depth: number): unknown => {
  let step: unknown = { kind: 'visit' };
  for (let i = 0; i < depth; i++) step = { kind: 'if', condition: 'replied', withinHours: 1, then: [step] };
  return step;
};

/** The JSON text of an array nested `depth` deep (JSON.stringify itself would overflow on it). */
const deepArray = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const post = (path: string, body: unknown, method = 'POST') => server.rest(path, { method, body: typeof body === 'string' ? body : JSON.stringify(body) });

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const MODERN_ASKING = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

/** A 2025-era tools/call as raw JSON-RPC over HTTP: the reply, or the JSON-RPC error. */
async function legacyRaw(name: string, rawArguments: string): Promise<any> {
  const res = await fetch(`${server.url}/mcp?toolsets=manage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY },
    body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${rawArguments}}}`,
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** A 2026-07-28 tools/call as raw JSON-RPC over HTTP, with the revision's headers. */
async function modernRaw(name: string, rawArguments: string, meta: Record<string, unknown> = MODERN_META): Promise<any> {
  const res = await fetch(`${server.url}/mcp?toolsets=manage`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': TEST_KEY,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${rawArguments},"_meta":${JSON.stringify(meta)}}}`,
  });
  return res.json();
}

/** The error body of an isError tool result; fails on a JSON-RPC error. */
const toolError = (reply: any) => {
  expect(reply.error, JSON.stringify(reply.error)).toBeUndefined();
  expect(reply.result.isError).toBe(true);
  return JSON.parse(reply.result.content[0].text).error;
};

describe('words are stored as given: request fields', () => {
  it("refuses a lone surrogate or a NUL in a step's text, note, subject or variant, naming the path", async () => {
    const cases: [unknown[], string][] = [
      [[{ kind: 'message', text: `Hi ${LONE}` }], 'steps[0].text'],
      [[{ kind: 'invite', note: `Hi${NUL}` }], 'steps[0].note'],
      [[{ kind: 'inmail', subject: `S${LONE}`, text: 'Hi' }], 'steps[0].subject'],
      [[{ kind: 'message', text: 'Hi', variants: [{ text: `\udc00x` }] }], 'steps[0].variants[0].text'],
      [[{ kind: 'if', condition: 'replied', withinHours: 1, then: [{ kind: 'message', text: `a${NUL}` }] }], 'steps[0].then[0].text'],
    ];
    for (const [steps, field] of cases) {
      const res = await post('/agents', { name: 'Words', accountId: 'acc_ada', steps });
      expectValidation(res, field);
      expect(res.body.error.message).toMatch(/lone surrogate|NUL character/);
    }
    expect((await server.rest('/agents')).body.agents.map((a: { name: string }) => a.name)).not.toContain('Words');
  });

  it('refuses them in names, lead fields and message texts alike, over REST and MCP', async () => {
    expectValidation(await post('/agents', { name: `A${LONE}`, accountId: 'acc_ada' }), 'name');
    expectValidation(await post('/campaigns', { name: `C${NUL}` }), 'name');
    expectValidation(
      await post('/campaigns/cmp_q4/leads', { networkUrl: 'https://www.linkedin.com/in/words-1', personalization: `p${LONE}` }),
      'personalization',
    );
    expectValidation(await post('/inbox/messages', { leadId: 'lead_ada1', text: `Hello${NUL}` }), 'text');
    expectValidation(await post('/campaigns/cmp_q4/leads/lead_ada1', { tag: `x${LONE}` }, 'PATCH'), 'tag');
    const viaMcp = await callTool(mcp, 'create_agent', { name: 'M', accountId: 'acc_ada', steps: [{ kind: 'message', text: `x${LONE}` }] });
    expect(viaMcp.isError).toBe(true);
    expect(viaMcp.body.error).toMatchObject({ code: 'validation_error', details: { fields: ['steps[0].text'] } });
  });

  it("in add_leads_batch, such a field is that item's validation_error, and the other items are added", async () => {
    const res = await post('/campaigns/cmp_q4/leads/batch', {
      leads: [
        { networkUrl: 'https://www.linkedin.com/in/words-ok', firstName: 'Ok' },
        { networkUrl: 'https://www.linkedin.com/in/words-bad', personalization: `about ${LONE}` },
        { networkUrl: `https://www.linkedin.com/in/words-nul${NUL}` },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['created', 'validation_error', 'validation_error']);
    expect(res.body.results[1].error.message).toMatch(/^leads\[1\]\.personalization holds a lone surrogate/);
    expect(res.body.results[2].error.message).toMatch(/^leads\[2\]\.networkUrl holds a NUL character/);
    expect(res.body.creditsCharged).toBe(1);
  });

  it('keeps a well-formed pair (an emoji) as given', async () => {
    const res = await post('/agents', { name: 'Wave \ud83d\udc4b', accountId: 'acc_ada', steps: [{ kind: 'message', text: 'Hi \ud83d\udc4b' }] });
    expect(res.status).toBe(200);
    const read = await server.rest(`/agents/${res.body.id}`);
    expect(read.body.name).toBe('Wave \ud83d\udc4b');
    expect(read.body.steps[0].text).toBe('Hi \ud83d\udc4b');
  });
});

describe('depth', () => {
  it('2,000 nested ifs are a 400 naming where the steps go too deep, over REST and both MCP eras', async () => {
    const field = 'steps[0].then[0].then[0].then[0]';
    const create = await post('/agents', { name: 'Deep', accountId: 'acc_ada', steps: [nestedIfs(2000)] });
    expectValidation(create, field);
    expect(create.body.error.message).toContain('steps nest at most 3 deep');
    expectValidation(await post('/agents/tpl_intro', { steps: [nestedIfs(2000)] }, 'PATCH'), field);
    // Four levels is one too many, as the documented limit says; three is fine.
    expectValidation(await post('/agents', { name: 'Four', accountId: 'acc_ada', steps: [nestedIfs(3)] }), field);
    expect((await post('/agents', { name: 'Three', accountId: 'acc_ada', steps: [nestedIfs(2)] })).status).toBe(200);

    const legacy = await callTool(mcp, 'create_agent', { name: 'Deep', accountId: 'acc_ada', steps: [nestedIfs(2000)] });
    expect(legacy.body.error).toMatchObject({ code: 'validation_error', details: { fields: [field] } });
    const modern = await modernRpc(
      `${server.url}/mcp?toolsets=manage`,
      'tools/call',
      { name: 'create_agent', arguments: { name: 'Deep', accountId: 'acc_ada', steps: [nestedIfs(2000)] } },
      MODERN_META,
    );
    expect(toolError(modern)).toMatchObject({ code: 'validation_error', details: { fields: [field] } });
  });

  it('any argument nested past the limit is a 400 naming where, not a 5xx', async () => {
    const res = await post('/campaigns', `{"name":"x","extra":${deepArray(5000)}}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.fields[0]).toMatch(/^extra(\[0\])+$/);
    expect(res.body.error.message).toContain('nested more than 32 levels deep');
  });

  it('the deepest argument a body under the size limit can carry (60,000 levels) is still a validation_error everywhere', async () => {
    const args = `{"name":"x","extra":${deepArray(60_000)}}`;
    expect((await post('/campaigns', args)).status).toBe(400);
    expect(toolError(await legacyRaw('create_campaign', args))).toMatchObject({ code: 'validation_error' });
    expect(toolError(await modernRaw('create_campaign', args))).toMatchObject({ code: 'validation_error' });
  });

  it('the tools that confirm answer an argument nested 5,000 deep with a validation_error in both eras, not -32603', async () => {
    const deep = deepArray(5000);
    const calls: [string, string][] = [
      ['update_drafts', `{"drafts":${deep}}`],
      ['start_campaign', `{"campaignId":"cmp_q4","x":${deep}}`],
      ['send_message', `{"leadId":"lead_ada1","text":${deep}}`],
      ['delete_leads_batch', `{"campaignId":"cmp_q4","leadIds":${deep}}`],
    ];
    for (const [name, args] of calls) {
      expect(toolError(await legacyRaw(name, args)), name).toMatchObject({ code: 'validation_error' });
      for (const meta of [MODERN_META, MODERN_ASKING]) {
        const reply = await modernRaw(name, args, meta);
        expect(toolError(reply), name).toMatchObject({ code: 'validation_error' });
      }
    }
    // Nothing was deleted, started or sent.
    expect((await server.rest('/campaigns/cmp_q4')).body.status).toBe('READY_TO_SEND');
  });
});

describe('the confirmation round and the input guard', () => {
  it('arguments the guard passes are still asked about, whatever the idempotency key holds', async () => {
    const args = '{"campaignId":"cmp_q4","leadIds":["lead_ada1"],"idempotencyKey":"key\\u0000x"}';
    const reply = await modernRaw('delete_leads_batch', args, MODERN_ASKING);
    expect(reply.result.resultType, JSON.stringify(reply)).toBe('input_required');
    expect((await server.rest('/campaigns/cmp_q4/leads/lead_ada1')).status).toBe(200);
  });
});

describe('__proto__', () => {
  it('is refused by name as an unknown argument on REST and MCP alike', async () => {
    const raw = '{"__proto__":{"admin":true},"name":"Proto"}';
    const rest = await post('/campaigns', raw);
    expectValidation(rest, '__proto__');
    const legacy = toolError(await legacyRaw('create_campaign', raw));
    expect(legacy).toEqual(rest.body.error);
    const primitive = toolError(await legacyRaw('create_campaign', '{"name":"Proto","__proto__":1}'));
    expect(primitive.details.fields).toEqual(['__proto__']);
    expect(toolError(await modernRaw('create_campaign', raw))).toEqual(rest.body.error);
    expect((await server.rest('/campaigns')).body.campaigns.map((c: { name: string }) => c.name)).not.toContain('Proto');
  });
});
