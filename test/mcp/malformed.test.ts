import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ limits: RELAXED_LIMITS });
});
afterAll(() => server.close());

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY };

async function rpc(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

const errorOf = (json: any) => {
  expect(json.error).toBeUndefined();
  expect(json.result.isError).toBe(true);
  return JSON.parse(json.result.content[0].text).error;
};

describe('a malformed tools/call', () => {
  it('is an isError result with our error body, alone or in a batch', async () => {
    const calls = [
      { params: { name: 'get_credits', arguments: [] }, fields: ['arguments'], says: 'not an array' },
      { params: { name: 'get_credits', arguments: 'x' }, fields: ['arguments'], says: 'not a string' },
      { params: undefined, fields: [], says: 'needs params' },
      { params: { arguments: {} }, fields: ['name'], says: 'name' },
    ];
    for (const [i, c] of calls.entries()) {
      const request = { jsonrpc: '2.0', id: i + 1, method: 'tools/call', ...(c.params === undefined ? {} : { params: c.params }) };
      const single = await rpc(request);
      expect(single.status).toBe(200);
      expect(single.json.id).toBe(i + 1);
      const error = errorOf(single.json);
      expect(error).toMatchObject({ code: 'validation_error', details: { fields: c.fields } });
      expect(error.message).toContain(c.says);
      // In a batch (which the SDK's transport answers, not the fast path): the same result.
      // (The SDK answers a batch of one with the one reply.)
      const batch = await rpc([request, { jsonrpc: '2.0', id: 'p', method: 'ping' }]);
      expect(batch.status).toBe(200);
      expect(batch.json).toEqual([single.json, { jsonrpc: '2.0', id: 'p', result: {} }]);
    }
  });

  it('leaves a well-formed call alone', async () => {
    const r = await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'get_credits', arguments: {} } });
    expect(r.json.result.isError).toBeUndefined();
    expect(r.json.result.structuredContent.credits).toBe(100);
  });
});
