import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEndpoint } from '../../src/core/webhooks/endpoints.js';
import { stdioWorkspace } from '../mcp/stdio-workspace.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * `outreach mcp` alone, with no server on its database (the setup an assistant's stdio config
 * gives): what it records still reaches webhook endpoints, as the server's would.
 */
describe('outreach mcp over stdio, with no server beside it', () => {
  const { BIN, db, env, elsewhere } = stdioWorkspace('outreach-stdio-hooks-');
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('delivers the webhook of a tag set through a tool call', async () => {
    elsewhere((ctx) => addEndpoint(ctx, { url: receiver.url, events: ['lead.tagged'] }));
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--db', db], env, stderr: 'pipe' });
    const client = new Client({ name: 'stdio-hooks', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'update_lead', arguments: { campaignId: 'cmp_q4', leadId: 'lead_ada1', tag: 'Meeting request' } });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      await expect
        .poll(() => receiver.requests.filter((q) => new URL(receiver.url).pathname === q.url).map((q) => JSON.parse(q.body).type), {
          timeout: 20_000,
          interval: 200,
        })
        .toEqual(['lead.tagged']);
      const body = JSON.parse(receiver.requests[0]?.body ?? '{}');
      expect(body.data).toMatchObject({ lead: { id: 'lead_ada1', tag: 'Meeting request' } });
    } finally {
      await client.close();
    }
  });
});
