import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followedCalls } from '../../src/mcp/follow.js';
import { LookalikeWorker } from '../../src/workers/lookalike/worker.js';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { ControlledNetwork, SEED } from '../lookalike/helpers.js';

/**
 * A Lookalike build followed through progress notifications: a call that sends a progressToken
 * stays in flight while the build runs on the simulated network, hears each step it reaches
 * (queued, each page of leads, its end), and then answers with the launch's result, unchanged.
 * The official v2 client, in both eras.
 */

type Era = 'modern' | 'legacy';
type Progress = { progress: number; total?: number | undefined; message?: string | undefined };

async function connect(server: TestServer, era: Era): Promise<Client> {
  const client = new Client(
    { name: `lookalike-progress-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'X-API-Key': TEST_KEY } } }));
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

const body = (result: CallToolResult): any => {
  const first = result.content[0];
  return JSON.parse(first && first.type === 'text' ? first.text : 'null');
};

describe.each<Era>(['modern', 'legacy'])('create_lookalike_campaign with a progress token (%s era)', (era) => {
  let server: TestServer;
  let client: Client;
  let net: ControlledNetwork;
  let worker: LookalikeWorker;
  beforeEach(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    net = new ControlledNetwork(server.ctx.network);
    // Two leads a page: five leads take three pages, each a step of its own.
    worker = new LookalikeWorker({ ...server.ctx, network: net.provider() }, { pageSize: 2 });
    client = await connect(server, era);
  });
  afterEach(async () => {
    await client.close();
    await worker.stop();
    await server.close();
  });

  it('hears each step of the build until it ends, then gets the launch result as before', async () => {
    const seen: Progress[] = [];
    const second = net.hold(2);
    const third = net.hold(3);
    const answer = client.callTool(
      { name: 'create_lookalike_campaign', arguments: { seed: SEED, numberOfLeads: 5 } },
      { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true },
    ) as Promise<CallToolResult>;

    // Queued: no worker has taken the build yet, and the call is still in flight.
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(seen[0]).toMatchObject({ progress: 0, total: 6 });
    expect(seen[0]?.message).toMatch(/^Queued: up to 5 leads/);

    const drained = worker.drain();
    await second.reached; // the first page (two leads) is recorded
    await expect.poll(() => seen.at(-1)?.progress, { timeout: 10_000 }).toBe(2);
    expect(seen.at(-1)?.message).toBe('Searching: 2 of 5 leads added so far.');
    second.release();
    await third.reached;
    await expect.poll(() => seen.at(-1)?.progress, { timeout: 10_000 }).toBe(4);
    third.release();
    await drained;

    const result = await answer;
    expect(result.isError).not.toBe(true);
    // The result is the launch's, as the REST route and a call without a token get it.
    const launched = body(result);
    expect(launched).toMatchObject({ status: 'PENDING', extended: false, requestedLeadTarget: 5, lookalikeReserved: 5 });
    expect(launched.message).toMatch(/^Created Lookalike campaign /);
    expect(result.structuredContent).toEqual(launched);

    // The last notification is the build's end, before the answer.
    expect(seen.at(-1)).toMatchObject({ progress: 6, total: 6 });
    expect(seen.at(-1)?.message).toMatch(/^The build finished: 5 leads added\./);
    const steps = seen.map((p) => p.progress);
    expect(steps).toEqual([...new Set(steps)].sort((a, b) => a - b));
    expect(seen.every((p) => p.total === 6)).toBe(true);
    const campaign = await server.rest(`/campaigns/${launched.campaignId}`);
    expect(campaign.body).toMatchObject({ status: 'READY_TO_SEND', totalLeads: 5 });
  });

  it('a call without a token answers at the launch, while the build is still queued', async () => {
    const result = (await client.callTool({ name: 'create_lookalike_campaign', arguments: { seed: SEED, numberOfLeads: 3 } })) as CallToolResult;
    expect(result.isError).not.toBe(true);
    const launched = body(result);
    expect(launched).toMatchObject({ status: 'PENDING', requestedLeadTarget: 3 });
    expect((await server.rest(`/campaigns/${launched.campaignId}`)).body).toMatchObject({ status: 'PENDING', totalLeads: 0 });
    expect(net.calls).toHaveLength(0);
  });

  it('a cancelled call stops following; the build goes on without it', async () => {
    const seen: Progress[] = [];
    const cancel = new AbortController();
    const answer = client.callTool(
      { name: 'create_lookalike_campaign', arguments: { seed: SEED, numberOfLeads: 3 } },
      { onprogress: (p) => seen.push(p), signal: cancel.signal },
    );
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(followedCalls(server.ctx)).toBe(1); // the call is held open, following the build
    cancel.abort('the user moved on');
    await expect(answer).rejects.toThrow();
    // The server hears the cancellation (or the closed exchange) and stops following.
    await expect.poll(() => followedCalls(server.ctx), { timeout: 10_000 }).toBe(0);
    await worker.drain();
    const built = seen[0]?.message;
    expect(built).toMatch(/^Queued: up to 3 leads/);
    const campaigns = (await server.rest('/campaigns?limit=100')).body;
    const lookalike = JSON.stringify(campaigns).match(/"id":"(cmp_[^"]+)","name":"Lookalike/)?.[1];
    expect(lookalike).toBeDefined();
    expect((await server.rest(`/campaigns/${lookalike}`)).body).toMatchObject({ status: 'READY_TO_SEND', totalLeads: 3 });
  });
});
