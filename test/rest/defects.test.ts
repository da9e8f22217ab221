import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, RELAXED_LIMITS, startTestServer, TEST_KEY, type TestServer } from '../helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ limits: RELAXED_LIMITS });
});
afterAll(() => server.close());

/** A raw request, for what fetch will not send (a GET with a body). */
function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: any }> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'X-API-Key': TEST_KEY, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const credits = async (): Promise<number> => (await server.rest('/credits')).body.credits as number;

describe('REST refuses what it used to take wrongly', () => {
  it('names a path id that is not valid UTF-8 once decoded, like any malformed id', async () => {
    for (const path of ['/campaigns/%ff', '/campaigns/%FF%FE/leads', '/campaigns/ok%e9']) {
      const r = await server.rest(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error, path).toMatchObject({ code: 'validation_error', details: { fields: ['campaignId'] } });
    }
    const post = await server.rest('/campaigns/%ff/start', { method: 'POST', body: '{}' });
    expect(post.status).toBe(400);
    expect(post.body.error.details.fields).toEqual(['campaignId']);
    // Still behind the key, like every route.
    expect((await server.rest('/campaigns/%ff', { key: null })).status).toBe(401);
  });

  it('answers 400 to a JSON body that is not valid UTF-8, and changes nothing', async () => {
    const before = await credits();
    const body = Buffer.concat([
      Buffer.from('{"networkUrl":"https://www.linkedin.com/in/utf8-probe","firstName":"A'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const r = await server.rest('/campaigns/cmp_q4/leads', { method: 'POST', body });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.message).toContain('UTF-8');
    expect(await credits()).toBe(before);
    // The same text, encoded properly, is taken.
    const ok = await server.rest('/campaigns/cmp_q4/leads', {
      method: 'POST',
      body: JSON.stringify({ networkUrl: 'https://www.linkedin.com/in/utf8-probe', firstName: 'A\u00ff' }),
    });
    expect(ok.status).toBe(200);
  });

  it('answers 413 to a body over 128 KiB on a GET route, as on every other route', async () => {
    const big = Buffer.alloc(128 * 1024 + 1, 0x20);
    for (const path of ['/public/v1/credits', '/public/v1/campaigns/cmp_q4', '/public/v1/no/such/route', '/health', '/llms.txt']) {
      const r = await raw('GET', path, { 'Content-Type': 'application/json', 'Content-Length': String(big.length) }, big);
      expect(r.status, path).toBe(413);
      expect(r.body.error.details.maxBytes, path).toBe(128 * 1024);
    }
    const fits = Buffer.alloc(1024, 0x20);
    expect((await raw('GET', '/public/v1/credits', { 'Content-Length': String(fits.length) }, fits)).status).toBe(200);
    // A body announced by chunked transfer instead of a length is read (and bounded) the same way.
    const chunked = await raw('GET', '/public/v1/credits', { 'Transfer-Encoding': 'chunked' }, big);
    expect(chunked.status).toBe(413);
    expect(chunked.body.error.details.maxBytes).toBe(128 * 1024);
    expect((await raw('GET', '/public/v1/credits', { 'Transfer-Encoding': 'chunked' }, fits)).status).toBe(200);
  });

  it('refuses a JSON null body on start and pause, whose body must be empty or {}', async () => {
    for (const action of ['start', 'pause']) {
      const r = await server.rest(`/campaigns/cmp_q4/${action}`, { method: 'POST', body: 'null' });
      expect(r.status, action).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', message: 'The body must be a JSON object.' });
    }
    expect((await server.rest('/campaigns/cmp_q4')).body.status).toBe('READY_TO_SEND');
    expect((await server.rest('/campaigns/cmp_q4/start', { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await server.rest('/campaigns/cmp_q4/pause', { method: 'POST' })).status).toBe(200);
  });

  it('names the Idempotency-Key header in the idempotency errors, and a body field of that name as a field', async () => {
    const bad = await server.rest('/campaigns/cmp_q4/leads', {
      method: 'POST',
      headers: { 'Idempotency-Key': 'k'.repeat(129) },
      body: JSON.stringify({ networkUrl: 'https://www.linkedin.com/in/key-probe' }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields).toEqual(['Idempotency-Key']);
    expect(bad.body.error.message).toMatch(/^Idempotency-Key: /);
    const field = await server.rest('/campaigns/cmp_q4/leads', {
      method: 'POST',
      body: JSON.stringify({ networkUrl: 'https://www.linkedin.com/in/key-probe', idempotencyKey: 'x' }),
    });
    expect(field.status).toBe(400);
    expect(field.body.error.details.fields).toEqual(['idempotencyKey']);
  });

  it('refuses a query parameter on a POST or PATCH route, naming it, and writes nothing', async () => {
    const before = await credits();
    const statusOf = async (id: string) => (await server.rest(`/campaigns/${id}`)).body.status as string;
    const states = { cmp_q4: await statusOf('cmp_q4'), cmp_running: await statusOf('cmp_running') };
    expect(states.cmp_running).toBe('CAMPAIGN_IN_PROGRESS');
    const json = (value: unknown) => JSON.stringify(value);
    const tries: Array<[string, string, string]> = [
      ['POST', '/campaigns/cmp_q4/leads/batch-delete?dryRun=true', json({ leadIds: ['lead_ada1'] })],
      ['POST', '/campaigns/cmp_q4/start?dryRun=true', '{}'],
      ['POST', '/campaigns/cmp_running/pause?confirm=false', '{}'],
      ['POST', '/campaigns/cmp_q4/leads?foo=1', json({ networkUrl: 'https://www.linkedin.com/in/query-probe' })],
      ['PATCH', '/campaigns/cmp_q4/leads/lead_ada1?confirm=false', json({ tag: 'Not interested' })],
    ];
    for (const [method, path, body] of tries) {
      const r = await server.rest(path, { method, body });
      const name = new URL(path, 'http://x').searchParams.keys().next().value;
      expect(r.status, path).toBe(400);
      expect(r.body.error, path).toMatchObject({ code: 'validation_error', message: `Unknown query parameter: ${name}.`, details: { fields: [name] } });
    }
    const lead = await server.rest('/campaigns/cmp_q4/leads/lead_ada1');
    expect(lead.status).toBe(200);
    expect(lead.body.tag).not.toBe('Not interested');
    expect(await statusOf('cmp_q4')).toBe(states.cmp_q4);
    expect(await statusOf('cmp_running')).toBe(states.cmp_running);
    expect(await credits()).toBe(before);
  });

  it('reads a non-ASCII Idempotency-Key as UTF-8, the same key as over MCP, counted in characters', async () => {
    // Node sends a header string one byte per character: the UTF-8 bytes, as a client sends them.
    const header = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const add = (key: string, slug: string) =>
      raw(
        'POST',
        '/public/v1/campaigns/cmp_q4/leads',
        { 'Content-Type': 'application/json', 'Idempotency-Key': header(key) },
        Buffer.from(JSON.stringify({ networkUrl: `https://www.linkedin.com/in/${slug}` })),
      );
    const first = await add('clé-2', 'utf8-key-1');
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('created');
    // The same key over MCP, with another body: a conflict, not a second lead.
    const client = await server.mcp();
    const other = await callTool(client, 'add_lead', { campaignId: 'cmp_q4', networkUrl: 'https://www.linkedin.com/in/utf8-key-2', idempotencyKey: 'clé-2' });
    expect(other.isError).toBe(true);
    expect(other.body.error.code).toBe('conflict');
    // And over MCP with the same body, the REST answer replayed.
    const again = await callTool(client, 'add_lead', { campaignId: 'cmp_q4', networkUrl: 'https://www.linkedin.com/in/utf8-key-1', idempotencyKey: 'clé-2' });
    expect(again.isError).toBe(false);
    expect(again.body.leadId).toBe(first.body.leadId);
    // 100 characters of two bytes each are within the 128-character limit; 129 are not.
    expect((await add('é'.repeat(100), 'utf8-key-3')).status).toBe(200);
    const long = await add('é'.repeat(129), 'utf8-key-4');
    expect(long.status).toBe(400);
    expect(long.body.error.details.fields).toEqual(['Idempotency-Key']);
    // Bytes that are not UTF-8 are refused by name, and nothing is added.
    const before = await credits();
    const bad = await raw(
      'POST',
      '/public/v1/campaigns/cmp_q4/leads',
      { 'Content-Type': 'application/json', 'Idempotency-Key': 'k\u00ff\u00fe' },
      Buffer.from(JSON.stringify({ networkUrl: 'https://www.linkedin.com/in/utf8-key-5' })),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', details: { fields: ['Idempotency-Key'] } });
    expect(await credits()).toBe(before);
  });

  it('takes a query parameter named like an object built-in as an unknown field, and stays up', async () => {
    // `constructor`, `toString` and `__proto__` once read the schema's prototype: the request
    // failed outside the error handlers, and the process exited on the unhandled rejection.
    for (const [path, field] of <const>[
      ['/credits?constructor=1', 'constructor'],
      ['/campaigns?toString=1', 'toString'],
      ['/campaigns?__proto__=x', '__proto__'],
      ['/campaigns/cmp_q4/leads?hasOwnProperty=1&limit=5', 'hasOwnProperty'],
    ]) {
      const r = await server.rest(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error, path).toMatchObject({ code: 'validation_error', details: { fields: [field] } });
      // Behind the key first, as every refusal.
      expect((await server.rest(path, { key: null })).status, path).toBe(401);
    }
    // A GET that also carries a body takes the other way through the body reader: the same answer.
    const withBody = await raw('GET', '/public/v1/credits?constructor=1', { 'Content-Type': 'application/json', 'Content-Length': '2' }, Buffer.from('{}'));
    expect(withBody.status).toBe(400);
    expect(withBody.body.error).toMatchObject({ code: 'validation_error', details: { fields: ['constructor'] } });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await server.rest('/credits')).status).toBe(200);
  });

  it('tells a bearer token sent to REST where the key goes', async () => {
    const r = await server.rest('/credits', { key: null, headers: { Authorization: 'Bearer oat_something' } });
    expect(r.status).toBe(401);
    expect(r.body.error.message).toContain('X-API-Key');
    expect(r.body.error.message).toContain('MCP endpoint only');
  });
});
