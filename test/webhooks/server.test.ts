import { afterEach, describe, expect, it } from 'vitest';
import { LeadTaggedEvent } from '../../src/core/webhooks/payloads.js';
import { webhookEvents } from '../../src/db/schema.js';
import { countRows } from '../../src/db/tx.js';
import { verifyStandardWebhook, verifyStaticSignature } from '../../src/core/webhooks/sign.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { SECRET, tagLead, waitFor, webhookWorkspace } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/** What a new user does: run the server, point a webhook at a local listener, change a lead. */
let server: TestServer | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await server?.close();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

async function serverWithListener(extraLeads = 0): Promise<{ server: TestServer; receiver: Receiver }> {
  receiver = await startReceiver();
  server = await startTestServer({ workspace: webhookWorkspace([{ url: receiver.url }], { extraLeads }) });
  return { server, receiver };
}

const nowSeconds = (s: TestServer) => Math.floor(s.ctx.clock.now() / 1000);

describe('webhooks in the running server', () => {
  it('the server delivers outbox events on its own, and closes cleanly', async () => {
    const { server, receiver } = await serverWithListener();
    const eventId = tagLead(server.ctx, 'lead_ada1', 'Interested');
    await waitFor(() => receiver.requests.length === 1, 'the delivery');
    expect(receiver.requests[0]?.headers['webhook-id']).toBe(eventId);
  });

  it('a PATCH that sets a tag reaches a local listener as a signed lead.tagged', async () => {
    const { server, receiver } = await serverWithListener();
    const res = await server.rest('/campaigns/cmp_q4/leads/lead_ada1', { method: 'PATCH', body: JSON.stringify({ tag: 'Interested' }) });
    expect(res.status).toBe(200);
    await waitFor(() => receiver.requests.length === 1, 'the lead.tagged delivery');
    const req = receiver.requests[0]!;
    expect(verifyStaticSignature(req.headers['x-webhook-signature'] as string, SECRET)).toBe(true);
    expect(verifyStandardWebhook({ secret: SECRET, headers: req.headers, body: req.body, nowSeconds: nowSeconds(server) }).ok).toBe(true);
    const event = LeadTaggedEvent.parse(JSON.parse(req.body));
    expect(event.id).toBe(req.headers['webhook-id']);
    expect(event.data).toMatchObject({
      accountId: 'acc_ada',
      campaign: { id: 'cmp_q4' },
      lead: { id: 'lead_ada1', tag: 'Interested' },
      tag: 'Interested',
      previousTag: null,
    });

    // The same tag again changes nothing, so no event (self-hosting.md, Updating leads).
    expect((await server.rest('/campaigns/cmp_q4/leads/lead_ada1', { method: 'PATCH', body: JSON.stringify({ tag: 'Interested' }) })).status).toBe(200);
    expect(countRows(server.ctx.db, webhookEvents)).toBe(1);
  });

  it('a batch update of 100 tags gives 100 deliveries', async () => {
    const { server, receiver } = await serverWithListener(100);
    const updates = Array.from({ length: 100 }, (_, i) => ({ leadId: `lead_bulk${i}`, tag: 'Interested' }));
    const res = await server.rest('/campaigns/cmp_q4/leads/batch-update', { method: 'POST', body: JSON.stringify({ updates }) });
    expect(res.status).toBe(200);
    expect(res.body.summary.updated).toBe(100);
    await waitFor(() => receiver.requests.length >= 100, '100 deliveries', 30_000);
    const leadIds = receiver.requests.map((q) => LeadTaggedEvent.parse(JSON.parse(q.body)).data.lead.id);
    expect(new Set(leadIds)).toEqual(new Set(updates.map((u) => u.leadId)));
    expect(new Set(receiver.requests.map((q) => q.headers['webhook-id'])).size).toBe(100);
  });
});
