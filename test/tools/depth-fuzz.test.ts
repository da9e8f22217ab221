import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
/** Past the input guard's depth limit (32), and within it. */
const GUARD_DEPTH = 32;
import { toolByName, tools } from '../../src/tools/index.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { SAMPLE_CALLS } from './samples.js';

/*
 * Depth fuzz over REST and MCP (both eras): every tool, with one argument replaced (or added)
 * by a value nested from a few levels to thousands, of several shapes, and words no text may
 * hold. No answer may be a 5xx, a JSON-RPC internal error (-32603) or an isError result that
 * says upstream_unavailable: every such payload is the caller's to fix, and says so. The runs
 * are few and each request is small (under the body limit), so the test is bounded in time.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ limits: RELAXED_LIMITS });
});
afterAll(() => server.close());

const SHAPES = ['array', 'object', 'ifs', 'mixed', 'words'] as const;
type Shape = (typeof SHAPES)[number];

/** The JSON text of a value `depth` deep, built without recursion (JSON.stringify would overflow). */
function deepJson(shape: Shape, depth: number): string {
  switch (shape) {
    case 'array':
      return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    case 'object':
      return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    case 'ifs':
      return `[${'{"kind":"if","condition":"replied","withinHours":1,"then":['.repeat(depth)}{"kind":"visit"}${']}'.repeat(depth)}]`;
    case 'mixed':
      return `${'[{"x":'.repeat(depth)}"\\ud800"${'}]'.repeat(depth)}`;
    case 'words':
      return JSON.stringify(['\u0000', '\ud800', 'a\udc00b', '\ud83d'][depth % 4]);
  }
}

const callable = tools.filter((t) => SAMPLE_CALLS[t.name] !== undefined);

/** The sample's arguments with `field` set to the deep value, as JSON text. */
function argumentsWith(name: string, field: string, value: string): string {
  const marker = '"__fuzz_value__"';
  return JSON.stringify({ ...SAMPLE_CALLS[name]!.args, [field]: '__fuzz_value__' }).replace(marker, value);
}

const case_ = fc
  .record({
    name: fc.constantFrom(...callable.map((t) => t.name)),
    fieldIndex: fc.nat(),
    shape: fc.constantFrom(...SHAPES),
    // Mostly past the guard's limit (thousands, as the measured stack overflows), some within it.
    depth: fc.oneof(fc.integer({ min: 1, max: GUARD_DEPTH + 2 }), fc.integer({ min: 100, max: 6000 })),
  })
  .map(({ name, fieldIndex, shape, depth }) => {
    const tool = toolByName.get(name)!;
    const fields = [...Object.keys(tool.input.shape), 'steps', 'extra'];
    const field = fields[fieldIndex % fields.length]!;
    // The REST body limit is 128 KiB: the deepest of the wide shapes is cut to fit.
    const fitted = shape === 'ifs' ? Math.min(depth, 1500) : depth;
    return { tool, field, shape, depth: fitted, args: argumentsWith(tool.name, field, deepJson(shape, fitted)) };
  });

async function rest(tool: (typeof tools)[number], args: string): Promise<{ status: number; body: any }> {
  const parsedPath = tool.http.path.replace(/:([A-Za-z]+)/g, (_m, p: string) => encodeURIComponent(String(SAMPLE_CALLS[tool.name]!.args[p] ?? 'x')));
  if (tool.http.method === 'GET') {
    // A GET takes its arguments in the query: the deep value goes as one parameter's text.
    const res = await fetch(`${server.url}/public/v1${parsedPath}?extra=${encodeURIComponent(args.slice(0, 4000))}`, { headers: { 'x-api-key': TEST_KEY } });
    return { status: res.status, body: await res.json() };
  }
  // Path parameters live in the path; the rest of the arguments are the body.
  const stripped = stripTopLevel(args, new Set(tool.pathParams));
  const res = await fetch(`${server.url}/public/v1${parsedPath}`, {
    method: tool.http.method,
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: stripped,
  });
  return { status: res.status, body: await res.json() };
}

/** The JSON object text without the top-level keys named (their values are flat sample strings). */
function stripTopLevel(json: string, keys: ReadonlySet<string>): string {
  let out = json;
  for (const key of keys) out = out.replace(new RegExp(`"${key}":"[^"]*",?`), '');
  return out.replace(/,}$/, '}');
}

const MODERN_META = JSON.stringify({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
});

async function mcp(name: string, args: string, era: 'legacy' | 'modern'): Promise<any> {
  const modern = era === 'modern';
  const res = await fetch(`${server.url}/mcp?toolsets=manage,triage,audit`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': TEST_KEY,
      ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name } : {}),
    },
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}${modern ? `,"_meta":${MODERN_META}` : ''}}}`,
  });
  expect(res.status, `${era} ${name}`).toBeLessThan(500);
  return res.json();
}

describe('depth fuzz: no payload gives a 5xx or an internal error', () => {
  it("every argument of every tool, 5,000 deep, and 2,000 nested ifs as its steps: REST and MCP refuse them as the caller's to fix", async () => {
    for (const tool of callable) {
      for (const field of [...Object.keys(tool.input.shape), 'steps']) {
        const value = field === 'steps' ? deepJson('ifs', 2000) : deepJson('array', 5000);
        const args = argumentsWith(tool.name, field, value);
        const what = `${tool.name} ${field}`;
        if (tool.http.method !== 'GET') {
          const { status, body } = await rest(tool, args);
          expect(status, `${what}: ${JSON.stringify(body)}`).toBe(400);
          expect(body.error.code, what).toBe('validation_error');
        }
        const reply = await mcp(tool.name, args, 'legacy');
        expect(reply.result?.isError, `${what}: ${JSON.stringify(reply).slice(0, 300)}`).toBe(true);
        expect(JSON.parse(reply.result.content[0].text).error.code, what).toBe('validation_error');
      }
    }
  });

  it('over REST, on every tool', async () => {
    await fc.assert(
      fc.asyncProperty(case_, async ({ tool, field, shape, depth, args }) => {
        const { status, body } = await rest(tool, args);
        const what = `${tool.name} ${field} ${shape} ${depth}: ${JSON.stringify(body).slice(0, 300)}`;
        expect(status, what).toBeLessThan(500);
        if (status >= 400) expect(['validation_error', 'not_found', 'conflict', 'plan_required'], what).toContain(body.error.code);
      }),
      { numRuns: 60, seed: 34 },
    );
  });

  it('over MCP, in both eras, on every tool', async () => {
    await fc.assert(
      fc.asyncProperty(case_, fc.constantFrom('legacy' as const, 'modern' as const), async ({ tool, field, shape, depth, args }, era) => {
        const reply = await mcp(tool.name, args, era);
        const what = `${era} ${tool.name} ${field} ${shape} ${depth}: ${JSON.stringify(reply).slice(0, 300)}`;
        expect(reply.error?.code, what).not.toBe(-32603);
        if (reply.result?.isError) expect(JSON.parse(reply.result.content[0].text).error.code, what).not.toBe('upstream_unavailable');
      }),
      { numRuns: 60, seed: 34 },
    );
  });
});
