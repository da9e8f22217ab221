import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, findTask } from '../../src/core/tasks/tasks.js';
import { TaskRunner } from '../../src/mcp/tasks.js';
import { toolByName, tools } from '../../src/tools/index.js';
import { authenticate, toolArguments } from '../../src/tools/pipeline.js';
import { LookalikeWorker } from '../../src/workers/lookalike/worker.js';
import { fixture, RELAXED_LIMITS, startTestServer, TEST_KEY, testCtx, type TestServer } from '../helpers.js';
import { SEED } from '../lookalike/helpers.js';
import { modernRpc } from '../transports.js';

/**
 * The Tasks extension on long calls: a Lookalike build followed until its search ends, a
 * cancelled task, and a call cut off by a restart of the server.
 */

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

describe('a Lookalike build as a task', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
  });
  afterAll(() => server.close());

  const rpc = async (method: string, params: Record<string, unknown>) => (await modernRpc(`${server.url}/mcp`, method, params, META)).result;

  it('stays working while the search runs, and completes with what the build did', async () => {
    const created = await rpc('tools/call', { name: 'create_lookalike_campaign', arguments: { seed: SEED, numberOfLeads: 5 } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 10_000 });

    // The call itself answers at once; the task then follows the queued build, which no worker has run yet.
    await expect.poll(async () => (await rpc('tasks/get', { taskId: created.taskId })).statusMessage, { timeout: 10_000 }).toMatch(/^Searching: 0 of 5/);
    expect((await rpc('tasks/get', { taskId: created.taskId })).status).toBe('working');

    await new LookalikeWorker(server.ctx).drain();
    const done = await rpc('tasks/get', { taskId: created.taskId });
    expect(done.status).toBe('completed');
    expect(done.result.isError).toBeUndefined();
    expect(done.result.structuredContent).toMatchObject({ status: 'READY_TO_SEND', requestedLeadTarget: 5 });
    expect(done.result.structuredContent.message).toMatch(/^The build finished: 5 leads added\./);
    const campaign = await server.rest(`/campaigns/${done.result.structuredContent.campaignId}`);
    expect(campaign.body.totalLeads).toBe(5);
  });

  it('a cancelled task stops following the build and says the build goes on', async () => {
    const created = await rpc('tools/call', { name: 'create_lookalike_campaign', arguments: { seed: SEED, numberOfLeads: 3 } });
    await expect.poll(async () => (await rpc('tasks/get', { taskId: created.taskId })).statusMessage, { timeout: 10_000 }).toMatch(/^Searching/);
    expect(await rpc('tasks/cancel', { taskId: created.taskId })).toMatchObject({ resultType: 'complete' });
    await new LookalikeWorker(server.ctx).drain();
    const after = await rpc('tasks/get', { taskId: created.taskId });
    expect(after.status).toBe('cancelled');
    expect(after.statusMessage).toContain('the work itself goes on');
    expect(after.result).toBeUndefined();
  });
});

describe('progress of a call answered as a task', () => {
  it("becomes the task's status message, which tasks/get reports", async () => {
    const server = await startTestServer({ workspace: fixture(), limits: RELAXED_LIMITS });
    try {
      const auth = authenticate(server.ctx, { apiKey: TEST_KEY }, { requestId: 'req_task_progress' });
      if (!auth.ok) throw new Error('the test key did not authenticate');
      const tool = toolByName.get('search_linkedin')!;
      const runner = new TaskRunner(server.ctx);
      const handle = runner.start(tool, { caller: auth.caller }, toolArguments(tool, { accountId: 'acc_ada', query: 'engineers', limit: 3 })) as unknown as {
        taskId: string;
      };
      // The search has reported its start and is waiting for the provider.
      expect(runner.get(auth.caller.keyId, handle.taskId)).toMatchObject({ status: 'working', statusMessage: 'Searching LinkedIn (0 of 1)' });
      await expect.poll(() => runner.get(auth.caller.keyId, handle.taskId).status, { timeout: 10_000 }).toBe('completed');
    } finally {
      await server.close();
    }
  });
});

describe('a call cut off by a restart', () => {
  it('fails once its heartbeat is older than a minute, saying the outcome is unknown', () => {
    const ctx = testCtx();
    // Started by a server process that is gone: no runner of this process holds it.
    const row = createTask(ctx, 'key_1', 'search_linkedin', 60 * 60 * 1000);
    const runner = new TaskRunner(ctx);
    expect(runner.get('key_1', row.id).status).toBe('working');
    ctx.clock.advance(61_000);
    const task = runner.get('key_1', row.id);
    expect(task.status).toBe('failed');
    expect(task.error).toMatchObject({ code: -32603, message: expect.stringContaining('outcome is unknown') });
    expect(findTask(ctx, 'key_2', row.id)).toBeNull();
  });

  it('is gone for good once its time to live has passed', () => {
    const ctx = testCtx();
    const row = createTask(ctx, 'key_1', 'search_linkedin', 1_000);
    ctx.clock.advance(1_001);
    expect(findTask(ctx, 'key_1', row.id)).toBeNull();
  });

  it('only the tools that may outlast a client are tasks', () => {
    expect(tools.filter((t) => t.task).map((t) => t.name)).toEqual(['create_lookalike_campaign', 'lookup_profile', 'search_linkedin']);
  });
});
