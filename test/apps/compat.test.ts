import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { defaultTools } from '../../src/tools/index.js';
import { SAMPLE_CALLS } from '../tools/samples.js';

/**
 * The answers a host without the MCP Apps extension got before the views existed, captured from
 * main at a6e02bb (`UPDATE_GOLDEN=1 npx vitest run test/apps/compat.test.ts` rewrites them). The
 * listing part was re-recorded, without `_meta`, when the listing was deliberately compacted and
 * the account view gained its safety fields, then its configured `limits`, then again when every
 * tool came to list all four hints. Everything was re-recorded when campaigns gained
 * `senderAccountIds` and accounts their visit and like limits (additions), and again when
 * campaigns gained `approval` (an addition), with the default listing's calls only, as hosts saw
 * them; the listing again when descriptions were trimmed to the token budget, and when
 * add_leads_batch came to name its items' fields (an addition: an assistant could not see them).
 * views may add `_meta` to tools/list entries and nothing else: every tool result must stay the
 * same bytes.
 */
const GOLDEN = new URL('./golden/answers.json', import.meta.url);

/**
 * Samples whose result carries something random per run (a fresh id, or a cursor signed with the
 * workspace's random secret), so no two runs agree byte for byte.
 */
const RANDOM_IDS = new Set(['create_lookalike_campaign', 'send_message', 'list_accounts']);

const golden = (): Answers => JSON.parse(readFileSync(GOLDEN, 'utf8')) as Answers;

interface Answers {
  toolsList: Record<string, unknown>[];
  calls: Record<string, string>;
}

async function post(server: TestServer, body: unknown): Promise<string> {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.text();
}

describe('hosts without the MCP Apps extension', () => {
  let server: TestServer;
  let answers: Answers;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    const list = JSON.parse(await post(server, { jsonrpc: '2.0', id: 1, method: 'tools/list' })) as { result: { tools: Record<string, unknown>[] } };
    const calls: Record<string, string> = {};
    // Replays the recorded calls, in their order: tools added since (which may change the
    // state later calls read) are not part of what a host saw before.
    const recorded = process.env.UPDATE_GOLDEN
      ? Object.keys(SAMPLE_CALLS).filter((n) => !RANDOM_IDS.has(n) && defaultTools.some((t) => t.name === n))
      : Object.keys(golden().calls);
    for (const name of recorded) {
      const sample = SAMPLE_CALLS[name];
      if (!sample) continue;
      calls[name] = await post(server, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: sample.args } });
    }
    // An error answer too: its text block is part of what hosts see.
    calls['get_campaign (unknown id)'] = await post(server, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'get_campaign', arguments: { campaignId: 'cmp_nope' } },
    });
    answers = { toolsList: list.result.tools, calls };
    if (process.env.UPDATE_GOLDEN) {
      const toolsList = answers.toolsList.map(({ _meta, ...rest }) => rest);
      writeFileSync(GOLDEN, `${JSON.stringify({ ...answers, toolsList }, null, 1)}\n`);
    }
  });
  afterAll(() => server.close());

  it('get byte-identical tool results', () => {
    const before = golden();
    expect(Object.keys(answers.calls)).toEqual(Object.keys(before.calls));
    for (const [name, text] of Object.entries(before.calls)) expect(answers.calls[name], name).toBe(text);
  });

  it('see the same tools/list apart from _meta', () => {
    const before = golden();
    const withoutMeta = answers.toolsList.map((entry) => {
      const { _meta, ...rest } = entry as Record<string, unknown>;
      return rest;
    });
    expect(JSON.stringify(withoutMeta)).toBe(JSON.stringify(before.toolsList));
  });
});
