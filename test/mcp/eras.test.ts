import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTools } from '../../src/tools/index.js';
import { fixture, RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

/**
 * The official v2 SDK client, a client no one here wrote, against both eras on both
 * transports: 2026-07-28 (stateless, `_meta` on every request, confirmations as input_required
 * rounds the client fulfils) and 2025-11-25 (the initialize handshake; confirmations as
 * elicitation requests over stdio, none over stateless HTTP, where the caller is trusted).
 */

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

type Era = 'modern' | 'legacy';
type Answer = 'accept' | 'decline';

interface Connected {
  client: Client;
  /** Every confirmation question the client was asked, in order. */
  asked: string[];
  /** How the client answers the next questions. */
  answer: { next: Answer };
}

async function connect(transport: Transport, era: Era): Promise<Connected> {
  const asked: string[] = [];
  const answer: { next: Answer } = { next: 'accept' };
  const client = new Client(
    { name: `eras-test-${era}`, version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return answer.next === 'accept' ? { action: 'accept', content: {} } : { action: 'decline' };
  });
  await client.connect(transport);
  expect(client.getProtocolEra()).toBe(era);
  return { client, asked, answer };
}

const body = (result: CallToolResult): any => {
  const first = result.content[0];
  return JSON.parse(first && first.type === 'text' ? first.text : 'null');
};

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { isError: result.isError === true, body: body(result) };
}

/** The walk every client takes; `asks` says whether this client can be asked to confirm. */
function walk(connectClient: () => Promise<Connected>, asks: boolean) {
  let c: Connected;
  beforeAll(async () => {
    c = await connectClient();
  });
  afterAll(() => c.client.close());

  it('lists the tools with all four hints', async () => {
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(defaultTools.map((t) => t.name));
    for (const t of tools) expect(Object.keys(t.annotations ?? {}).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint']);
  });

  it('starts a campaign once the user accepts (or, when it cannot ask, as a trusted key holder)', async () => {
    c.answer.next = 'accept';
    const started = await call(c.client, 'start_campaign', { campaignId: 'cmp_q4' });
    expect(started.isError, JSON.stringify(started.body)).toBe(false);
    expect(started.body.action).toBe('started');
    if (asks) {
      expect(c.asked).toEqual(['Start campaign "Q4"? It will send connection requests and messages from Ada to its 1 lead.']);
    } else {
      expect(c.asked).toEqual([]);
    }
  });

  if (asks) {
    it('writes nothing and spends no idempotency key when the user declines', async () => {
      c.asked.length = 0;
      c.answer.next = 'decline';
      const args = { campaignId: 'cmp_q4', leadIds: ['lead_ada1'], idempotencyKey: 'eras-delete-1' };
      const declined = await call(c.client, 'delete_leads_batch', args);
      expect(declined.isError).toBe(true);
      expect(declined.body.error.code).toBe('declined');
      expect(declined.body.error.message).toContain('Delete 1 lead from campaign "Q4" (Ada Lovelace)?');
      expect(c.asked).toHaveLength(1);
      const lead = await call(c.client, 'get_lead', { campaignId: 'cmp_q4', leadId: 'lead_ada1' });
      expect(lead.isError).toBe(false);

      const refused = await call(c.client, 'send_message', { campaignId: 'cmp_q4', leadId: 'lead_ada1', text: 'Hello Ada' });
      expect(refused.body.error.code).toBe('declined');
      expect(c.asked[1]).toBe('Send this message from Ada to Ada Lovelace?\n\n"Hello Ada"');

      // The same key, accepted this time: it runs, because the refusal took no key.
      c.answer.next = 'accept';
      const deleted = await call(c.client, 'delete_leads_batch', args);
      expect(deleted.isError, JSON.stringify(deleted.body)).toBe(false);
      expect(deleted.body.summary.deleted).toBe(1);
    });
  } else {
    it('deletes without a question: a client that cannot ask is trusted, as before', async () => {
      const deleted = await call(c.client, 'delete_leads_batch', { campaignId: 'cmp_q4', leadIds: ['lead_ada1'] });
      expect(deleted.body.summary.deleted).toBe(1);
      expect(c.asked).toEqual([]);
    });
  }

  it('reads a view resource', async () => {
    const read = await c.client.readResource({ uri: 'ui://outreach/campaigns.html' });
    const content = read.contents[0]!;
    expect('text' in content && content.text.startsWith('<!doctype html>')).toBe(true);
  });

  it('gets the start_outreach prompt', async () => {
    const { prompts } = await c.client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('start_outreach');
    const prompt = await c.client.getPrompt({ name: 'start_outreach', arguments: { audience: 'CTOs in London' } });
    const text = prompt.messages[0]!.content.type === 'text' ? prompt.messages[0]!.content.text : '';
    expect(text).toContain('Audience: CTOs in London.');
    expect(text).toContain('start_campaign');
    // The default listing lacks the manage tools, and the prompt says how to add them.
    expect(text).toContain('?toolsets=manage');
  });
}

describe.each<Era>(['modern', 'legacy'])('the v2 SDK client over streamable HTTP, %s era', (era) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
  });
  afterAll(() => server.close());
  // Stateless 2025 HTTP has no channel for a server's question: those clients are trusted.
  walk(
    () => connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }), era),
    era === 'modern',
  );
});

describe.each<Era>(['modern', 'legacy'])('the v2 SDK client over stdio, %s era', (era) => {
  const dir = mkdtempSync(join(tmpdir(), `outreach-eras-${era}-`));
  const db = join(dir, 'o.db');
  beforeAll(() => {
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(fixture()));
    execFileSync(process.execPath, [BIN, 'seed', '--file', file, '--db', db]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  walk(
    () =>
      connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp', '--db', db],
          env: { ...(process.env as Record<string, string>), OUTREACH_API_KEY: TEST_KEY, OUTREACH_ENV: '', LOG_LEVEL: 'warn' },
          stderr: 'pipe',
        }),
        era,
      ),
    true,
  );
});
