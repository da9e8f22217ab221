import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tools } from '../../src/tools/index.js';
import { callTool, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { SAMPLE_CALLS } from '../tools/samples.js';

/**
 * Idempotency cases every tool answers alike over both transports: tools that take a key
 * validate it in the shared pipeline; the others refuse it over MCP and ignore the header.
 */
describe.each(tools.map((t) => [t.name, t.idempotent] as const))('idempotency key: %s', (name, idempotent) => {
  const sample = SAMPLE_CALLS[name]!;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    sample.setup?.(server.ctx);
  });
  afterAll(() => server.close());

  const rest = (key: string) =>
    server.rest(sample.rest.path, {
      method: sample.rest.method,
      headers: { 'Idempotency-Key': key },
      body: sample.rest.body === undefined ? undefined : JSON.stringify(sample.rest.body),
    });

  if (idempotent) {
    it('refuses a key over 128 characters with 400 naming it, on both transports', async () => {
      const r = await rest('k'.repeat(129));
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details.fields).toEqual(['Idempotency-Key']);
      for (const bad of ['k'.repeat(129), 12, '']) {
        const m = await callTool(await server.mcp(TEST_KEY, 'toolsets=manage,triage,audit'), name, { ...sample.args, idempotencyKey: bad });
        expect(m.isError).toBe(true);
        expect(m.body.error.details.fields).toEqual(['idempotencyKey']);
      }
    });

    it('answers the same JSON for a retried key on both transports', async () => {
      const key = `common-${name}`;
      const first = await rest(key);
      expect(first.status).toBe(200);
      const m = await callTool(await server.mcp(TEST_KEY, 'toolsets=manage,triage,audit'), name, { ...sample.args, idempotencyKey: key });
      expect(m.isError).toBe(false);
      expect(m.body).toEqual(first.body);
    });
  } else {
    it('takes no idempotencyKey argument over MCP and ignores the header over REST', async () => {
      const m = await callTool(await server.mcp(TEST_KEY, 'toolsets=manage,triage,audit'), name, { ...sample.args, idempotencyKey: 'k' });
      expect(m.isError).toBe(true);
      expect(m.body.error.details.fields).toEqual(['idempotencyKey']);
      expect((await rest('k')).status).toBe(200);
    });
  }
});
