import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentTypeProblem } from '../../src/http/body.js';
import { leads } from '../../src/db/schema.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { fakeUiDir, login } from '../web/helpers.js';

/**
 * A JSON body is read only when it is declared as JSON in UTF-8: another charset would be
 * read as UTF-8 and altered, and a `+json` type names a format of its own. Both are refused
 * as any wrong Content-Type is, on every route that reads a body.
 */

const REFUSED = [
  'application/json; charset=utf-16',
  'application/json; charset=UTF-16LE',
  'application/json;charset="iso-8859-1"',
  'application/json; charset=latin1',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'text/json',
  'text/plain',
];
const ACCEPTED = ['application/json', 'application/json; charset=utf-8', 'Application/JSON; Charset="UTF-8"', 'application/json;charset=utf8'];

describe('contentTypeProblem', () => {
  it.each(REFUSED)('refuses %s, naming Content-Type', (type) => {
    const err = contentTypeProblem(type);
    expect(err).toMatchObject({ code: 'validation_error', details: { fields: ['Content-Type'] } });
    expect(err?.message).toMatch(/^The body must be JSON, sent with Content-Type: application\/json\./);
  });
  it.each(ACCEPTED)('accepts %s', (type) => {
    expect(contentTypeProblem(type)).toBeNull();
  });
});

describe('on the wire', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());

  const body = (slug: string) => JSON.stringify({ networkUrl: `https://www.linkedin.com/in/${slug}` });
  const leadCount = () => server.ctx.db.select().from(leads).where(eq(leads.campaignId, 'cmp_q4')).all().length;

  it.each(REFUSED)('REST refuses %s with 400 validation_error and adds nothing', async (type) => {
    const before = leadCount();
    const r = await server.rest('/campaigns/cmp_q4/leads', { method: 'POST', headers: { 'content-type': type }, body: body('ct-refused') });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_error', details: { fields: ['Content-Type'] } });
    expect(leadCount()).toBe(before);
  });

  it('REST reads a UTF-8 body declared with charset=utf-8', async () => {
    const r = await server.rest('/campaigns/cmp_q4/leads', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: body('ct-accepted'),
    });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('created');
  });

  it.each(['application/json; charset=utf-16', 'application/vnd.api+json'])('MCP refuses %s the same way', async (type) => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': type, accept: 'application/json, text/event-stream', 'x-api-key': TEST_KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_credits', arguments: {} } }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ code: 'validation_error', details: { fields: ['Content-Type'] } });
  });

  it.each(['application/json; charset=utf-16', 'application/json-patch+json', 'text/plain'])('the dashboard call endpoint refuses %s', async (type) => {
    const res = await fetch(`${server.url}/app/api/call`, {
      method: 'POST',
      headers: { cookie, origin: server.url, 'content-type': type },
      body: JSON.stringify({ name: 'get_credits', arguments: {} }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ code: 'validation_error', details: { fields: ['Content-Type'] } });
  });
});
